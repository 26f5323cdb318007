import type { Client } from '@modelcontextprotocol/client';
import {
  CACHE_STATUS_KEY,
  definePlugin,
  Gateway,
  type Identity,
  type LoadedPlugin,
  MemoryStore,
  type Outcome,
  type PluginSetupContext,
  type RequestContext,
  type SessionSink,
  type Store,
  setupPlugins,
  silentLogger,
  type UpstreamNotification,
} from '@switchyard/core';
import { connectInMemoryClient, GatewayPort, telemetryApi, testRequest } from '@switchyard/core/testing';
import {
  type Cleanup,
  eventually as pollUntil,
  TestServer,
  type TestServerOptions,
} from '@switchyard/testkit';
import cachePlugin, { type CacheOptions } from '../src/index.js';
import { cacheOptions } from '../src/options.js';

export { Cleanup } from '@switchyard/testkit';

/** Polls `probe` until it returns something other than undefined/false, failing after `timeoutMs`. */
export function eventually<T>(
  probe: () => T | undefined | false | Promise<T | undefined | false>,
  what: string,
  timeoutMs = 5_000,
): Promise<T> {
  return pollUntil(probe, what, timeoutMs);
}

export const identity = (id: string): Identity => ({ id, groups: [], anonymous: false });

/** An in-process testkit upstream over Streamable HTTP on an ephemeral loopback port. */
export async function upstream(cleanup: Cleanup, options: TestServerOptions) {
  const server = new TestServer(options);
  const http = await server.listenHttp();
  cleanup.add(() => server.close());
  return { server, url: http.url, reads: () => server.stats.requests['resources/read'] ?? 0 };
}

/** A recorded metric point: counters accumulate, gauges are read on demand. */
export interface RecordingMeter {
  meter: PluginSetupContext['meter'];
  count(name: string, attributes?: Record<string, string>): number;
  gauge(name: string): number;
}

/** A meter that records what the cache reports (only the instruments the cache uses). */
export function recordingMeter(): RecordingMeter {
  const counts = new Map<string, number>();
  const gauges = new Map<string, Set<(result: { observe(value: number): void }) => void>>();
  const keyOf = (name: string, attributes: Record<string, string> = {}) =>
    `${name}${JSON.stringify(Object.entries(attributes).sort())}`;
  const meter = {
    createCounter: (name: string) => ({
      add: (value: number, attributes?: Record<string, string>) => {
        for (const key of [keyOf(name), keyOf(name, attributes)])
          counts.set(key, (counts.get(key) ?? 0) + value);
      },
    }),
    createObservableGauge: (name: string) => {
      const callbacks = new Set<(result: { observe(value: number): void }) => void>();
      gauges.set(name, callbacks);
      return {
        addCallback: (cb: (result: { observe(value: number): void }) => void) => callbacks.add(cb),
        removeCallback: (cb: (result: { observe(value: number): void }) => void) => callbacks.delete(cb),
      };
    },
  };
  return {
    meter: meter as unknown as PluginSetupContext['meter'],
    count: (name, attributes) => counts.get(keyOf(name, attributes)) ?? 0,
    gauge: (name) => {
      let observed = Number.NaN;
      for (const cb of gauges.get(name) ?? []) cb({ observe: (v) => (observed = v) });
      return observed;
    },
  };
}

/** Plugins around the cache in a test: an outer one recording statuses, an inner one the test can gate. */
export interface Harness {
  gateway: Gateway;
  /** Cache status of every request, in completion order (undefined when the cache set none). */
  statuses: unknown[];
  /** Upstream notifications every plugin saw. */
  notifications: UpstreamNotification[];
  /** When set, each read's upstream result waits for it before travelling back through the cache. */
  hold: { gate: Promise<void> | undefined; waiting: number };
  /**
   * Reads of these URIs come back (after their upstream read) as a modern input-required result, each
   * with its own `requestState`, as an upstream that needs the client's input would answer.
   */
  inputRequired: Set<string>;
  /** Requests that got past the cache to the inner plugin. */
  passed: RequestContext[];
  meter: RecordingMeter;
  /** The cache's hooks, as the gateway runs them (for its `stats`). */
  hooks: LoadedPlugin['hooks'];
}

/**
 * A Gateway over HTTP testkit upstreams with: a status recorder (outermost), the cache, and a gate
 * (innermost). The cache is set up through its `setup` with a recording meter (the host's
 * `setupPlugins` only hands out the global one); the others go through `setupPlugins`.
 */
export async function gatewayWith(
  cleanup: Cleanup,
  upstreams: { name: string; url: string }[],
  options: CacheOptions = {},
  /** The store the cache gets (a replica's view of a shared one); default in memory. */
  store: Store = new MemoryStore(),
): Promise<Harness> {
  const statuses: unknown[] = [];
  const notifications: UpstreamNotification[] = [];
  const hold: Harness['hold'] = { gate: undefined, waiting: 0 };
  const inputRequired = new Set<string>();
  const passed: RequestContext[] = [];
  const recorder = definePlugin({
    name: 'status-recorder',
    setup: () => ({
      request: async (ctx, next) => {
        const outcome = await next();
        statuses.push(ctx.state.get(CACHE_STATUS_KEY));
        return outcome;
      },
      notification: (n) => void notifications.push(n),
    }),
  });
  const gate = definePlugin({
    name: 'gate',
    setup: () => ({
      request: async (ctx, next) => {
        passed.push(ctx);
        const outcome = await next();
        const gate = hold.gate;
        if (gate) {
          hold.waiting += 1;
          await gate;
          hold.waiting -= 1;
        }
        if (outcome.ok && inputRequired.has(String(ctx.params.uri))) {
          const result = {
            resultType: 'input_required',
            inputRequests: {},
            requestState: `state-${passed.length}`,
          };
          return { ok: true, result };
        }
        return outcome;
      },
    }),
  });
  const meter = recordingMeter();
  const [outer] = await setupPlugins([{ plugin: recorder, options: {}, source: 'recorder' }], silentLogger);
  const [inner] = await setupPlugins([{ plugin: gate, options: {}, source: 'gate' }], silentLogger);
  const port = new GatewayPort();
  const hooks = await cachePlugin.setup(cacheOptions.parse(options), {
    ...telemetryApi(),
    meter: meter.meter,
    logger: silentLogger,
    loaded: ['status-recorder'],
    baseDir: process.cwd(),
    gateway: port,
    store,
  });
  const cache: LoadedPlugin = { name: cachePlugin.name, hooks, port };
  const gateway = new Gateway({
    upstreams: upstreams.map((u) => ({
      name: u.name,
      prefix: true,
      timeoutMs: 5_000,
      transport: { kind: 'http' as const, url: u.url, headers: {} },
    })),
    plugins: [outer!, cache, inner!],
    logger: silentLogger,
  });
  cleanup.add(() => gateway.close());
  await gateway.start();
  return { gateway, statuses, notifications, hold, inputRequired, passed, meter, hooks };
}

/** An official SDK client on an in-memory session of `gateway`, acting as `who`. */
export async function connect(cleanup: Cleanup, gateway: Gateway, who: Identity): Promise<Client> {
  const { client, close } = await connectInMemoryClient(gateway, { identity: who, name: `client-${who.id}` });
  cleanup.add(close);
  return client;
}

/** Reads `uri` and returns the text of its first content item. */
export async function readText(client: Client, uri: string): Promise<string> {
  const result = (await client.request({ method: 'resources/read', params: { uri } })) as {
    contents: { text?: string }[];
  };
  return String(result.contents[0]?.text);
}

/** Runs a read straight through the gateway (for tests that control the request's abort signal). */
export function handleRead(
  gateway: Gateway,
  uri: string,
  who: Identity,
  signal: AbortSignal = new AbortController().signal,
  client?: RequestContext['client'],
): Promise<Outcome> {
  const session: SessionSink = {
    id: `s-${who.id}`,
    transport: 'memory',
    identity: who,
    notify: async () => {},
  };
  return gateway.handle(testRequest('resources/read', { uri }, { session, signal, client }));
}

/** A gate the test opens by hand. */
export function manualGate(): { gate: Promise<void>; open(): void } {
  let open: () => void = () => {};
  const gate = new Promise<void>((resolve) => {
    open = resolve;
  });
  return { gate, open };
}
