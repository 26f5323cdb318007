import { Client, type FetchLike, StreamableHTTPClientTransport } from '@modelcontextprotocol/client';
import { LegacyHttpClient } from '@switchyard/testkit/mcp';
import {
  type Gateway,
  type GatewayOptions,
  startGateway,
  startUpstream,
  type Upstream,
  type UpstreamSpec,
} from './services.js';

const CONNECT_TIMEOUT_MS = 10_000;

/** Per-request options of every measured request: a bounded timeout (the SDK default is 60 s). */
export const REQUEST_OPTIONS = { timeout: 30_000 } as const;

/** Options shared by the benchmarks. */
export interface RunOptions extends ClientOptions {
  /** When set, gateways run under `node --cpu-prof` and write their profiles here on exit. */
  cpuProfDir?: string;
}

export interface BenchClient {
  client: Client;
  url: string;
  close(): Promise<void>;
}

export interface ClientOptions {
  /**
   * `raw`: the lean measuring client (the testkit's LegacyHttpClient, 2025-06-18) instead of the official SDK client, on every path
   * alike, so the numbers show the servers' cost rather than the client's.
   */
  rawClient?: boolean;
  /** When given, counts the client's POSTs and those answered as an SSE stream (SDK client only). */
  postCounter?: PostCounter;
}

/**
 * POSTs and how many were answered as `text/event-stream` rather than JSON: the gateway turns a 2025-11-25
 * session's `tools/call` that has not answered within 50 ms into a resumable stream, which costs more.
 */
export interface PostCounter {
  posts: number;
  streamed: number;
}

/**
 * The SDK transport passes ONE long-lived AbortSignal to every POST. Node 20's fetch (undici) adds an
 * 'abort' listener to it per request and only removes it when the request is garbage-collected, and on
 * every request it also calls getEventListeners() (O(listeners)) and resets the signal's max-listener
 * warning, so past 1,500 live listeners each request emits a MaxListenersExceededWarning to stderr. That
 * costs the client CPU it would otherwise spend on the benchmark, equally on both paths. The bench never
 * closes a client with requests in flight, so POSTs do not need the signal; the GET stream keeps it.
 */
const postWithoutSharedSignal: FetchLike = (url, init) =>
  fetch(url, init?.method === 'POST' ? { ...init, signal: undefined } : init);

/** `fetch` with every POST's answer counted in `counter`. */
function countingPosts(inner: FetchLike, counter: PostCounter): FetchLike {
  return async (url, init) => {
    const res = await inner(url, init);
    if (init?.method === 'POST') {
      counter.posts += 1;
      if (res.headers.get('content-type')?.startsWith('text/event-stream')) counter.streamed += 1;
    }
    return res;
  };
}

/** One MCP client session over Streamable HTTP (one session; fetch pools the TCP connections). */
export async function connectClient(
  url: string,
  name: string,
  options: ClientOptions = {},
): Promise<BenchClient> {
  if (options.rawClient) {
    const raw = await LegacyHttpClient.open(url, { clientName: 'bench-raw', protocolVersion: '2025-06-18' });
    // Structurally the part of Client the benchmarks use (`request`), without its result validation.
    return { client: raw as unknown as Client, url, close: async () => void (await raw.close()) };
  }
  const client = new Client({ name, version: '0.0.0' });
  const transport = new StreamableHTTPClientTransport(new URL(url), {
    fetch: options.postCounter
      ? countingPosts(postWithoutSharedSignal, options.postCounter)
      : postWithoutSharedSignal,
  });
  await client.connect(transport, { timeout: CONNECT_TIMEOUT_MS });
  let closed: Promise<void> | undefined;
  return {
    client,
    url,
    close: () => {
      closed ??= (async () => {
        await transport.terminateSession().catch(() => undefined);
        await client.close().catch(() => undefined);
      })();
      return closed;
    },
  };
}

/** The two sides every gateway-vs-direct benchmark compares, and the processes behind them. */
export interface GatewayPair {
  upstream: Upstream;
  gateway: Gateway;
  /** A client straight to the upstream ("bench-direct"), and one through the gateway. */
  direct: Client;
  viaGateway: Client;
}

/**
 * Starts a testkit upstream and a gateway fronting it, connects a client to each, and runs `measure` with
 * them; the clients are closed and both processes stopped after, whatever happens.
 */
export async function withGatewayPair<T>(
  spec: UpstreamSpec,
  options: RunOptions & { gateway?: GatewayOptions; clientName?: string },
  measure: (pair: GatewayPair) => Promise<T>,
): Promise<T> {
  const clients: BenchClient[] = [];
  const upstream = await startUpstream(spec);
  let gateway: Gateway | undefined;
  try {
    gateway = await startGateway([upstream], options.gateway ?? options);
    const direct = await connectClient(upstream.url, 'bench-direct', options);
    clients.push(direct);
    const viaGateway = await connectClient(gateway.url, options.clientName ?? 'bench-gateway', options);
    clients.push(viaGateway);
    return await measure({ upstream, gateway, direct: direct.client, viaGateway: viaGateway.client });
  } finally {
    await closeAll(clients);
    await gateway?.proc.stop();
    await upstream.proc.stop();
  }
}

/** Closes every client, ignoring errors (cleanup paths). */
export async function closeAll(clients: Iterable<BenchClient | undefined>): Promise<void> {
  await Promise.allSettled([...clients].map((c) => c?.close()));
}
