/** Server names: lower-case, start with a letter; they can never contain '+', which keeps `name+uri` reversible. */
export const SERVER_NAME_PATTERN = /^[a-z][a-z0-9-]*$/;

/** The `skill://` scheme of the Skills extension (SEP-2640); `'skill://'.length` characters long. */
const SKILL_SCHEME = /^skill:\/\//i;
const SKILL_SCHEME_LENGTH = 8;

/**
 * Exposes upstream `server`'s URI as `server+uri` (the `git+ssh:` convention: still a valid RFC 3986
 * URI, readable, reversible). A `skill://` URI is namespaced in its authority instead,
 * `skill://<server>/<skill-path>/<file>`: the server becomes the first segment of the skill path, so the
 * URI keeps its scheme, a reg-name authority, and its last segments (the skill name, relative
 * references), as SEP-2640 requires. Unprefixed servers expose URIs unchanged.
 */
export function exposeUri(server: string, uri: string, prefixed: boolean): string {
  if (!prefixed) return uri;
  if (SKILL_SCHEME.test(uri)) {
    return `${uri.slice(0, SKILL_SCHEME_LENGTH)}${server}/${uri.slice(SKILL_SCHEME_LENGTH)}`;
  }
  return `${server}+${uri}`;
}

/**
 * Reverses exposeUri: `server+uri` split at the first '+', `skill://server/rest` at the authority.
 * Returns undefined when the URI carries no server prefix, and for `server+skill://…`, which exposeUri
 * never writes (one spelling per resource, so URI rules see every resource under one name).
 */
export function splitExposedUri(uri: string): { server: string; uri: string } | undefined {
  if (SKILL_SCHEME.test(uri)) {
    const slash = uri.indexOf('/', SKILL_SCHEME_LENGTH);
    if (slash < 0) return undefined;
    const server = uri.slice(SKILL_SCHEME_LENGTH, slash);
    if (!SERVER_NAME_PATTERN.test(server)) return undefined;
    return { server, uri: uri.slice(0, SKILL_SCHEME_LENGTH) + uri.slice(slash + 1) };
  }
  const plus = uri.indexOf('+');
  if (plus <= 0) return undefined;
  const server = uri.slice(0, plus);
  const rest = uri.slice(plus + 1);
  if (!SERVER_NAME_PATTERN.test(server) || SKILL_SCHEME.test(rest)) return undefined;
  return { server, uri: rest };
}
