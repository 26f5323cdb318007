import { type HttpTestServer, TestServer, type TestServerOptions } from '@switchyard/testkit';
import { afterEach, describe, expect, it } from 'vitest';
import type { UpstreamConfig } from '../src/config.js';
import type { SessionSink } from '../src/context.js';
import { Gateway } from '../src/gateway.js';
import { silentLogger } from '../src/logger.js';
import type { Outcome } from '../src/middleware.js';
import { testRequest } from '../src/testing.js';

const cleanup: Array<() => Promise<unknown>> = [];
afterEach(async () => {
  for (const task of cleanup.splice(0).reverse()) await task().catch(() => undefined);
});

async function upstream(options: TestServerOptions): Promise<HttpTestServer & { server: TestServer }> {
  const server = new TestServer(options);
  cleanup.push(() => server.close());
  const http = await server.listenHttp();
  cleanup.push(() => http.close());
  return Object.assign(http, { server });
}

function config(name: string, url: string, extra: Partial<UpstreamConfig> = {}): UpstreamConfig {
  return { name, prefix: true, timeoutMs: 5000, transport: { kind: 'http', url, headers: {} }, ...extra };
}

/** A session that records notifications; `until` waits (bounded) for one to arrive. */
class Session implements SessionSink {
  readonly id = 's1';
  readonly transport = 'memory' as const;
  readonly identity = { id: 'test', groups: [], anonymous: true };
  readonly methods: string[] = [];
  #wake: (() => void) | undefined;
  async notify(method: string): Promise<void> {
    this.methods.push(method);
    this.#wake?.();
  }
  async until(method: string, ms = 5000): Promise<void> {
    const deadline = Date.now() + ms;
    while (!this.methods.includes(method)) {
      if (Date.now() > deadline) throw new Error(`no ${method} within ${ms} ms: ${this.methods}`);
      await new Promise<void>((resolve) => {
        this.#wake = resolve;
        setTimeout(resolve, 100).unref();
      });
    }
  }
}

function call(gateway: Gateway, session: Session, method: string, params: Record<string, unknown> = {}) {
  return gateway.handle(testRequest(method, params, { session, notifyRelated: (m) => session.notify(m) }));
}

async function ok(outcome: Promise<Outcome>): Promise<Record<string, unknown>> {
  const o = await outcome;
  if (!o.ok) throw new Error(`expected success, got ${o.error.code} ${o.error.message}`);
  return o.result;
}

const names = (r: Record<string, unknown>, field: string, key: string) =>
  (r[field] as Record<string, unknown>[]).map((i) => i[key]).sort();

describe('Gateway.reconfigure', () => {
  it('connects added, closes removed, reconnects changed upstreams and keeps unchanged ones', async () => {
    const a = await upstream({ name: 'a', resources: 2, pageSize: 1, tools: 1 });
    const b = await upstream({ name: 'b', resources: 1, tools: 1 });
    const c = await upstream({ name: 'c', resources: 1, tools: 1 });
    const gateway = new Gateway({
      upstreams: [config('a', a.url), config('b', b.url)],
      logger: silentLogger,
    });
    cleanup.push(() => gateway.close());
    await gateway.start();
    const session = new Session();
    gateway.openSession(session);
    const first = await ok(call(gateway, session, 'resources/list'));
    expect(typeof first.nextCursor).toBe('string');
    const connectedA = gateway.status().find((s) => s.name === 'a')?.connectedSince;

    // Same configs in another key order: nothing to do.
    const same = await gateway.reconfigure([
      { ...config('a', a.url), timeoutMs: 5000, prefix: true },
      config('b', b.url),
    ]);
    expect(same).toEqual({ added: [], removed: [], changed: [] });

    const changes = await gateway.reconfigure([config('a', a.url), config('c', c.url)]);
    expect(changes).toEqual({ added: ['c'], removed: ['b'], changed: [] });
    await session.until('notifications/tools/list_changed');
    await session.until('notifications/resources/list_changed');
    // b's removal announces a change at once; c is listed once it has connected.
    await expect
      .poll(() => gateway.status().find((s) => s.name === 'c')?.state, { timeout: 5_000 })
      .toBe('ready');
    const tools = await ok(call(gateway, session, 'tools/list'));
    expect(names(tools, 'tools', 'name')).toEqual(['a__tool_0', 'c__tool_0']);
    expect(gateway.status().map((s) => s.name)).toEqual(['a', 'c']);
    // The unchanged upstream kept its connection.
    expect(gateway.status().find((s) => s.name === 'a')?.connectedSince).toBe(connectedA);
    // A cursor from before the server set changed: list again.
    const stale = await call(gateway, session, 'resources/list', { cursor: first.nextCursor });
    expect(stale.ok).toBe(false);
    if (!stale.ok) {
      expect(stale.error.code).toBe(-32602);
      expect(stale.error.data).toMatchObject({ reason: 'invalid_cursor' });
      expect(stale.error.message).toMatch(/List again/);
    }
    const called = await ok(call(gateway, session, 'tools/call', { name: 'c__tool_0', arguments: {} }));
    expect(called.isError).not.toBe(true);

    // A changed config reconnects that upstream only.
    const changed = await gateway.reconfigure([config('a', a.url), config('c', c.url, { timeoutMs: 4000 })]);
    expect(changed).toEqual({ added: [], removed: [], changed: ['c'] });
    expect(gateway.status().find((s) => s.name === 'a')?.connectedSince).toBe(connectedA);
    await expect(gateway.reconfigure([config('a', a.url), config('a', c.url)])).rejects.toThrow(/Duplicate/);
    expect(gateway.status().map((s) => s.name)).toEqual(['a', 'c']);
  });

  it('refuses a cursor once an upstream of that name points elsewhere, not when only its timeout changed', async () => {
    const a = await upstream({ name: 'a', resources: 3, pageSize: 1 });
    const other = await upstream({ name: 'a', resources: 3, pageSize: 1 });
    const gateway = new Gateway({ upstreams: [config('a', a.url)], logger: silentLogger });
    cleanup.push(() => gateway.close());
    await gateway.start();
    const session = new Session();
    gateway.openSession(session);
    const first = await ok(call(gateway, session, 'resources/list'));
    await gateway.reconfigure([config('a', a.url, { timeoutMs: 4000 })]);
    // The changed upstream reconnects (with its new timeout) before it can continue the listing.
    await expect.poll(() => gateway.status()[0]?.state, { timeout: 5_000 }).toBe('ready');
    const kept = await ok(call(gateway, session, 'resources/list', { cursor: first.nextCursor }));
    expect(kept.resources).toHaveLength(1);
    await gateway.reconfigure([config('a', other.url, { timeoutMs: 4000 })]);
    const stale = await call(gateway, session, 'resources/list', { cursor: first.nextCursor });
    expect(stale).toMatchObject({ ok: false, error: { code: -32602, data: { reason: 'invalid_cursor' } } });
  });
});
