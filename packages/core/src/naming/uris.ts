/** Server names: lower-case, start with a letter; they can never contain '+', which keeps `name+uri` reversible. */
export const SERVER_NAME_PATTERN = /^[a-z][a-z0-9-]*$/;

/**
 * Exposes upstream `server`'s URI as `server+uri` (the `git+ssh:` convention: still a valid RFC 3986
 * URI, readable, reversible). Unprefixed servers expose URIs unchanged.
 */
export function exposeUri(server: string, uri: string, prefixed: boolean): string {
  return prefixed ? `${server}+${uri}` : uri;
}

/** Splits `server+uri` at the first '+'. Returns undefined when the URI carries no server prefix. */
export function splitExposedUri(uri: string): { server: string; uri: string } | undefined {
  const plus = uri.indexOf('+');
  if (plus <= 0) return undefined;
  const server = uri.slice(0, plus);
  if (!SERVER_NAME_PATTERN.test(server)) return undefined;
  return { server, uri: uri.slice(plus + 1) };
}
