import type { Transport } from '@modelcontextprotocol/server';
import { type StdioServerHandle, StdioServerTransport, serveStdio } from '@modelcontextprotocol/server/stdio';
import { createConformanceServer } from './fixture.js';
import type { FixtureState } from './state.js';

/** Options of {@link serveConformanceStdio}. */
export interface ConformanceStdioOptions {
  /** Serve on this transport instead of the process's stdin/stdout. */
  transport?: Transport;
  /** serverInfo.name; default `conformance-fixture`. */
  name?: string;
  /**
   * Serve only the 2025 era (a plain 2025 server: a 2026-07-28 client falls back to `initialize`), as a
   * server written before the modern era would; default false.
   */
  legacyOnly?: boolean;
  onerror?: (error: Error) => void;
}

/**
 * Serves the conformance fixture on one stdio connection (or `options.transport`); the opening message
 * picks the era: a 2025 `initialize` pins a legacy instance, a 2026-07-28 request a modern one.
 */
export function serveConformanceStdio(
  state: FixtureState,
  options: ConformanceStdioOptions = {},
): StdioServerHandle {
  if (options.legacyOnly) return serveLegacyOnly(state, options);
  return serveStdio(
    (ctx) => {
      const server = createConformanceServer(state, ctx.era, options.name);
      state.attach(server, ctx.era);
      return server;
    },
    {
      ...(options.transport === undefined ? {} : { transport: options.transport }),
      ...(options.onerror === undefined ? {} : { onerror: options.onerror }),
    },
  );
}

function serveLegacyOnly(state: FixtureState, options: ConformanceStdioOptions): StdioServerHandle {
  const server = createConformanceServer(state, 'legacy', options.name);
  state.attach(server, 'legacy');
  if (options.onerror) server.server.onerror = options.onerror;
  const connected = server.connect(options.transport ?? new StdioServerTransport());
  connected.catch((error: unknown) =>
    options.onerror?.(error instanceof Error ? error : new Error(String(error))),
  );
  return {
    close: async () => {
      await connected.catch(() => {});
      await server.close();
    },
  };
}
