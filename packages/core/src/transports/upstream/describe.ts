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
 * Masks every credential of an upstream's connection in a text its transport produced, which may quote
 * what the upstream echoed (an error page showing the request's headers): the URL's secrets
 * (`urlSecretMask`), the configured header values, the URL's userinfo as its Basic authorization, and
 * any `Bearer …`/`Basic …` value at all (the gateway's own OAuth tokens change as they are refreshed).
 */
export function transportSecretMask(
  raw: string,
  headers: Record<string, string> = {},
): (text: string) => string {
  const ofUrl = urlSecretMask(raw);
  const secrets: string[] = [];
  for (const value of Object.values(headers)) {
    const scheme = /^\s*\S+\s+(\S.*)$/.exec(value);
    secrets.push(value.trim(), ...(scheme ? [scheme[1]!.trim()] : []));
  }
  try {
    const url = new URL(raw);
    if (url.username || url.password) {
      const userinfo = `${safeDecode(url.username)}:${safeDecode(url.password)}`;
      secrets.push(Buffer.from(userinfo).toString('base64'));
    }
  } catch {
    // no URL, no userinfo
  }
  const alone = [...new Set(secrets.filter((secret) => secret.length >= MIN_LONE_SECRET))].sort(
    (a, b) => b.length - a.length,
  );
  return (text) => {
    let masked = ofUrl ? ofUrl(text) : text;
    for (const secret of alone) masked = masked.replaceAll(secret, '***');
    return masked.replace(AUTHORIZATION_VALUE, '$1 ***');
  };
}

/**
 * Masks a spawned server's configured `env` values (at least 6 characters: its tokens) and any
 * `Bearer …`/`Basic …` value in a text it printed, before the text reaches the log or `/admin/status`.
 */
export function stdioSecretMask(env: Record<string, string>): (text: string) => string {
  const alone = [...new Set(Object.values(env).filter((value) => value.length >= MIN_LONE_SECRET))].sort(
    (a, b) => b.length - a.length,
  );
  return (text) => {
    let masked = text;
    for (const secret of alone) masked = masked.replaceAll(secret, '***');
    return masked.replace(AUTHORIZATION_VALUE, '$1 ***');
  };
}

function safeDecode(text: string): string {
  try {
    return decodeURIComponent(text.replaceAll('+', ' '));
  } catch {
    return text;
  }
}
