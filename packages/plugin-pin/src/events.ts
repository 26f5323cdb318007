import type { PluginEventInput, PluginEvents, PluginGateway } from '@switchyard/core';
import type { Digest, PinKind } from './digest.js';
import { type LockFile, pinOf } from './lock-file.js';
import type { PinMode } from './options.js';
import type { Sighting } from './state.js';

/**
 * The events the plugin emits for the audit log (through the core's event bus): `pin.quarantined`,
 * `pin.changed-warned` and `pin.approved`, how each is built, and the approvals a rewritten lock sets.
 */

/** One pin set by an approval. */
export interface Approval {
  server: string;
  kind: PinKind;
  /** The server's own name. */
  name: string;
  digest: Digest;
  /** The pin it replaces, if any. */
  previous?: Digest;
}

/** Who approved: an admin (its identity), or the lock file rewritten under the gateway (`switchyard pin`, an editor). */
export type ApprovalSource = 'admin' | 'lock-file';

const noun = (kind: PinKind) => (kind === 'tools' ? 'tool' : 'prompt');

/**
 * `pin.quarantined` (under `enforce`) or `pin.changed-warned` (under `warn`): a definition seen for the
 * first time that is not its pin. `name` is the exposed name.
 */
export function unpinnedEvent(
  mode: PinMode,
  sighting: Sighting,
  name: string,
  pinned: Digest | undefined,
): PluginEventInput {
  return {
    type: mode === 'warn' ? 'pin.changed-warned' : 'pin.quarantined',
    detail: {
      name,
      server: sighting.server,
      kind: noun(sighting.kind),
      upstreamName: sighting.name,
      status: sighting.verdict,
      changed: sighting.changed,
      digest: sighting.digest,
      ...(pinned === undefined ? {} : { pinned }),
    },
  };
}

/** `pin.approved`: who (an admin's identity, or `lock-file`), and the pin it set. */
export function approvedEvent(
  pin: Approval,
  name: string,
  identity: string,
  source: ApprovalSource,
): PluginEventInput {
  return {
    type: 'pin.approved',
    identity,
    detail: {
      name,
      server: pin.server,
      kind: noun(pin.kind),
      upstreamName: pin.name,
      digest: pin.digest,
      ...(pin.previous === undefined ? {} : { previous: pin.previous }),
      source,
    },
  };
}

/** Emits `pin.approved` for one pin set by an approval; resolves when the listeners have it. */
export type Announce = (pin: Approval, identity: string, source: ApprovalSource) => Promise<void>;

/** Announces approvals on `events` (nothing without them), under the exposed name when the gateway has one. */
export function announcer(events: PluginEvents | undefined, gateway: PluginGateway): Announce {
  return (pin, identity, source) => {
    let name: string | undefined;
    try {
      name = gateway.exposeName(pin.kind, pin.server, pin.name);
    } catch {
      name = undefined; // the gateway is not running yet
    }
    return events?.emit(approvedEvent(pin, name ?? pin.name, identity, source)) ?? Promise.resolve();
  };
}

/** The pins `after` sets that `before` did not have (new names, or other digests). */
export function approvals(before: LockFile, after: LockFile): Approval[] {
  const out: Approval[] = [];
  for (const [server, entry] of Object.entries(after.servers)) {
    for (const kind of ['tools', 'prompts'] as const) {
      for (const [name, digest] of Object.entries(entry[kind])) {
        const previous = pinOf(before, server, kind, name);
        if (previous !== digest) out.push({ server, kind, name, digest, ...(previous ? { previous } : {}) });
      }
    }
  }
  return out;
}
