import type { Logger, PluginAdminRequest, PluginAdminResponse, PluginGateway } from '@switchyard/core';
import { definitionDiff, type FieldDiff } from './diff.js';
import type { Announce, Approval } from './events.js';
import type { LockKeeper } from './lock-keeper.js';
import type { PinMode } from './options.js';
import type { PinState } from './state.js';

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

/** The `pins` section of `/admin/status`. */
export interface PinsStatus {
  mode: PinMode;
  lockFile: string;
  quarantined: QuarantinedStatus[];
}

/** What the admin side works on. */
export interface PinAdminParts {
  mode: PinMode;
  log: Logger;
  gateway: PluginGateway;
  state: PinState;
  keeper: LockKeeper;
  announce: Announce;
}

/**
 * The admin side of pinning: the `pins` section of `/admin/status` (what is quarantined, and the diff
 * against its pin) and `POST /admin/pins/approve` (pins what was last listed under an exposed name,
 * writes the lock file, announces `pin.approved`).
 */
export class PinAdmin {
  readonly #parts: PinAdminParts;

  constructor(parts: PinAdminParts) {
    this.#parts = parts;
  }

  /** The `pins` section of `/admin/status`. */
  status(): PinsStatus {
    const { state, gateway, mode, keeper } = this.#parts;
    const quarantined: QuarantinedStatus[] = [];
    for (const entry of state.quarantined()) {
      const name = gateway.exposeName(entry.kind, entry.server, entry.name);
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
    return { mode, lockFile: keeper.file, quarantined };
  }

  /** `POST /admin/pins/approve` `{ "name": "<exposed name>" }`: pins what was last listed under that name. */
  approve = async ({ identity, body }: PluginAdminRequest): Promise<PluginAdminResponse> => {
    const { state, gateway, keeper, log, announce } = this.#parts;
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
      ['tools', gateway.tool(name)],
      ['prompts', gateway.prompt(name)],
    ] as const) {
      if (route === undefined) continue;
      const previous = state.pin(route.upstream, kind, route.name);
      const lock = state.approve(route.upstream, kind, route.name);
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
    const written = await keeper.write();
    await Promise.all(pins.map((pin) => announce(pin, identity.id, 'admin')));
    if (!written) {
      // The approval holds in this process; the file (and so a restart or another replica) lacks it.
      return {
        status: 500,
        body: {
          error: 'write_failed',
          message: `approved, but the lock file ${keeper.file} could not be written (see the gateway's log)`,
        },
      };
    }
    log.info('approved', { name, by: identity.id, approved });
    return { body: { name, approved } };
  };
}
