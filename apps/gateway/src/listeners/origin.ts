import type { IncomingMessage } from 'node:http';
import {
  localhostAllowedHostnames,
  localhostAllowedOrigins,
  validateHostHeader,
  validateOriginHeader,
} from '@modelcontextprotocol/server';

/**
 * DNS-rebinding protection with the SDK's validators: the Host header must name this listener (a
 * loopback name, the bound host, or a configured allowed host), and a browser's Origin, when present,
 * must be loopback or allowed (`allowedOrigins` may give origins or bare hostnames; matching is by
 * hostname, port-agnostic, as the SDK does). Returns why a request is refused, or undefined.
 */
export function createRequestGuard(options: {
  host: string;
  allowedHosts: string[];
  allowedOrigins: string[];
}) {
  const hosts = [...localhostAllowedHostnames(), options.host, ...options.allowedHosts].map(hostname);
  const origins = [...localhostAllowedOrigins(), ...options.allowedOrigins.map(originHostname)];
  // A client sends the same Host (and Origin) on every request of its connection: the last verdict of
  // each is kept, so the validators' URL parse runs when the header changes, not per request.
  const host = lastVerdict((value: string | undefined) => verdict(validateHostHeader(value, hosts)));
  const origin = lastVerdict((value: string) => verdict(validateOriginHeader(value, origins)));
  return (req: IncomingMessage): string | undefined => {
    const refused = host(req.headers.host);
    if (refused !== undefined || req.headers.origin === undefined) return refused;
    return origin(req.headers.origin);
  };
}

function verdict(result: { ok: true } | { ok: false; message: string }): string | undefined {
  return result.ok ? undefined : result.message;
}

/** `judge`, remembering its answer for the last value it was asked about. */
function lastVerdict<T>(judge: (value: T) => string | undefined): (value: T) => string | undefined {
  let last: { value: T; answer: string | undefined } | undefined;
  return (value) => {
    if (last === undefined || last.value !== value) last = { value, answer: judge(value) };
    return last.answer;
  };
}

/** A Host header's hostname as the SDK compares it: lower case, IPv6 in brackets. */
function hostname(host: string): string {
  const lower = host.toLowerCase();
  return lower.includes(':') && !lower.startsWith('[') ? `[${lower}]` : lower;
}

/** `https://app.example.com` → `app.example.com`; a bare hostname stays as it is. */
function originHostname(origin: string): string {
  try {
    return new URL(origin).hostname.toLowerCase();
  } catch {
    return origin.toLowerCase();
  }
}
