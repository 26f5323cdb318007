import { createHash } from 'node:crypto';

/**
 * Where credentials live in the store (DESIGN §12, §14), all under the `credentials:` scope (after the
 * store's own prefix, e.g. `switchyard:credentials:`):
 *
 * - `grant:<identity>:<upstream>`: one person's grant at one upstream, sealed (KeyRing);
 * - `index:<identity>`: the upstreams that person connected, a sealed JSON list (the store cannot scan);
 * - `keycheck`: a value sealed under the current key, telling a replica whether its `credentials.key` is the
 *   one the others use (see TokenVault);
 * - `lock:grant:<identity>:<upstream>`, `lock:index:<identity>`: short write locks (StoreLock);
 * - channel `changes`: connects and disconnects, heard by every replica (ChangeFeed).
 *
 * `<identity>` is `v2.<base64url SHA-256 of the owner>`, the owner being `credentialOwner(identity)`: the
 * identity's kind and id (`oauth:alice`, `client:alice`, `local:anonymous`), so identities of different
 * kinds with the same id never share a grant (an OAuth `sub` "alice" never reaches the static client
 * `alice`'s). Owners may hold any character (`:` included) and need not be readable by whoever reads the
 * store. `<upstream>` is the base64url of the upstream's name. Neither alphabet holds `:`, so no two
 * (owner, upstream) pairs share a key; nor `.`, so no key is one of the first layout's (`<identity>` the
 * bare hash of the id, shared by every kind): what was stored under that one is never read (its owners
 * connect again; it expires, an index stays as an unread sealed value).
 */
export const CREDENTIALS_SCOPE = 'credentials:';
export const CHANGES_CHANNEL = 'changes';
export const KEY_CHECK_KEY = 'keycheck';

/** The store key of `owner`'s grant at `upstream`. */
export function grantKey(owner: string, upstream: string): string {
  return `grant:${identityPart(owner)}:${upstreamPart(upstream)}`;
}

/** The store key of the list of upstreams `owner` connected. */
export function indexKey(owner: string): string {
  return `index:${identityPart(owner)}`;
}

/** The lock held by whoever writes `owner`'s grant at `upstream` (a refresh, a connect, a disconnect). */
export function grantLockKey(owner: string, upstream: string): string {
  return `lock:grant:${identityPart(owner)}:${upstreamPart(upstream)}`;
}

/** The lock held while `owner`'s index is read, changed and written back. */
export function indexLockKey(owner: string): string {
  return `lock:index:${identityPart(owner)}`;
}

function identityPart(owner: string): string {
  return `v2.${createHash('sha256').update(owner, 'utf8').digest('base64url')}`;
}

function upstreamPart(upstream: string): string {
  return Buffer.from(upstream, 'utf8').toString('base64url');
}
