import { startHttpListener } from '../http.js';
import { MemoryEventStore } from './event-store.js';
import { createConformanceServer } from './fixture.js';
import type { FixtureState } from './state.js';

/** Options of {@link startConformanceHttp}. */
export interface ConformanceHttpOptions {
  /** Default 127.0.0.1 (only loopback Host/Origin headers are accepted either way). */
  host?: string;
  /** Default 0: an ephemeral port. */
  port?: number;
  /** Path of the MCP endpoint; default `/mcp`. */
  path?: string;
  /** serverInfo.name; default `conformance-fixture`. */
  name?: string;
  /** SSE `retry` hint (ms) sent on resumable 2025 streams; default 1000. */
  retryIntervalMs?: number;
}

/** A running HTTP endpoint of the conformance fixture. */
export interface ConformanceHttp {
  /** The MCP endpoint, e.g. `http://127.0.0.1:PORT/mcp`. */
  url: string;
  close(): Promise<void>;
}

/**
 * Serves the conformance fixture over Streamable HTTP at one URL, in both wire eras, on the testkit's HTTP
 * listener: 2025 clients get sessions (`Mcp-Session-Id`, GET notification streams, DELETE, resumable SSE
 * with `Last-Event-ID`); 2026-07-28 requests (per-request `_meta` envelope) are served statelessly by the
 * SDK's `createMcpHandler`. Requests whose Host or Origin is not loopback are refused with 403
 * (DNS-rebinding protection). No control API: the fixture is driven by its own tools.
 */
export async function startConformanceHttp(
  state: FixtureState,
  options: ConformanceHttpOptions = {},
): Promise<ConformanceHttp> {
  const name = options.name ?? 'conformance-fixture';
  const listener = await startHttpListener(
    {
      createSession: () => {
        const server = createConformanceServer(state, 'legacy', name);
        state.attach(server, 'legacy');
        return server;
      },
      resumable: {
        eventStore: () => new MemoryEventStore(),
        retryIntervalMs: options.retryIntervalMs ?? 1000,
      },
      modern: { factory: (ctx) => createConformanceServer(state, ctx.era, name), bus: state.bus },
    },
    { host: options.host, port: options.port, path: options.path },
  );
  return { url: listener.url, close: () => listener.close() };
}
