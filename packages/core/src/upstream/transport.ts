import type { Transport } from '@modelcontextprotocol/client';
import { SSEClientTransport, StreamableHTTPClientTransport } from '@modelcontextprotocol/client';
import { getDefaultEnvironment, StdioClientTransport } from '@modelcontextprotocol/client/stdio';
import type { UpstreamTransportConfig } from '../config.js';

/** A client transport for one upstream, plus the child's stderr when it is a spawned process. */
export interface UpstreamTransport {
  transport: Transport;
  stderr?: NodeJS.ReadableStream;
}

export function createUpstreamTransport(config: UpstreamTransportConfig): UpstreamTransport {
  switch (config.kind) {
    case 'stdio': {
      const transport = new StdioClientTransport({
        command: config.command,
        args: config.args,
        env: { ...getDefaultEnvironment(), ...config.env },
        cwd: config.cwd,
        stderr: 'pipe',
      });
      return { transport, stderr: (transport.stderr as NodeJS.ReadableStream | null) ?? undefined };
    }
    case 'http':
      return {
        transport: new StreamableHTTPClientTransport(new URL(config.url), {
          requestInit: { headers: config.headers },
        }),
      };
    case 'sse':
      return {
        transport: new SSEClientTransport(new URL(config.url), {
          requestInit: { headers: config.headers },
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

/** A short description for logs that never includes header values (they may hold tokens). */
export function describeTransport(config: UpstreamTransportConfig): string {
  switch (config.kind) {
    case 'stdio':
      return `stdio: ${[config.command, ...config.args].join(' ')}`;
    case 'http':
      return `streamable-http: ${redactUrl(config.url)}`;
    case 'sse':
      return `sse: ${redactUrl(config.url)}`;
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
