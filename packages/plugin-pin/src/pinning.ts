import {
  GatewayError,
  type Logger,
  type Outcome,
  PIN_QUARANTINED_KEY,
  type PluginAdminRequest,
  type PluginAdminResponse,
  type PluginGateway,
  type RequestContext,
  type UpstreamCallContext,
} from '@switchyard/core';
import type { PinKind } from './digest.js';
import { notApproved } from './errors.js';
import { type LockFile, readLock, serializeLock, writeLock } from './lock-file.js';
import type { PinMode } from './options.js';
import { PinState, type Sighting } from './state.js';
import { watchFile } from './watch.js';

/** The list methods whose pages carry definitions, and the kind each lists. */
const LISTS: Readonly<Record<string, PinKind>> = { 'tools/list': 'tools', 'prompts/list': 'prompts' };
/** The methods that use one tool or prompt, and its kind. */
const USES: Readonly<Record<string, PinKind>> = { 'tools/call': 'tools', 'prompts/get': 'prompts' };

/** Further upstream pages fetched while quarantine leaves a page empty (then the empty page goes out). */
const MAX_SKIPPED_PAGES = 16;

/** One quarantined tool or prompt as `/admin/status` shows it (DESIGN §8). */
export interface QuarantinedStatus {
  /** The exposed name (what clients and `POST /admin/pins/approve` use). */
  name: string;
  server: string;
  kind: 'tool' | 'prompt';
  /** The pinned fields that differ from the pin (empty when the pinned definition was not seen here). */
  changed: readonly string[];
  /** `new`: no pin for it; `changed`: it differs from its pin. */
  status: 'new' | 'changed';
}

export interface PinEvents {
  /** A definition seen for the first time that is not its pin (logged; audited later). */
  unpinned?(sighting: Sighting, mode: PinMode): void;
}

/**
 * The pin plugin's working part: the pin state, the lock file it mirrors (read at start, written on
 * first use and on approval, watched for rewrites), and the hooks that judge lists and calls by it.
 */
export class Pinning {
  readonly #file: string;
  readonly #mode: PinMode;
  readonly #log: Logger;
  readonly #gateway: PluginGateway;
  readonly #state: PinState;
  /** Writes in order; while one is due, a change on disk is our own and is not applied. */
  #writing: Promise<void> = Promise.resolve();
  #pendingWrites = 0;
  /** The text last written or applied: a watch event showing it changes nothing. */
  #applied: string;
  #stopWatch: (() => void) | undefined;

  private constructor(
    file: string,
    mode: PinMode,
    log: Logger,
    gateway: PluginGateway,
    lock: LockFile | undefined,
  ) {
    this.#file = file;
    this.#mode = mode;
    this.#log = log;
    this.#gateway = gateway;
    this.#state = new PinState(lock);
    this.#applied = lock === undefined ? '' : serializeLock(lock);
  }

  /** Reads the lock file (an invalid one stops the start) and starts watching it. */
  static async open(file: string, mode: PinMode, log: Logger, gateway: PluginGateway): Promise<Pinning> {
    const lock = await readLock(file);
    const pinning = new Pinning(file, mode, log, gateway, lock);
    if (lock === undefined)
      log.info('no lock file: pinning the first definitions seen (trust on first use)', { file });
    pinning.#stopWatch = watchFile(file, () => void pinning.reload());
    return pinning;
  }

  get state(): PinState {
    return this.#state;
  }

  /** Applies the lock file as it is on disk now (a rewrite by `switchyard pin`, an editor, another replica). */
  async reload(): Promise<void> {
    if (this.#pendingWrites > 0) return;
    let lock: LockFile | undefined;
    try {
      lock = await readLock(this.#file);
    } catch (error) {
      this.#log.error('lock file not applied; the previous pins stay in effect', { error: String(error) });
      return;
    }
    if (lock === undefined || this.#pendingWrites > 0) return;
    const text = serializeLock(lock);
    if (text === this.#applied) return;
    this.#applied = text;
    this.#state.replaceLock(lock);
    this.#log.info('lock file applied', { file: this.#file, quarantined: this.#state.quarantined().length });
  }

  /** Upstream-call layer: records each listed definition, and under `enforce` lists only approved ones. */
  upstreamCall = async (call: UpstreamCallContext, next: () => Promise<Outcome>): Promise<Outcome> => {
    const kind = LISTS[call.method];
    if (kind === undefined) return next();
    let outcome = await next();
    for (let skipped = 0; ; skipped++) {
      if (!outcome.ok) return outcome;
      const page = outcome.result;
      const items = Array.isArray(page[kind]) ? (page[kind] as unknown[]) : [];
      const kept = this.#see(call.upstream, kind, items, call.request);
      const cursor = page.nextCursor;
      const more = typeof cursor === 'string' && cursor.length > 0;
      if (!more) this.#closeFirstUse(call.upstream, kind);
      // The gateway's own listings (indexing unprefixed servers) route calls: they stay whole, and a
      // call of a quarantined item is refused by name instead of not found.
      if (this.#mode === 'warn' || call.request === undefined || kept.length === items.length) return outcome;
      if (kept.length > 0 || !more || skipped >= MAX_SKIPPED_PAGES) {
        return { ok: true, result: { ...page, [kind]: kept } };
      }
      if (call.request.signal.aborted)
        return { ok: false, error: GatewayError.cancelled(call.request.method) };
      outcome = await call.repeat({ ...call.params, cursor });
    }
  };

  /** Request layer: a call of a quarantined tool or prompt is refused before the upstream. */
  request = async (ctx: RequestContext, next: () => Promise<Outcome>): Promise<Outcome> => {
    const kind = USES[ctx.method];
    const target = ctx.target;
    if (kind === undefined || target === undefined || target.name === undefined) return next();
    if (target.kind !== (kind === 'tools' ? 'tool' : 'prompt')) return next();
    const verdict = this.#state.verdict(target.upstream, kind, target.name);
    if (verdict === 'pinned' || verdict === 'unseen') return next();
    noteQuarantined(ctx, [target.exposed]);
    if (this.#mode === 'warn') {
      this.#log.warn(
        `${kind === 'tools' ? 'tool' : 'prompt'} called while not approved (mode warn: forwarded)`,
        {
          name: target.exposed,
          server: target.upstream,
          verdict,
        },
      );
      return next();
    }
    return { ok: false, error: notApproved(kind, target.exposed, target.upstream) };
  };

  /** The `pins` section of `/admin/status`. */
  status(): { mode: PinMode; lockFile: string; quarantined: QuarantinedStatus[] } {
    const quarantined: QuarantinedStatus[] = [];
    for (const entry of this.#state.quarantined()) {
      const name = this.#gateway.exposeName(entry.kind, entry.server, entry.name);
      if (name === undefined) continue; // curated away: clients cannot see or call it
      quarantined.push({
        name,
        server: entry.server,
        kind: entry.kind === 'tools' ? 'tool' : 'prompt',
        changed: entry.changed,
        status: entry.verdict,
      });
    }
    return { mode: this.#mode, lockFile: this.#file, quarantined };
  }

  /** `POST /admin/pins/approve` `{ "name": "<exposed name>" }`: pins what was last listed under that name. */
  approve = async ({ identity, body }: PluginAdminRequest): Promise<PluginAdminResponse> => {
    const name =
      typeof body === 'object' && body !== null ? (body as Record<string, unknown>).name : undefined;
    if (typeof name !== 'string' || name.length === 0) {
      return {
        status: 400,
        body: { error: 'invalid_request', message: 'expected { "name": "<exposed tool or prompt name>" }' },
      };
    }
    const approved: { server: string; kind: 'tool' | 'prompt'; digest: string }[] = [];
    for (const [kind, route] of [
      ['tools', this.#gateway.tool(name)],
      ['prompts', this.#gateway.prompt(name)],
    ] as const) {
      if (route === undefined) continue;
      const lock = this.#state.approve(route.upstream, kind, route.name);
      if (lock === undefined) continue;
      approved.push({
        server: route.upstream,
        kind: kind === 'tools' ? 'tool' : 'prompt',
        digest: lock.servers[route.upstream]![kind][route.name]!,
      });
    }
    if (approved.length === 0) {
      return {
        status: 404,
        body: {
          error: 'not_found',
          message: `no tool or prompt named '${name}' has been listed by this gateway`,
        },
      };
    }
    if (!(await this.#write())) {
      // The approval holds in this process; the file (and so a restart or another replica) lacks it.
      return {
        status: 500,
        body: {
          error: 'write_failed',
          message: `approved, but the lock file ${this.#file} could not be written (see the gateway's log)`,
        },
      };
    }
    this.#log.info('approved', { name, by: identity.id, approved });
    return { body: { name, approved } };
  };

  close(): Promise<void> {
    this.#stopWatch?.();
    return this.#writing;
  }

  #see(
    server: string,
    kind: PinKind,
    items: readonly unknown[],
    request: RequestContext | undefined,
  ): unknown[] {
    const kept: unknown[] = [];
    const unpinned: string[] = [];
    let pinnedNow = false;
    for (const item of items) {
      if (typeof item !== 'object' || item === null || Array.isArray(item)) continue;
      const sighting = this.#state.see(server, kind, item as Record<string, unknown>);
      if (sighting === undefined) continue;
      pinnedNow ||= sighting.pinnedNow;
      if (sighting.verdict === 'pinned') {
        kept.push(item);
        continue;
      }
      unpinned.push(this.#gateway.exposeName(kind, server, sighting.name) ?? sighting.name);
      if (sighting.fresh) this.#unpinned(sighting);
    }
    if (pinnedNow) void this.#write();
    if (request !== undefined) noteQuarantined(request, unpinned);
    return kept;
  }

  #closeFirstUse(server: string, kind: PinKind): void {
    if (this.#state.firstUse) this.#state.closeFirstUse(server, kind);
  }

  #unpinned(s: Sighting): void {
    const fields = {
      server: s.server,
      kind: s.kind === 'tools' ? 'tool' : 'prompt',
      name: this.#gateway.exposeName(s.kind, s.server, s.name) ?? s.name,
      verdict: s.verdict,
      changed: s.changed,
    };
    if (this.#mode === 'warn')
      this.#log.warn('definition differs from its pin (mode warn: listed and forwarded)', fields);
    else this.#log.warn('quarantined until an admin approves it', fields);
  }

  /** Writes the pins as they are now (after the writes before it), atomically; resolves to whether it could. */
  #write(): Promise<boolean> {
    this.#pendingWrites += 1;
    const done = this.#writing.then(async () => {
      const lock = this.#state.lock;
      try {
        await writeLock(this.#file, lock);
        this.#applied = serializeLock(lock);
        return true;
      } catch (error) {
        this.#log.error('could not write the lock file', { file: this.#file, error: String(error) });
        return false;
      } finally {
        this.#pendingWrites -= 1;
      }
    });
    this.#writing = done.then(() => {});
    return done;
  }
}

/** Adds exposed names to the request's `PIN_QUARANTINED_KEY` (for the audit log): sorted, without repeats. */
function noteQuarantined(request: RequestContext, names: readonly string[]): void {
  if (names.length === 0) return;
  const before = request.state.get(PIN_QUARANTINED_KEY);
  const all = new Set<string>(Array.isArray(before) ? (before as string[]) : []);
  for (const name of names) all.add(name);
  request.state.set(PIN_QUARANTINED_KEY, [...all].sort());
}
