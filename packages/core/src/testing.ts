import { Client, InMemoryTransport } from '@modelcontextprotocol/client';
import type { DownstreamClient, Identity, RequestContext, SessionSink } from './context.js';
import { requestContext } from './downstream/request-context.js';
import { openSession } from './downstream/session.js';
import type { Gateway } from './gateway.js';
import type { Outcome } from './middleware.js';
import type { UpstreamCall, UpstreamCallMiddleware } from './plugins/upstream-call.js';
import { composeCallLayers } from './upstream/call-layers.js';

export interface InMemoryClient {
  /** An official SDK client, connected and initialized. */
  client: Client;
  /** The gateway-side session id. */
  sessionId: string;
  /** Closes the client and the gateway session (releasing its subscriptions). Idempotent. */
  close(): Promise<void>;
}

/**
 * Connects an official SDK client to `gateway` in-process, as `identity`: the way to test a plugin
 * end to end without a listener (the identity is what a bearer token would have resolved to).
 *
 * @example
 * const { client, close } = await connectInMemoryClient(gateway, { identity: { id: 'alice', groups: [], anonymous: false } });
 * await client.request({ method: 'resources/read', params: { uri: 'docs+file:///a.md' } });
 * await close();
 */
export async function connectInMemoryClient(
  gateway: Gateway,
  options: { identity?: Identity; sessionId?: string; name?: string } = {},
): Promise<InMemoryClient> {
  const [clientSide, serverSide] = InMemoryTransport.createLinkedPair();
  const session = openSession(gateway, {
    transport: 'memory',
    id: options.sessionId,
    identity: options.identity,
  });
  await session.connect(serverSide);
  const client = new Client({
    name: options.name ?? options.identity?.id ?? 'in-memory-client',
    version: '1.0.0',
  });
  try {
    await client.connect(clientSide);
  } catch (error) {
    await session.close();
    throw error;
  }
  let closing: Promise<void> | undefined;
  return {
    client,
    sessionId: session.id,
    close: () => {
      closing ??= (async () => {
        await client.close().catch(() => {});
        await session.close();
      })();
      return closing;
    },
  };
}

export interface TestRequestOptions {
  /** Who calls (default: an anonymous identity). */
  identity?: Identity;
  /** The session it comes from (default: an in-memory session of `identity` that drops notifications). */
  session?: SessionSink;
  signal?: AbortSignal;
  /** The downstream client's era and capabilities (default: none, which answers as legacy). */
  client?: DownstreamClient;
  /** Initial request state (what outer plugins would have set). */
  state?: Iterable<[string, unknown]>;
  /** Receives the notifications related to this request (progress, log messages). */
  notifyRelated?: RequestContext['notifyRelated'];
}

/**
 * A request context as a listener builds one, for calling `gateway.handle(ctx)` or a plugin's
 * `request` hook directly in a unit test.
 *
 * @example
 * const outcome = await gateway.handle(testRequest('resources/read', { uri: 'docs+file:///a.md' }));
 */
export function testRequest(
  method: string,
  params: Record<string, unknown> = {},
  options: TestRequestOptions = {},
): RequestContext {
  const identity = options.identity ??
    options.session?.identity ?? { id: 'anonymous', groups: [], anonymous: true };
  const ctx = requestContext({
    method,
    params,
    session: options.session ?? { id: 'test', transport: 'memory', identity, notify: async () => {} },
    signal: options.signal ?? new AbortController().signal,
    notifyRelated: options.notifyRelated ?? (async () => {}),
    ...(options.client ? { client: options.client } : {}),
  });
  for (const [key, value] of options.state ?? []) ctx.state.set(key, value);
  return { ...ctx, identity };
}

/**
 * Runs upstream-call middleware (one hook or several, the first outermost) around `upstream` exactly as
 * the gateway runs it before a call reaches an upstream (`next()` once, thrown errors as outcomes,
 * `call.repeat`), for a plugin's `upstreamCall` hook in a unit test. `upstream` answers every call that
 * gets through, with the params it carries by then; throw a `GatewayError` from it to fail one.
 *
 * @example
 * const outcome = await runUpstreamCall(hooks.upstreamCall!, { upstream: 'docs', method: 'tools/list', params: {} },
 *   async (call) => ({ tools: [], nextCursor: call.params?.cursor === undefined ? 'p2' : undefined }));
 */
export function runUpstreamCall(
  middleware: UpstreamCallMiddleware | readonly UpstreamCallMiddleware[],
  call: UpstreamCall,
  upstream: (call: UpstreamCall) => Promise<Record<string, unknown>>,
): Promise<Outcome> {
  const layers = typeof middleware === 'function' ? [middleware] : middleware;
  const run = composeCallLayers<UpstreamCall>(layers, async (sent) => ({
    ok: true,
    result: await upstream({ ...sent }),
  }));
  return run({ ...call });
}

/** The plugins' port to the gateway, for tests that set a plugin up by hand (e.g. with their own meter). */
export { GatewayPort } from './plugins/host.js';
/** The tracer and meter from the global OpenTelemetry API, as plugins get them in `setup`. */
export { telemetryApi } from './telemetry.js';
