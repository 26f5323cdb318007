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
import { PinAdmin, type PinsStatus } from './admin.js';
import { BackgroundWork } from './background.js';
import type { PinKind } from './digest.js';
import { notApproved } from './errors.js';
import { type Announce, announcer, unpinnedEvent } from './events.js';
import { type LockFile, mergeLocks, readLock } from './lock-file.js';
import { LockKeeper } from './lock-keeper.js';
import type { PinMode } from './options.js';
import { PinState, type Sighting } from './state.js';
import { StoreSync } from './store-sync.js';

/** The list methods whose pages carry definitions, and the kind each lists (Maps: the method is the client's). */
const LISTS: ReadonlyMap<string, PinKind> = new Map([
  ['tools/list', 'tools'],
  ['prompts/list', 'prompts'],
]);
/** The methods that use one tool or prompt, and its kind. */
const USES: ReadonlyMap<string, PinKind> = new Map([
  ['tools/call', 'tools'],
  ['prompts/get', 'prompts'],
]);

/** Further upstream pages fetched while quarantine leaves a page empty (then the empty page goes out). */
const MAX_SKIPPED_PAGES = 16;

/** What the plugin is given besides its options. */
export interface PinningHost {
  /** Where approvals and quarantines go (the audit log records them). */
  events?: PluginEvents;
  /** The gateway's store: when it is shared (DESIGN §12), the pins live there too. */
  store?: Store;
}

/** The parts a `Pinning` is made of (see `open`). */
interface PinningParts {
  mode: PinMode;
  log: Logger;
  gateway: PluginGateway;
  events: PluginEvents | undefined;
  state: PinState;
  keeper: LockKeeper;
  sync: StoreSync | undefined;
  background: BackgroundWork;
  announce: Announce;
}

/**
 * The pin plugin's hooks: `upstreamCall` records every listed tool and prompt in the pin state (pinning
 * on first use) and under `enforce` lists only approved ones; `request` refuses a call of a quarantined
 * one. `open` puts the plugin together from its parts, which live beside it: the pin state (state.ts),
 * the lock file on disk (lock-keeper.ts), the replicas' shared store (store-sync.ts) and the admin side
 * (admin.ts, reached through `status` and `approve`).
 */
export class Pinning {
  readonly #mode: PinMode;
  readonly #log: Logger;
  readonly #gateway: PluginGateway;
  readonly #events: PluginEvents | undefined;
  readonly #state: PinState;
  readonly #keeper: LockKeeper;
  readonly #sync: StoreSync | undefined;
  readonly #background: BackgroundWork;
  readonly #admin: PinAdmin;

  private constructor(parts: PinningParts) {
    this.#mode = parts.mode;
    this.#log = parts.log;
    this.#gateway = parts.gateway;
    this.#events = parts.events;
    this.#state = parts.state;
    this.#keeper = parts.keeper;
    this.#sync = parts.sync;
    this.#background = parts.background;
    this.#admin = new PinAdmin(parts);
    this.approve = this.#admin.approve;
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
    const background = new BackgroundWork(log);
    const sync = host.store?.shared ? await StoreSync.open(host.store, log, background) : undefined;
    const stored = await sync?.read();
    const lock = stored === undefined ? local : mergeLocks(local, stored);
    try {
      const state = new PinState(lock);
      const announce = announcer(host.events, gateway);
      const keeper = new LockKeeper(file, log, state, lock, {
        announce,
        share: sync && (() => sync.share()),
      });
      sync?.attach(state, keeper);
      const pinning = new Pinning({
        mode,
        log,
        gateway,
        events: host.events,
        state,
        keeper,
        sync,
        background,
        announce,
      });
      await pinning.#start(local, stored);
      return pinning;
    } catch (error) {
      await sync?.close();
      throw error;
    }
  }

  async #start(local: LockFile | undefined, stored: LockFile | undefined): Promise<void> {
    await this.#keeper.learnDefinitions();
    await this.#sync?.join(local, stored);
    if (local === undefined && stored === undefined) {
      this.#log.info('no lock file: pinning the first definitions seen (trust on first use)', {
        file: this.#keeper.file,
      });
    }
    this.#keeper.watch(this.#background);
  }

  get state(): PinState {
    return this.#state;
  }

  /** Applies the lock file as it is on disk now (lock-keeper.ts). */
  reload(): Promise<void> {
    return this.#keeper.reload();
  }

  /** The `pins` section of `/admin/status` (admin.ts). */
  status(): PinsStatus {
    return this.#admin.status();
  }

  /** `POST /admin/pins/approve` (admin.ts). */
  readonly approve: (request: PluginAdminRequest) => Promise<PluginAdminResponse>;

  /** Upstream-call layer: records each listed definition, and under `enforce` lists only approved ones. */
  upstreamCall = async (call: UpstreamCallContext, next: () => Promise<Outcome>): Promise<Outcome> => {
    const kind = LISTS.get(call.method);
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
    const kind = USES.get(ctx.method);
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

  async close(): Promise<void> {
    this.#keeper.stopWatching();
    await this.#sync?.close();
    await this.#background.settled();
    await this.#keeper.settled();
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
    if (pinnedNow) void this.#keeper.write();
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
}

/** Adds exposed names to the request's `PIN_QUARANTINED_KEY` (for the audit log): sorted, without repeats. */
function noteQuarantined(request: RequestContext, names: readonly string[]): void {
  if (names.length === 0) return;
  const before = request.state.get(PIN_QUARANTINED_KEY);
  const all = new Set<string>(Array.isArray(before) ? (before as string[]) : []);
  for (const name of names) all.add(name);
  request.state.set(PIN_QUARANTINED_KEY, [...all].sort());
}
