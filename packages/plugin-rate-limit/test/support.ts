import type { Client } from '@modelcontextprotocol/client';
import {
  definePlugin,
  Gateway,
  type PluginSetupContext,
  type SwitchyardPlugin,
  setupPlugins,
  silentLogger,
} from '@switchyard/core';
import { connectInMemoryClient } from '@switchyard/core/testing';
import { type Cleanup, TestServer, type TestServerOptions } from '@switchyard/testkit';
import rateLimit from '../src/index.js';
import { type ResolvedOptions, rateLimitOptions } from '../src/options.js';

type Meter = PluginSetupContext['meter'];
type GaugeCallback = Parameters<ReturnType<Meter['createObservableGauge']>['addCallback']>[0];
type Attributes = Record<string, unknown>;

export { Cleanup } from '@switchyard/testkit';

/** Records what the plugin reports on its counters and gauges; everything else stays the real meter's. */
export class RecordingMeter {
  readonly counted: { name: string; value: number; attributes: Attributes }[] = [];
  readonly #gauges = new Map<string, GaugeCallback[]>();

  wrap(base: Meter): Meter {
    const meter = Object.create(base) as Meter;
    meter.createCounter = (name) => ({
      add: (value, attributes) => {
        this.counted.push({ name, value, attributes: { ...attributes } });
      },
    });
    meter.createObservableGauge = (name) => {
      const callbacks: GaugeCallback[] = [];
      this.#gauges.set(name, callbacks);
      return {
        addCallback: (callback) => {
          callbacks.push(callback);
        },
        removeCallback: (callback) => {
          callbacks.splice(callbacks.indexOf(callback), 1);
        },
      };
    };
    return meter;
  }

  /** Sum of a counter's values whose attributes include `attributes`. */
  total(name: string, attributes: Attributes): number {
    return this.counted
      .filter((c) => c.name === name && Object.entries(attributes).every(([k, v]) => c.attributes[k] === v))
      .reduce((sum, c) => sum + c.value, 0);
  }

  /** Collects a gauge now, as an exporter would: attributes JSON -> value. */
  observe(name: string): Map<string, number> {
    const seen = new Map<string, number>();
    for (const callback of this.#gauges.get(name) ?? []) {
      void callback({
        observe: (value, attributes) => {
          seen.set(JSON.stringify(attributes ?? {}), value);
        },
      });
    }
    return seen;
  }
}

/** The rate-limit plugin with a recording meter put in place of the gateway's. */
export function rateLimitRecording(meter: RecordingMeter): SwitchyardPlugin<ResolvedOptions> {
  return definePlugin({
    name: rateLimit.name,
    core: rateLimit.core,
    options: rateLimitOptions,
    setup: (options, context) => rateLimit.setup(options, { ...context, meter: meter.wrap(context.meter) }),
  });
}

/**
 * An upstream-call plugin (listed after rate-limit, so inside it) that holds every `resources/read`
 * until opened, and records how many reads were in flight at once: what the upstream would see.
 */
export class ReadGate {
  entered = 0;
  inFlight = 0;
  maxInFlight = 0;
  #open = false;
  #waiters: (() => void)[] = [];

  readonly plugin = definePlugin({
    name: 'test-read-gate',
    setup: () => ({
      upstreamCall: async (call, next) => {
        if (call.method !== 'resources/read') return next();
        this.entered += 1;
        this.inFlight += 1;
        this.maxInFlight = Math.max(this.maxInFlight, this.inFlight);
        try {
          if (!this.#open) await new Promise<void>((resolve) => this.#waiters.push(resolve));
          return await next();
        } finally {
          this.inFlight -= 1;
        }
      },
    }),
  });

  open(): void {
    this.#open = true;
    for (const wake of this.#waiters.splice(0)) wake();
  }
}

export interface InProcess {
  gateway: Gateway;
  upstreams: TestServer[];
}

/** Testkit upstreams over real HTTP, and a Gateway in front of them running `plugins`. */
export async function startGateway(
  cleanup: Cleanup,
  plugins: { plugin: unknown; options?: unknown }[],
  upstreams: TestServerOptions[] = [{ name: 'docs', resources: 10 }],
): Promise<InProcess> {
  const servers = upstreams.map((options) => new TestServer(options));
  for (const server of servers) cleanup.add(() => server.close());
  const urls = await Promise.all(servers.map(async (s) => (await s.listenHttp()).url));
  const loaded = await setupPlugins(
    plugins.map(({ plugin, options }) => ({ plugin, options, source: 'test' })),
    silentLogger,
  );
  const gateway = new Gateway({
    upstreams: servers.map((s, i) => ({
      name: s.options.name,
      prefix: true,
      timeoutMs: 10_000,
      transport: { kind: 'http' as const, url: urls[i]!, headers: {} },
    })),
    plugins: loaded,
    logger: silentLogger,
  });
  cleanup.add(() => gateway.close());
  await gateway.start();
  return { gateway, upstreams: servers };
}

/** An official SDK client connected in-process to a gateway session acting as `identity`. */
export async function connectAs(cleanup: Cleanup, gateway: Gateway, identity: string): Promise<Client> {
  const { client, close } = await connectInMemoryClient(gateway, {
    identity: { id: identity, groups: [], anonymous: false },
  });
  cleanup.add(close);
  return client;
}

/** Reads one resource of the testkit upstream `docs` through the gateway. */
export function read(client: Client, index: number, options: { signal?: AbortSignal } = {}) {
  return client.request(
    { method: 'resources/read', params: { uri: `docs+test://docs/r/${index}` } },
    options,
  );
}
