import type { UpstreamTransportConfig } from '../../config.js';

/** A short description for logs that never includes header values (they may hold tokens). */
export function describeTransport(config: UpstreamTransportConfig): string {
  switch (config.kind) {
    case 'stdio':
      return `stdio: ${[config.command, ...config.args].join(' ')}`;
    case 'http':
      return `streamable-http: ${redactUrl(config.url)}`;
    case 'sse':
      return `sse: ${redactUrl(config.url)}`;
    case 'ws':
      return `websocket: ${redactUrl(config.url)}`;
  }
}

/**
 * The URL without what may be a credential: userinfo, and every query value (`?api_key=…` is how many
 * hosted servers take a key), masked as `***`.
 */
export function redactUrl(raw: string): string {
  try {
    const url = new URL(raw);
    if (url.username || url.password) {
      url.username = url.username ? '***' : '';
      url.password = url.password ? '***' : '';
    }
    if (url.search) {
      const masked = new URLSearchParams();
      for (const key of url.searchParams.keys()) masked.append(key, '***');
      url.search = masked.toString().replaceAll('%2A%2A%2A', '***');
    }
    return url.toString();
  } catch {
    return '(an invalid URL)';
  }
}

/** A secret shorter than this, met alone in a text, is left as is: it would mask ordinary words and numbers. */
const MIN_LONE_SECRET = 6;

/**
 * Masks what `redactUrl` masks wherever it appears in a text (an error message that quoted the URL): the
 * URL itself, as configured or as `URL` spells it, becomes its redacted form, and its password and query
 * values met alone (raw or decoded, at least 6 characters) become `***`. Undefined when the URL has nothing
 * to mask.
 */
export function urlSecretMask(raw: string): ((text: string) => string) | undefined {
  let url: URL;
  try {
    url = new URL(raw);
  } catch {
    return undefined;
  }
  if (!url.username && !url.password && !url.search) return undefined;
  const values = url.search
    .slice(1)
    .split('&')
    .filter((pair) => pair.includes('='))
    .map((pair) => pair.slice(pair.indexOf('=') + 1));
  const lone = [url.password, ...values]
    .flatMap((value) => [value, safeDecode(value)])
    .filter((value) => value.length >= MIN_LONE_SECRET);
  const whole = [...new Set([raw, url.href])].sort((a, b) => b.length - a.length);
  const alone = [...new Set(lone)].sort((a, b) => b.length - a.length);
  const redacted = redactUrl(raw);
  return (text) => {
    let masked = text;
    for (const form of whole) masked = masked.replaceAll(form, redacted);
    for (const secret of alone) masked = masked.replaceAll(secret, '***');
    return masked;
  };
}

/** An HTTP credential quoted in a text: the scheme stays, what follows it is the secret. */
const AUTHORIZATION_VALUE = /\b(Bearer|Basic)\s+[\w.~+/=-]{6,}/gi;

/**
 * Every secret of an upstream's config that a text may quote alone (at least 6 characters, longest first):
 * a spawned server's `env` values; a remote one's URL password and query values (raw and decoded), its
 * userinfo as a Basic authorization, its header values (whole and after their scheme), and its OAuth client
 * secret (`auth.clientSecret`). The one list every masking path uses: transport errors, a spawned server's
 * stderr, `switchyard check`.
 */
export function upstreamSecrets(config: UpstreamTransportConfig): string[] {
  const secrets: string[] = [];
  if (config.kind === 'stdio') secrets.push(...Object.values(config.env));
  else {
    for (const value of Object.values(config.headers)) {
      const scheme = /^\s*\S+\s+(\S.*)$/.exec(value);
      secrets.push(value.trim(), ...(scheme ? [scheme[1]!.trim()] : []));
    }
    if (config.auth?.clientSecret) secrets.push(config.auth.clientSecret);
    secrets.push(...urlSecrets(config.url));
  }
  return [...new Set(secrets.filter((secret) => secret.length >= MIN_LONE_SECRET))].sort(
    (a, b) => b.length - a.length,
  );
}

/** A URL's password and query values (raw and decoded), and its userinfo as a Basic authorization. */
function urlSecrets(raw: string): string[] {
  let url: URL;
  try {
    url = new URL(raw);
  } catch {
    return [];
  }
  const values = url.search
    .slice(1)
    .split('&')
    .filter((pair) => pair.includes('='))
    .map((pair) => pair.slice(pair.indexOf('=') + 1));
  const secrets = [url.password, ...values].flatMap((value) => [value, safeDecode(value)]);
  if (url.username || url.password) {
    const userinfo = `${safeDecode(url.username)}:${safeDecode(url.password)}`;
    secrets.push(Buffer.from(userinfo).toString('base64'));
  }
  return secrets;
}

/**
 * Masks every secret of an upstream's config in a text that reached the gateway from it or about it (an
 * error page echoing the request, an issuer quoting the posted client secret, a server printing its env),
 * before the text reaches the log, `/admin/status`, `/readyz` or a caller: the URL, as configured or as
 * `URL` spells it, becomes its redacted form; each of `upstreamSecrets`, and any `Bearer …`/`Basic …`
 * value at all (the gateway's own OAuth tokens change as they are refreshed), becomes `***`; control
 * characters the upstream chose (`escapeControls`) are shown escaped.
 */
export function upstreamSecretMask(config: UpstreamTransportConfig): (text: string) => string {
  const ofUrl = config.kind === 'stdio' ? undefined : urlSecretMask(config.url);
  const alone = upstreamSecrets(config);
  return (text) => {
    let masked = ofUrl ? ofUrl(text) : text;
    for (const secret of alone) masked = masked.replaceAll(secret, '***');
    return escapeControls(masked.replace(AUTHORIZATION_VALUE, '$1 ***'));
  };
}

/** C0 controls but tab and newline, DEL and C1 controls (`\x1b[31m`, a bell, a carriage return). */
// biome-ignore lint/suspicious/noControlCharactersInRegex: escaping control characters is the point
const CONTROL = /[\u0000-\u0008\u000b-\u001f\u007f-\u009f]/g;

/**
 * `text` with the control characters an upstream put in it shown as `\u001b` and the like: a terminal
 * reading the log, the `check` table or `/readyz` runs none of them (colours, cursor moves, a line
 * rewritten by `\r`). Newlines and tabs stay (stack traces; a message is one line where it is logged).
 */
export function escapeControls(text: string): string {
  return text.replace(CONTROL, (c) => `\\u${c.charCodeAt(0).toString(16).padStart(4, '0')}`);
}

/**
 * `upstreamSecretMask` of a remote upstream given by its URL and headers (no `auth`).
 */
export function transportSecretMask(
  raw: string,
  headers: Record<string, string> = {},
): (text: string) => string {
  return upstreamSecretMask({ kind: 'http', url: raw, headers });
}

/** `upstreamSecretMask` of a spawned server given by its configured `env`. */
export function stdioSecretMask(env: Record<string, string>): (text: string) => string {
  return upstreamSecretMask({ kind: 'stdio', command: '', args: [], env });
}

function safeDecode(text: string): string {
  try {
    return decodeURIComponent(text.replaceAll('+', ' '));
  } catch {
    return text;
  }
}
