import type { IncomingMessage } from 'node:http';

const LOOPBACK = new Set(['localhost', '127.0.0.1', '[::1]', '::1']);

/**
 * DNS-rebinding protection: the Host header must name this listener (a loopback name, the bound host,
 * or a configured allowed host), and a browser Origin, when present, must be loopback or allowed.
 */
export function createRequestGuard(options: {
  host: string;
  allowedHosts: string[];
  allowedOrigins: string[];
}) {
  const hosts = new Set([
    ...LOOPBACK,
    options.host.toLowerCase(),
    ...options.allowedHosts.map((h) => h.toLowerCase()),
  ]);
  const origins = new Set(options.allowedOrigins.map((o) => o.toLowerCase().replace(/\/$/, '')));
  return (req: IncomingMessage): string | undefined => {
    const host = req.headers.host;
    if (!host) return 'Missing Host header';
    const hostname = hostnameOf(host);
    if (hostname === undefined || !hosts.has(hostname)) return `Host '${host}' is not allowed`;
    const origin = req.headers.origin;
    if (origin === undefined || origin === 'null')
      return origin === 'null' ? "Origin 'null' is not allowed" : undefined;
    const normalized = origin.toLowerCase().replace(/\/$/, '');
    if (origins.has(normalized)) return undefined;
    let parsed: URL;
    try {
      parsed = new URL(normalized);
    } catch {
      return `Origin '${origin}' is not allowed`;
    }
    return LOOPBACK.has(parsed.hostname) || origins.has(parsed.hostname)
      ? undefined
      : `Origin '${origin}' is not allowed`;
  };
}

function hostnameOf(hostHeader: string): string | undefined {
  try {
    return new URL(`http://${hostHeader}`).hostname.toLowerCase();
  } catch {
    return undefined;
  }
}
