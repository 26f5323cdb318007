import type { Identity } from '../../context.js';

/**
 * Each person's own token per upstream (`mcpServers.*.auth.user`, DESIGN §14): what the core asks when
 * it calls such an upstream on someone's behalf. The gateway app implements it (a vault, the OAuth
 * authorization code flow, refresh); the core never sees a refresh token, a code or a verifier.
 */
export interface PersonalCredentials {
  /**
   * The current access token of `identity` for `upstream`, refreshed first when it expires within a
   * minute; undefined when the identity has none (never connected, disconnected, or dropped after a
   * refusal that a refresh did not cure).
   */
  token(identity: Identity, upstream: string): Promise<string | undefined>;
  /**
   * `upstream` answered HTTP 401 to `token`: refreshes once (one refresh however many callers race) and
   * resolves to the new token, or drops the credential and resolves undefined (the person is asked again).
   */
  refused(identity: Identity, upstream: string, token: string): Promise<string | undefined>;
  /**
   * Where the person goes to connect `upstream`: a URL that works in a plain browser without a gateway
   * token, single use, short-lived, bound to `identity`.
   */
  connectUrl(identity: Identity, upstream: string): Promise<string>;
  /**
   * Hears (owner, upstream, connected) whenever a credential is stored or dropped; returns how to stop. The
   * owner is `credentialOwner(identity)` (kind and id), never the bare id.
   */
  onChange(listener: (owner: string, upstream: string, connected: boolean) => void): () => void;
}
