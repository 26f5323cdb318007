import type { Identity } from './context.js';
import { subjectTokenOf } from './identity-credential.js';

/**
 * Where an identity came from: an OAuth access token (`oauth`), a static client token (`client`), or no
 * token at all (`local`: stdio, the loopback status page, a tokenless request where `anonymous` allows
 * it). Plugins see only the id; what a person owns by themselves (their upstream credentials, DESIGN §14)
 * is kept per kind as well, since ids of different kinds may be alike (an OAuth `sub` "alice" is not the
 * static client `alice`, nor is a `sub` "anonymous" the local user).
 */
export type IdentityKind = 'oauth' | 'client' | 'local';

/** `identity`'s kind: OAuth identities are those that carry their access token (attachSubjectToken). */
export function identityKind(identity: Identity): IdentityKind {
  if (identity.anonymous) return 'local';
  return subjectTokenOf(identity) === undefined ? 'client' : 'oauth';
}

/**
 * Who owns a personal credential: `<kind>:<id>` (the kind holds no `:`, so no two identities of
 * different kinds, or ids, share one). What the credentials code keys by, never the bare id.
 */
export function credentialOwner(identity: Identity): string {
  return `${identityKind(identity)}:${identity.id}`;
}
