import type { Transport } from '@modelcontextprotocol/client';
import { SSEClientTransport } from '@modelcontextprotocol/client';
import { getDefaultEnvironment, StdioClientTransport } from '@modelcontextprotocol/client/stdio';
import type { UpstreamTransportConfig } from '../config.js';
import { HttpClientTransport } from './http-client-transport.js';
import { WebSocketClientTransport } from './ws-client-transport.js';

/**
 * The SDK probes a base `StdioClientTransport` for its era on a second, throw-away process; a subclass
 * is probed in place, so each stdio upstream is spawned exactly once.
 */
class InPlaceStdioClientTransport extends StdioClientTransport {}

/** A client transport for one upstream, plus the child's stderr when it is a spawned process. */
export interface UpstreamTransport {
  transport: Transport;
  stderr?: NodeJS.ReadableStream;
}

export function createUpstreamTransport(config: UpstreamTransportConfig): UpstreamTransport {
  switch (config.kind) {
    case 'stdio': {
      const transport = new InPlaceStdioClientTransport({
        command: config.command,
        args: config.args,
        env: { ...getDefaultEnvironment(), ...config.env },
        cwd: config.cwd,
        stderr: 'pipe',
      });
      return { transport, stderr: (transport.stderr as NodeJS.ReadableStream | null) ?? undefined };
    }
    case 'http':
      return { transport: new HttpClientTransport(new URL(config.url), config.headers) };
    case 'ws':
      return { transport: new WebSocketClientTransport(new URL(config.url), { headers: config.headers }) };
    case 'sse':
      return {
        transport: new SSEClientTransport(new URL(config.url), {
          requestInit: { headers: config.headers },
          fetch: fetchWithScopedAbort,
          eventSourceInit: {
            fetch: (url, init) =>
              fetch(url, {
                ...init,
                headers: { ...(init?.headers as Record<string, string>), ...config.headers },
              }),
          },
        }),
      };
  }
}

/**
 * The SDK's SSE transport hands one long-lived transport AbortSignal to every POST. Node's fetch keeps a listener on it
 * per request until garbage collection, so a busy upstream piles up thousands of listeners (and a
 * MaxListenersExceeded warning per request, plus a scan over them). Here each POST gets its own signal,
 * linked to the transport's only until its response headers arrive; the GET event stream keeps the
 * transport signal so closing the transport still ends it.
 */
export const fetchWithScopedAbort: typeof fetch = async (input, init) => {
  const shared = init?.signal;
  if (!shared || init?.method !== 'POST') return fetch(input, init);
  if (shared.aborted) return fetch(input, init);
  const own = new AbortController();
  const forward = () => own.abort(shared.reason);
  shared.addEventListener('abort', forward, { once: true });
  try {
    return await fetch(input, { ...init, signal: own.signal });
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
