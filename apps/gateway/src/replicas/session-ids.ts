import { randomBytes } from 'node:crypto';
import { SealedBox, SealedTooLarge } from '@switchyard/core/listener';

/** What the client's `initialize` said: replayed when another replica takes the session over. */
export interface InitializeParams {
  protocolVersion: string;
  capabilities: Record<string, unknown>;
  clientInfo: { name: string; version: string; title?: string };
}

/** What a session id stands for across replicas. */
export interface SessionTicket {
  /** The session's key in the store (random, 128 bits). */
  sid: string;
  /** The replica that opened it (where to forward when the store cannot say). */
  owner: string;
  /** The identity that opened it: nobody else may use it. */
  identity: string;
  init: InitializeParams;
  /** The virtual server it was opened on (DESIGN §13); undefined for the root endpoint. */
  endpoint?: string;
}

interface Wire {
  v: 1;
  s: string;
  o: string;
  i: string;
  p: InitializeParams;
  e?: string;
}

/**
 * Legacy session ids when replicas share a store (DESIGN §12): each id seals (AES-256-GCM under a key
 * from `cursorSecret`) the session's key, the replica that opened it, its identity and the client's
 * `initialize`, so any replica sharing the secret can route it, or resume it without asking anyone. An
 * id altered, forged, or sealed under another key opens to nothing (404). The identity inside is
 * encrypted: the id says nothing to whoever sees it.
 */
export class SessionIds {
  readonly #box: SealedBox;

  constructor(secret: string | undefined) {
    this.#box = new SealedBox(secret, 'switchyard/session-id/v1', 'sys1.');
  }

  mint(ticket: Omit<SessionTicket, 'sid'>): { id: string; sid: string } {
    const sid = randomBytes(16).toString('base64url');
    const wire: Wire = { v: 1, s: sid, o: ticket.owner, i: ticket.identity, p: ticket.init };
    if (ticket.endpoint !== undefined) wire.e = ticket.endpoint;
    try {
      return { id: this.#box.seal(wire), sid };
    } catch (error) {
      if (!(error instanceof SealedTooLarge)) throw error;
      // An `initialize` too large to carry in a session id (a header): the id keeps its version and the
      // client's name only, so a takeover replays it without the client's capabilities.
      const { protocolVersion, clientInfo } = ticket.init;
      const init = {
        protocolVersion,
        capabilities: {},
        clientInfo: { name: clientInfo.name.slice(0, 256), version: '' },
      };
      return { id: this.#box.seal({ ...wire, p: init }), sid };
    }
  }

  open(id: string): SessionTicket | undefined {
    const wire = this.#box.open(id) as Wire | undefined;
    if (wire?.v !== 1 || typeof wire.s !== 'string' || typeof wire.i !== 'string') return undefined;
    const endpoint = typeof wire.e === 'string' ? { endpoint: wire.e } : {};
    return { sid: wire.s, owner: wire.o, identity: wire.i, init: wire.p, ...endpoint };
  }
}

/** The parts of an `initialize` request a takeover replays (icons and the like are left out). */
export function initializeParams(params: unknown): InitializeParams | undefined {
  if (typeof params !== 'object' || params === null) return undefined;
  const p = params as Record<string, unknown>;
  const info = p.clientInfo as Record<string, unknown> | undefined;
  if (typeof p.protocolVersion !== 'string' || typeof info?.name !== 'string') return undefined;
  return {
    protocolVersion: p.protocolVersion,
    capabilities:
      typeof p.capabilities === 'object' && p.capabilities !== null
        ? (p.capabilities as Record<string, unknown>)
        : {},
    clientInfo: {
      name: info.name,
      version: typeof info.version === 'string' ? info.version : '',
      ...(typeof info.title === 'string' ? { title: info.title } : {}),
    },
  };
}
