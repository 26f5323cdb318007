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
 * `<identity>` is the base64url SHA-256 of the identity id: ids may hold any character (`:` included) and
 * need not be readable by whoever reads the store. `<upstream>` is the base64url of the upstream's name.
 * Neither alphabet holds `:`, so no two (identity, upstream) pairs share a key.
 */
export const CREDENTIALS_SCOPE = 'credentials:';
export const CHANGES_CHANNEL = 'changes';
export const KEY_CHECK_KEY = 'keycheck';

/** The store key of `identityId`'s grant at `upstream`. */
export function grantKey(identityId: string, upstream: string): string {
  return `grant:${identityPart(identityId)}:${upstreamPart(upstream)}`;
}

/** The store key of the list of upstreams `identityId` connected. */
export function indexKey(identityId: string): string {
  return `index:${identityPart(identityId)}`;
}

/** The lock held by whoever writes `identityId`'s grant at `upstream` (a refresh, a connect, a disconnect). */
export function grantLockKey(identityId: string, upstream: string): string {
  return `lock:grant:${identityPart(identityId)}:${upstreamPart(upstream)}`;
}

/** The lock held while `identityId`'s index is read, changed and written back. */
export function indexLockKey(identityId: string): string {
  return `lock:index:${identityPart(identityId)}`;
}

function identityPart(identityId: string): string {
  return createHash('sha256').update(identityId, 'utf8').digest('base64url');
}

function upstreamPart(upstream: string): string {
  return Buffer.from(upstream, 'utf8').toString('base64url');
}
