import {
  MemoryStore,
  type Outcome,
  type PluginAdminRequest,
  type PluginEvent,
  type PluginEventInput,
  type PluginEvents,
  type PluginGateway,
  type RequestContext,
  type Store,
  StoreUnavailableError,
  type UpstreamCallContext,
} from '@switchyard/core';

export const tool = (name: string, description = `does ${name}`) => ({
  name,
  description,
  inputSchema: { type: 'object' },
});

/** A gateway exposing `<server>__<name>` for every name. */
export const gateway = {
  exposeName: (_kind: string, server: string, name: string) => `${server}__${name}`,
  tool: (exposed: string) => {
    const [upstream, name] = exposed.split('__');
    return name === undefined ? undefined : { upstream: upstream!, name };
  },
  prompt: () => undefined,
} as unknown as PluginGateway;

export const request = () =>
  ({
    method: 'tools/list',
    signal: new AbortController().signal,
    identity: { id: 'ops' },
    state: new Map(),
  }) as unknown as RequestContext;

/** Lists `tools` (one page) from server `docs` through the plugin's upstream-call hook. */
export function list(
  pinning: { upstreamCall: (c: UpstreamCallContext, n: () => Promise<Outcome>) => Promise<Outcome> },
  tools: unknown[],
) {
  const call = {
    upstream: 'docs',
    method: 'tools/list',
    params: undefined,
    request: request(),
    repeat: async () => ({ ok: true, result: { tools } }),
  } as unknown as UpstreamCallContext;
  return pinning.upstreamCall(call, async () => ({ ok: true, result: { tools } }));
}

export const admin = (name: string, id = 'alice') =>
  ({ identity: { id }, params: {}, body: { name } }) as unknown as PluginAdminRequest;

/** Events as the host would hand them on: recorded here. */
export function recordEvents(): PluginEvents & { seen: PluginEvent[] } {
  const seen: PluginEvent[] = [];
  return {
    seen,
    emit: async (input: PluginEventInput) => {
      seen.push({
        type: input.type,
        time: new Date().toISOString(),
        plugin: '@switchyard/plugin-pin',
        ...(input.identity === undefined ? {} : { identity: input.identity }),
        detail: input.detail ?? {},
      });
    },
  };
}

/** An in-memory store that says it is shared (as Redis is) and can be taken down and brought back. */
export class SharedMemoryStore implements Store {
  readonly driver = 'shared-memory';
  readonly shared = true;
  readonly onUnavailable = 'local' as const;
  readonly #inner = new MemoryStore();
  readonly pubsub = this.#inner.pubsub;
  readonly counters = this.#inner.counters;
  #down = false;
  readonly #listeners = new Set<(available: boolean) => void>();

  get available(): boolean {
    return !this.#down;
  }

  setDown(down: boolean): void {
    this.#down = down;
    for (const listener of this.#listeners) listener(!down);
  }

  onAvailability(listener: (available: boolean) => void): () => void {
    this.#listeners.add(listener);
    return () => this.#listeners.delete(listener);
  }

  #up(): void {
    if (this.#down) throw new StoreUnavailableError('down');
  }
  async get(key: string) {
    this.#up();
    return this.#inner.get(key);
  }
  async set(key: string, value: string, options?: { ttlMs?: number }) {
    this.#up();
    return this.#inner.set(key, value, options);
  }
  async setIfAbsent(key: string, value: string, options?: { ttlMs?: number }) {
    this.#up();
    return this.#inner.setIfAbsent(key, value, options);
  }
  async delete(...keys: string[]) {
    this.#up();
    return this.#inner.delete(...keys);
  }
  async touch(key: string, ttlMs: number) {
    this.#up();
    return this.#inner.touch(key, ttlMs);
  }
  scoped(): Store {
    return this;
  }
  async dispose(): Promise<void> {
    await this.#inner.dispose();
  }
}

export async function eventually(check: () => boolean | Promise<boolean>, what: string, ms = 2000) {
  const start = Date.now();
  while (!(await check())) {
    if (Date.now() - start > ms) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 20));
  }
}
