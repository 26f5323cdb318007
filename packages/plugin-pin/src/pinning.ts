import {
  GatewayError,
  type Logger,
  type Outcome,
  PIN_QUARANTINED_KEY,
  type PluginAdminRequest,
  type PluginAdminResponse,
  type PluginEvents,
  type PluginGateway,
  type RequestContext,
  type Store,
  type UpstreamCallContext,
} from '@switchyard/core';
import { definitionsFile, readDefinitions, writeDefinitions } from './definitions.js';
import { definitionDiff, type FieldDiff } from './diff.js';
import type { PinKind } from './digest.js';
import { notApproved } from './errors.js';
import { type Approval, type ApprovalSource, approvals, approvedEvent, unpinnedEvent } from './events.js';
import { type LockFile, mergeLocks, readLock, serializeLock, writeLock } from './lock-file.js';
import type { PinMode } from './options.js';
import { SharedPins } from './shared.js';
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
  /**
   * What differs, readably (descriptions as text, schemas as JSON, each capped at 4096 characters):
   * the changed fields against the pinned definition when it is known, every field of a new one
   * against nothing; empty when the pinned definition is unknown.
   */
  diff: FieldDiff[];
}

/** What the plugin is given besides its options. */
export interface PinningHost {
  /** Where approvals and quarantines go (the audit log records them). */
  events?: PluginEvents;
  /** The gateway's store: when it is shared (DESIGN §12), the pins live there too. */
  store?: Store;
}

/** The identity and source of an approval read from a rewritten lock file (`switchyard pin`, an editor). */
const LOCK_FILE = 'lock-file';

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
  readonly #definitions: string;
  readonly #events: PluginEvents | undefined;
  #shared: SharedPins | undefined;
  /** A change made while the store did not answer: pushed when it is back. */
  #unshared = false;
  /** The store did not answer at start: its pins are merged in when it is back. */
  #unjoined = false;
  /** Writes in order; while one is due, a change on disk is our own and is not applied. */
  #writing: Promise<void> = Promise.resolve();
  #pendingWrites = 0;
  /** The text last written or applied: a watch event showing it changes nothing. */
  #applied: string;
  #stopWatch: (() => void) | undefined;
  /** Reloads and store reads under way: `close` waits for them (they write files). */
  readonly #tasks = new Set<Promise<void>>();

  private constructor(
    file: string,
    mode: PinMode,
    log: Logger,
    gateway: PluginGateway,
    lock: LockFile | undefined,
    events: PluginEvents | undefined,
  ) {
    this.#file = file;
    this.#definitions = definitionsFile(file);
    this.#mode = mode;
    this.#log = log;
    this.#gateway = gateway;
    this.#events = events;
    this.#state = new PinState(lock);
    this.#applied = lock === undefined ? '' : serializeLock(lock);
  }

  /**
   * Reads the lock file (an invalid one stops the start) and the pinned definitions beside it, takes
   * the shared store's pins when there are some (the store's entry wins for each server it has), and
   * starts watching the file and listening to the other replicas.
   */
  static async open(
    file: string,
    mode: PinMode,
    log: Logger,
    gateway: PluginGateway,
    host: PinningHost = {},
  ): Promise<Pinning> {
    const local = await readLock(file);
    let lock = local;
    let shared: SharedPins | undefined;
    let stored: LockFile | undefined;
    let unjoined = false;
    if (host.store?.shared) {
      let pinning: Pinning | undefined;
      shared = await SharedPins.open(host.store, log, {
        changed: () => {
          if (pinning) pinning.#track(() => pinning!.pull());
        },
        available: () => {
          if (pinning) pinning.#track(() => pinning!.rejoin());
        },
      });
      try {
        stored = await shared.read();
      } catch (error) {
        unjoined = true;
        log.warn('the store does not answer: pins from the lock file only, until it does', {
          error: String(error),
        });
      }
      if (stored !== undefined) lock = mergeLocks(local, stored);
      try {
        pinning = new Pinning(file, mode, log, gateway, lock, host.events);
        pinning.#shared = shared;
        pinning.#unjoined = unjoined;
        await pinning.#start(local, stored);
      } catch (error) {
        await shared.close();
        throw error;
      }
      return pinning;
    }
    const pinning = new Pinning(file, mode, log, gateway, lock, host.events);
    await pinning.#start(local, undefined);
    return pinning;
  }

  async #start(local: LockFile | undefined, stored: LockFile | undefined): Promise<void> {
    for (const [digest, entry] of await readDefinitions(this.#definitions)) {
      this.#state.remember(entry.kind, digest, entry.definition);
    }
    const lock = serializeLock(this.#state.lock);
    if (stored !== undefined) {
      // The store's pins won for the servers it has: the lock file follows (a restart keeps them), and
      // the store gets the servers only the lock file had.
      const storeBehind = serializeLock(stored) !== lock;
      if (local === undefined || serializeLock(local) !== lock) {
        this.#log.info('pins taken from the store', { file: this.#file });
        await this.#write({ share: storeBehind });
      } else if (storeBehind) await this.#share();
    } else if (local === undefined) {
      this.#log.info('no lock file: pinning the first definitions seen (trust on first use)', {
        file: this.#file,
      });
    } else if (!this.#unjoined) await this.#share(); // the first replica with a store: its pins seed it
    this.#stopWatch = watchFile(this.#file, () => this.#track(() => this.reload()));
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
    const before = this.#state.lock;
    this.#state.replaceLock(lock);
    this.#log.info('lock file applied', { file: this.#file, quarantined: this.#state.quarantined().length });
    // `switchyard pin` writes the definitions beside the lock first: learn them, and prune the file.
    for (const [digest, entry] of await readDefinitions(this.#definitions)) {
      this.#state.remember(entry.kind, digest, entry.definition);
    }
    await this.#writeDefinitions(lock);
    await Promise.all(approvals(before, lock).map((pin) => this.#approved(pin, LOCK_FILE, LOCK_FILE)));
    await this.#share();
  }

  /** Applies the store's pins (another replica changed them): the lock file is rewritten to match. */
  async pull(): Promise<void> {
    // Our own writes first: an approval being written here must not be undone by an older store value.
    await this.#writing;
    let lock: LockFile | undefined;
    try {
      lock = await this.#shared?.read();
    } catch {
      return; // unavailable: `rejoin` reads again when it is back
    }
    if (lock === undefined || serializeLock(lock) === this.#applied) return;
    this.#state.replaceLock(lock);
    this.#log.info('pins applied from the store (another replica changed them)', {
      quarantined: this.#state.quarantined().length,
    });
    await this.#write({ share: false });
  }

  /**
   * The store answers again: push what changed here meanwhile (this replica's pins win: an approval
   * made while the store was down is kept), else take the store's (merged in, store wins per server,
   * when it never answered since the start).
   */
  async rejoin(): Promise<void> {
    if (this.#unjoined && !this.#unshared) {
      let stored: LockFile | undefined;
      try {
        stored = await this.#shared?.read();
      } catch {
        return;
      }
      this.#unjoined = false;
      if (stored === undefined) return void (await this.#share());
      const merged = mergeLocks(this.#state.lock, stored);
      if (serializeLock(merged) !== this.#applied) {
        this.#state.replaceLock(merged);
        await this.#write({ share: serializeLock(merged) !== serializeLock(stored) });
      }
      return;
    }
    this.#unjoined = false;
    if (this.#unshared) await this.#share();
    else await this.pull();
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
        diff: definitionDiff(entry.kind, entry.verdict, entry.changed, entry.before, entry.definition),
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
    const pins: Approval[] = [];
    for (const [kind, route] of [
      ['tools', this.#gateway.tool(name)],
      ['prompts', this.#gateway.prompt(name)],
    ] as const) {
      if (route === undefined) continue;
      const previous = this.#state.pin(route.upstream, kind, route.name);
      const lock = this.#state.approve(route.upstream, kind, route.name);
      if (lock === undefined) continue;
      const digest = lock.servers[route.upstream]![kind][route.name]!;
      approved.push({ server: route.upstream, kind: kind === 'tools' ? 'tool' : 'prompt', digest });
      pins.push({ server: route.upstream, kind, name: route.name, digest, previous });
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
    const written = await this.#write();
    await Promise.all(pins.map((pin) => this.#approved(pin, identity.id, 'admin')));
    if (!written) {
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

  async close(): Promise<void> {
    this.#stopWatch?.();
    await this.#shared?.close();
    await Promise.all(this.#tasks);
    await this.#writing;
  }

  /** Runs background work (a reload, a store read) so that `close` can wait for it; failures are logged. */
  #track(work: () => Promise<void>): void {
    const task = work().catch((error: unknown) =>
      this.#log.error('pins not updated', { error: String(error) }),
    );
    this.#tasks.add(task);
    void task.finally(() => this.#tasks.delete(task));
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

  /** A definition seen for the first time that is not its pin: logged, and an event for the audit log. */
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
    const pinned = this.#state.pin(s.server, s.kind, s.name);
    void this.#events?.emit(unpinnedEvent(this.#mode, s, fields.name, pinned));
  }

  /** An approval (by an admin, or a rewritten lock file) as an event for the audit log. */
  #approved(pin: Approval, identity: string, source: ApprovalSource): Promise<void> {
    let name: string | undefined;
    try {
      name = this.#gateway.exposeName(pin.kind, pin.server, pin.name);
    } catch {
      name = undefined; // the gateway is not running yet
    }
    return this.#events?.emit(approvedEvent(pin, name ?? pin.name, identity, source)) ?? Promise.resolve();
  }

  /**
   * Writes the pins as they are now (after the writes before it), atomically, then the definitions
   * beside them, and (with `share`, the default) puts them in the shared store; resolves to whether the
   * lock file could be written.
   */
  #write({ share = true }: { share?: boolean } = {}): Promise<boolean> {
    this.#pendingWrites += 1;
    const done = this.#writing.then(async () => {
      const lock = this.#state.lock;
      let written: boolean;
      try {
        await writeLock(this.#file, lock);
        written = true;
      } catch (error) {
        this.#log.error('could not write the lock file', { file: this.#file, error: String(error) });
        written = false;
      } finally {
        this.#applied = serializeLock(lock);
        this.#pendingWrites -= 1;
      }
      await this.#writeDefinitions(lock);
      if (share) await this.#share();
      return written;
    });
    this.#writing = done.then(() => {});
    return done;
  }

  /** The pinned definitions beside the lock file (for the diff after a restart); a failure costs only the diff. */
  async #writeDefinitions(lock: LockFile): Promise<void> {
    try {
      await writeDefinitions(this.#definitions, lock, this.#state.known);
    } catch (error) {
      this.#log.warn('could not write the pinned definitions (the status page loses the diff)', {
        file: this.#definitions,
        error: String(error),
      });
    }
  }

  /** Puts the pins in effect in the shared store, if there is one (when it does not answer: later). */
  async #share(): Promise<void> {
    if (this.#shared === undefined) return;
    if (this.#unjoined) {
      this.#unshared = true; // pushed when the store is back
      return;
    }
    this.#unshared = !(await this.#shared.push(serializeLock(this.#state.lock)));
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
