import { createHash } from 'node:crypto';

/**
 * What every exposed tool or prompt name matches: the strictest pattern real MCP clients enforce
 * (several reject dots, slashes or names past 64 characters).
 */
export const EXPOSED_NAME_PATTERN = /^[A-Za-z0-9_-]{1,64}$/;

/** Separates the server from the upstream's own name: server names cannot contain `_`, so the split is unambiguous. */
export const NAME_SEPARATOR = '__';

const MAX_LENGTH = 64;
const HASH_LENGTH = 8;
const OUTSIDE = /[^A-Za-z0-9_-]/gu;

/**
 * The name clients see for upstream `server`'s tool or prompt `name` (DESIGN §4b): `<server>__<name>`
 * (or `name` alone for `"prefix": false`), every character outside `[A-Za-z0-9_-]` replaced by `_`,
 * and a name that would exceed 64 characters cut and given a stable 8-character hash suffix (of the
 * server and the original name), so it stays unique and never changes between runs.
 *
 * @example
 * exposeName('gh', 'search.repos', true); // 'gh__search_repos'
 */
export function exposeName(server: string, name: string, prefixed: boolean): string {
  const full = prefixed ? `${server}${NAME_SEPARATOR}${name}` : name;
  const mapped = full.replace(OUTSIDE, '_');
  if (mapped.length === 0) return '_';
  if (mapped.length <= MAX_LENGTH) return mapped;
  const hash = createHash('sha256').update(`${server}\u0000${name}`).digest('hex').slice(0, HASH_LENGTH);
  return `${mapped.slice(0, MAX_LENGTH - HASH_LENGTH - 1)}_${hash}`;
}

/**
 * The server and upstream name an exposed name spells out when no mapping was needed
 * (`docs__search` → docs, search); undefined when it carries no `<server>__` prefix.
 */
export function splitExposedName(exposed: string): { server: string; name: string } | undefined {
  const at = exposed.indexOf(NAME_SEPARATOR);
  if (at <= 0) return undefined;
  return { server: exposed.slice(0, at), name: exposed.slice(at + NAME_SEPARATOR.length) };
}
