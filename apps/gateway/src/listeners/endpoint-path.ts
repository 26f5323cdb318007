import { VIRTUAL_SERVER_NAME } from '../config/schema.js';

/**
 * The endpoint a request path addresses: undefined for the root (`path`), a virtual server's name for
 * `path/<name>` when `exists(name)`, null for anything else (404).
 */
export function endpointAt(
  pathname: string,
  path: string,
  exists: (name: string) => boolean,
): string | undefined | null {
  if (pathname === path) return undefined;
  const base = path.endsWith('/') ? path : `${path}/`;
  if (!pathname.startsWith(base)) return null;
  const name = pathname.slice(base.length);
  return VIRTUAL_SERVER_NAME.test(name) && exists(name) ? name : null;
}
