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
  return (req: IncomingMessage): string | undefined => {
    const host = validateHostHeader(req.headers.host, hosts);
    if (!host.ok) return host.message;
    if (req.headers.origin === undefined) return undefined;
    const origin = validateOriginHeader(req.headers.origin, origins);
    return origin.ok ? undefined : origin.message;
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
