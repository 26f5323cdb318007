import { getDefaultEnvironment } from '@modelcontextprotocol/client/stdio';
import type { UpstreamTransportConfig } from '../../config.js';
import type { UpstreamCredentials } from '../../upstream/auth/upstream-auth.js';
import type { UpstreamClientTransport } from './faults.js';
import { HttpClientTransport } from './http-client-transport.js';
import { SseClientTransport } from './sse-client-transport.js';
import { authorizedFetch, fetchWithScopedAbort } from './sse-fetch.js';
import { StdioClientTransport } from './stdio-client-transport.js';
import { WebSocketClientTransport } from './ws-client-transport.js';

/** A client transport for one upstream, plus the child's stderr when it is a spawned process. */
export interface UpstreamTransport {
  transport: UpstreamClientTransport;
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
