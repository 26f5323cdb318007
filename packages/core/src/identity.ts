import { createHash, timingSafeEqual } from 'node:crypto';
import type { Identity } from './context.js';

/** A configured client: its bearer token and the groups it belongs to. */
export interface ClientConfig {
  token: string;
  groups?: readonly string[];
}

export interface ClientsConfig {
  /** Named clients (`clients` in the config); when set, HTTP/WS requests need a valid token unless `anonymous` is set. */
  clients?: Readonly<Record<string, ClientConfig>>;
  /** Identity of stdio sessions, and of tokenless HTTP/WS requests when set. */
  anonymous?: string;
}

/** The identity stdio sessions (and tokenless requests, where allowed) get when `anonymous` is not configured. */
export const DEFAULT_ANONYMOUS_ID = 'anonymous';

export type Authentication =
  | { ok: true; identity: Identity }
  | { ok: false; status: 401; message: string; challenge: string };

/**
 * Resolves callers to identities. Tokens are compared as SHA-256 digests in constant time and are
 * never kept in an identity, logged or echoed in an error.
 */
export class ClientDirectory {
  readonly #byDigest = new Map<string, Identity>();
  readonly #anonymous: Identity;
  readonly #requireToken: boolean;

  constructor(config: ClientsConfig = {}) {
    const clients = Object.entries(config.clients ?? {});
    for (const [id, client] of clients) {
      if (typeof client.token !== 'string' || client.token.length === 0) {
        throw new Error(`client '${id}' has an empty token: set its token (or the variable it reads).`);
      }
      const key = digest(client.token).toString('hex');
      if (this.#byDigest.has(key)) {
        throw new Error(
          `client '${id}' has the same token as client '${this.#byDigest.get(key)?.id}': give each client its own.`,
        );
      }
      this.#byDigest.set(
        key,
        Object.freeze({ id, groups: Object.freeze([...(client.groups ?? [])]), anonymous: false }),
      );
    }
    const anonymousId = config.anonymous ?? DEFAULT_ANONYMOUS_ID;
    // `anonymous` may name a configured client: tokenless callers then act as that client, groups included.
    const named = [...this.#byDigest.values()].find((i) => i.id === anonymousId);
    this.#anonymous = Object.freeze({
      id: anonymousId,
      groups: named?.groups ?? Object.freeze([]),
      anonymous: true,
    });
    this.#requireToken = clients.length > 0 && config.anonymous === undefined;
  }

  /** The identity of stdio sessions. */
  get anonymous(): Identity {
    return this.#anonymous;
  }

  /** Whether named clients are configured (bearer tokens are checked). */
  get enabled(): boolean {
    return this.#byDigest.size > 0;
  }

  /**
   * Resolves an HTTP `Authorization` header. Without clients configured every caller is anonymous.
   * With clients: a valid `Bearer` token names its client; a missing header is anonymous only when
   * `anonymous` is set; a wrong or malformed token is always refused (it is a mistake, not anonymity).
   */
  authenticate(authorization: string | undefined): Authentication {
    if (!this.enabled) return { ok: true, identity: this.#anonymous };
    if (authorization === undefined || authorization.trim() === '') {
      return this.#requireToken
        ? refuse('this gateway needs a client token: send Authorization: Bearer <token>')
        : { ok: true, identity: this.#anonymous };
    }
    const match = /^Bearer[ \t]+(\S+)\s*$/i.exec(authorization);
    if (!match?.[1]) return refuse('malformed Authorization header: use Authorization: Bearer <token>');
    const wanted = digest(match[1]);
    for (const [key, identity] of this.#byDigest) {
      if (timingSafeEqual(Buffer.from(key, 'hex'), wanted)) return { ok: true, identity };
    }
    return refuse('unknown client token: check the token configured for this client');
  }
}

function digest(token: string): Buffer {
  return createHash('sha256').update(token, 'utf8').digest();
}

function refuse(message: string): Authentication {
  return {
    ok: false,
    status: 401,
    message: `Unauthorized: ${message}`,
    challenge: 'Bearer realm="switchyard"',
  };
}
