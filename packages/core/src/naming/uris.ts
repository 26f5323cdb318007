import { UriTemplate } from '@modelcontextprotocol/client';

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

/**
 * Expands an RFC 6570 URI template the way the SDK does (a variable not given expands to nothing);
 * undefined when `template` is not a template the SDK accepts or a value is too long for it.
 *
 * @example
 * expandUriTemplate('docs+file:///{org}/{repo}', { org: 'acme', repo: 'web' }); // 'docs+file:///acme/web'
 */
export function expandUriTemplate(
  template: string,
  variables: Readonly<Record<string, string>>,
): string | undefined {
  try {
    // The SDK reads each variable by name: with no prototype, `{constructor}` not given expands to nothing.
    return new UriTemplate(template).expand(Object.assign(Object.create(null), variables));
  } catch {
    return undefined;
  }
}
