import type { Transport } from '@modelcontextprotocol/client';
import { getDefaultEnvironment } from '@modelcontextprotocol/client/stdio';
import type { UpstreamTransportConfig } from '../../config.js';
import type { UpstreamCredentials } from '../../upstream/auth/upstream-auth.js';
import { HttpClientTransport } from './http-client-transport.js';
import { SseClientTransport } from './sse-client-transport.js';
import { StdioClientTransport } from './stdio-client-transport.js';
import { WebSocketClientTransport } from './ws-client-transport.js';

/** A client transport for one upstream, plus the child's stderr when it is a spawned process. */
export interface UpstreamTransport {
  transport: Transport;
  stderr?: NodeJS.ReadableStream;
}

/**
 * The transport for one connection attempt. `credentials` (from the upstream's `auth`) authorize every
 * HTTP request it makes: per message on Streamable HTTP, the gateway's own on SSE and on the WebSocket
 * upgrade.
 */
export function createUpstreamTransport(
  config: UpstreamTransportConfig,
  credentials?: UpstreamCredentials,
): UpstreamTransport {
  switch (config.kind) {
    case 'stdio': {
      // Our own stdio transport (not the SDK's) is probed in place: each stdio upstream is spawned once.
      const transport = new StdioClientTransport({
        command: config.command,
        args: config.args,
        env: { ...getDefaultEnvironment(), ...config.env },
        cwd: config.cwd,
      });
      return { transport, stderr: transport.stderr };
    }
    case 'http':
      return { transport: new HttpClientTransport(new URL(config.url), config.headers, credentials) };
    case 'ws': {
      const options = { headers: config.headers, credentials };
      return { transport: new WebSocketClientTransport(new URL(config.url), options) };
    }
    case 'sse': {
      const authorized = credentials ? authorizedFetch(credentials) : fetch;
      return {
        transport: new SseClientTransport(new URL(config.url), {
          requestInit: { headers: config.headers },
          fetch: (input, init) => fetchWithScopedAbort(input, init, authorized),
          eventSourceInit: {
            fetch: (url, init) =>
              authorized(url, {
                ...init,
                headers: { ...(init?.headers as Record<string, string>), ...config.headers },
              }),
          },
        }),
      };
    }
  }
}

/** `fetch` with the gateway's own `Authorization` for the upstream; a 401 is retried once with a fresh token. */
function authorizedFetch(credentials: UpstreamCredentials): typeof fetch {
  return (input, init) =>
    credentials.authorize(undefined, {
      send: (authorization) => {
        const headers = new Headers(init?.headers);
        headers.set('authorization', authorization);
        return fetch(input, { ...init, headers });
      },
      status: (res) => res.status,
      discard: (res) => void res.body?.cancel().catch(() => {}),
    });
}

/**
 * The SDK's SSE transport hands one long-lived transport AbortSignal to every POST. Node's fetch keeps a listener on it
 * per request until garbage collection, so a busy upstream piles up thousands of listeners (and a
 * MaxListenersExceeded warning per request, plus a scan over them). Here each POST gets its own signal,
 * linked to the transport's only until its response headers arrive; the GET event stream keeps the
 * transport signal so closing the transport still ends it.
 */
export const fetchWithScopedAbort = async (
  input: Parameters<typeof fetch>[0],
  init?: RequestInit,
  send: typeof fetch = fetch,
): Promise<Response> => {
  const shared = init?.signal;
  if (!shared || init?.method !== 'POST') return send(input, init);
  if (shared.aborted) return send(input, init);
  const own = new AbortController();
  const forward = () => own.abort(shared.reason);
  shared.addEventListener('abort', forward, { once: true });
  try {
    return await send(input, { ...init, signal: own.signal });
  } finally {
    shared.removeEventListener('abort', forward);
  }
};

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

function redactUrl(raw: string): string {
  try {
    const url = new URL(raw);
    if (url.username || url.password) {
      url.username = url.username ? '***' : '';
      url.password = url.password ? '***' : '';
    }
    return url.toString();
  } catch {
    return raw;
  }
}
