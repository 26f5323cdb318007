import type { Logger, PluginAdminRequest, PluginAdminResponse, PluginGateway } from '@switchyard/core';
import { definitionDiff, type FieldDiff } from './diff.js';
import { DIGEST_PATTERN, type Digest } from './digest.js';
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
   * The digest of the definition listed now (the one `diff` shows), as the lock file would pin it:
   * `POST /admin/pins/approve` with it pins this definition, and no other one listed since.
   */
  digest: Digest;
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
 * The admin side of pinning: the `pins` section of `/admin/status` (what is quarantined, the diff
 * against its pin, and the digest of what the diff shows) and `POST /admin/pins/approve` (pins what was
 * last listed under an exposed name, if given a digest only when it is that one, writes the lock file,
 * announces `pin.approved`).
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
        digest: entry.digest,
        diff: definitionDiff(entry.kind, entry.verdict, entry.changed, entry.before, entry.definition),
      });
    }
    return { mode, lockFile: keeper.file, quarantined };
  }

  /**
   * `POST /admin/pins/approve` `{ "name": "<exposed name>", "digest"?: "sha256:…" }`: pins what was last
   * listed under that name. With `digest` (the one `/admin/status` showed), only that definition: 409
   * when the upstream has listed another one since, which the admin has not reviewed. Without it, what
   * was listed last, reviewed or not (the contract's form; the docs tell of the race).
   */
  approve = async ({ identity, body }: PluginAdminRequest): Promise<PluginAdminResponse> => {
    const { state, gateway, keeper, log, announce } = this.#parts;
    const fields = typeof body === 'object' && body !== null ? (body as Record<string, unknown>) : {};
    const { name, digest } = fields;
    if (
      typeof name !== 'string' ||
      name.length === 0 ||
      (digest !== undefined && (typeof digest !== 'string' || !DIGEST_PATTERN.test(digest)))
    ) {
      return {
        status: 400,
        body: {
          error: 'invalid_request',
          message:
            'expected { "name": "<exposed tool or prompt name>", "digest": "sha256:<64 hex digits, as /admin/status shows it>" } (digest optional)',
        },
      };
    }
    // Which of that name's tool and prompt were listed, and as what: judged and pinned in this one
    // synchronous step, so a listing arriving meanwhile cannot slip another definition in.
    const listed: { route: { upstream: string; name: string }; kind: 'tools' | 'prompts'; digest: Digest }[] =
      [];
    for (const [kind, route] of [
      ['tools', gateway.tool(name)],
      ['prompts', gateway.prompt(name)],
    ] as const) {
      if (route === undefined) continue;
      const last = state.listed(route.upstream, kind, route.name);
      if (last !== undefined) listed.push({ route, kind, digest: last });
    }
    if (listed.length === 0) {
      return {
        status: 404,
        body: {
          error: 'not_found',
          message: `no tool or prompt named '${name}' has been listed by this gateway`,
        },
      };
    }
    const chosen = digest === undefined ? listed : listed.filter((l) => l.digest === digest);
    if (chosen.length === 0) {
      return {
        status: 409,
        body: {
          error: 'definition_changed',
          message: `'${name}' is listed now with another definition than the one of digest ${digest}: it changed after it was shown, and nothing was approved. Review it again (/admin/status pins.quarantined) and approve the digest shown there.`,
          name,
          digest,
        },
      };
    }
    const approved: { server: string; kind: 'tool' | 'prompt'; digest: string }[] = [];
    const pins: Approval[] = [];
    for (const { route, kind, digest: pinned } of chosen) {
      const previous = state.pin(route.upstream, kind, route.name);
      if (state.approve(route.upstream, kind, route.name, pinned) === undefined) continue;
      approved.push({ server: route.upstream, kind: kind === 'tools' ? 'tool' : 'prompt', digest: pinned });
      pins.push({ server: route.upstream, kind, name: route.name, digest: pinned, previous });
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
