import type { Transport } from '@modelcontextprotocol/server';
import { type StdioServerHandle, serveStdio } from '@modelcontextprotocol/server/stdio';
import { createConformanceServer } from './fixture.js';
import type { FixtureState } from './state.js';

/** Options of {@link serveConformanceStdio}. */
export interface ConformanceStdioOptions {
  /** Serve on this transport instead of the process's stdin/stdout. */
  transport?: Transport;
  /** serverInfo.name; default `conformance-fixture`. */
  name?: string;
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
