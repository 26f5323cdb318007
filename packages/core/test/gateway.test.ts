import { createHmac } from 'node:crypto';
import { type HttpTestServer, TestServer, type TestServerOptions } from '@switchyard/testkit';
import { afterEach, describe, expect, it } from 'vitest';
import type { UpstreamConfig } from '../src/config.js';
import type { RequestMiddleware, SessionSink } from '../src/context.js';
import type { GatewayError } from '../src/errors.js';
import { Gateway, type GatewayOptions } from '../src/gateway.js';
import { UNAVAILABLE_META_KEY } from '../src/listing/merged.js';
import { silentLogger } from '../src/logger.js';
import type { Outcome } from '../src/middleware.js';

// ---- harness ---------------------------------------------------------------------------------------

const cleanup: Array<() => Promise<unknown>> = [];

afterEach(async () => {
  // Newest first: gateways close before the upstreams they talk to.
  for (const task of cleanup.splice(0).reverse()) await task().catch(() => undefined);
});

/** Rejects if `promise` does not settle within `ms`. */
async function within<T>(promise: Promise<T>, ms: number, what: string): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new Error(`${what} did not happen within ${ms} ms`)), ms);
  });
  try {
    return await Promise.race([promise, timeout]);
  } finally {
    clearTimeout(timer);
  }
}

interface Upstream {
  server: TestServer;
  http: HttpTestServer;
}

async function upstream(options: TestServerOptions): Promise<Upstream> {
  const server = new TestServer(options);
  cleanup.push(() => server.close());
  const http = await server.listenHttp();
  cleanup.push(() => http.close());
  return { server, http };
}

function config(name: string, up: Upstream | string, prefix = true): UpstreamConfig {
  const url = typeof up === 'string' ? up : up.http.url;
  return { name, prefix, timeoutMs: 5000, transport: { kind: 'http', url, headers: {} } };
}

async function startGateway(
  upstreams: UpstreamConfig[],
  extra: Partial<GatewayOptions> = {},
): Promise<Gateway> {
  const gateway = new Gateway({ upstreams, logger: silentLogger, ...extra });
  cleanup.push(() => gateway.close());
  await within(gateway.start(), 10_000, 'gateway start');
  return gateway;
}

/** A downstream session that records its notifications and lets a test await one (bounded). */
class RecordingSession implements SessionSink {
  readonly transport = 'memory' as const;
  readonly identity = { id: 'test', groups: [], anonymous: true };
  readonly received: Array<{ method: string; params: Record<string, unknown> }> = [];
  #waiters = new Set<() => void>();

  constructor(readonly id: string) {}

  async notify(method: string, params: Record<string, unknown>): Promise<void> {
    this.received.push({ method, params });
    for (const wake of [...this.#waiters]) wake();
  }

  /** URIs of the `notifications/resources/updated` received, in order. */
  updates(): unknown[] {
    return this.received
      .filter((n) => n.method === 'notifications/resources/updated')
      .map((n) => n.params.uri);
  }

  async until(check: () => boolean, what: string, ms = 5000): Promise<void> {
    if (check()) return;
    await within(
      new Promise<void>((resolve) => {
        const wake = () => {
          if (!check()) return;
          this.#waiters.delete(wake);
          resolve();
        };
        this.#waiters.add(wake);
      }),
      ms,
      `${this.id}: ${what}`,
    );
  }
}

const anonymous = new RecordingSession('anonymous');

function call(
  gateway: Gateway,
  method: string,
  params: Record<string, unknown> = {},
  session: SessionSink = anonymous,
): Promise<Outcome> {
  return gateway.handle({
    method,
    params,
    session,
    identity: session.identity,
    signal: new AbortController().signal,
    notifyRelated: (m, p) => session.notify(m, p),
    state: new Map(),
  });
}

async function result(outcome: Promise<Outcome>): Promise<Record<string, unknown>> {
  const o = await outcome;
  if (!o.ok) throw new Error(`expected success, got ${o.error.code} ${o.error.message}`);
  return o.result;
}

async function failure(outcome: Promise<Outcome>): Promise<GatewayError> {
  const o = await outcome;
  if (o.ok) throw new Error(`expected an error, got ${JSON.stringify(o.result)}`);
  return o.error;
}

type Page = { items: string[]; nextCursor?: string; unavailable?: unknown };

function pageOf(method: string, raw: Record<string, unknown>): Page {
  const field = method === 'resources/list' ? 'resources' : 'resourceTemplates';
  const uriField = method === 'resources/list' ? 'uri' : 'uriTemplate';
  const items = (raw[field] as Array<Record<string, unknown>>).map((item) => item[uriField] as string);
  const meta = raw._meta as Record<string, unknown> | undefined;
  return {
    items,
    ...(typeof raw.nextCursor === 'string' ? { nextCursor: raw.nextCursor } : {}),
    ...(meta ? { unavailable: meta[UNAVAILABLE_META_KEY] } : {}),
  };
}

/** Every page of a merged listing, following nextCursor. */
async function listAll(gateway: Gateway, method = 'resources/list'): Promise<Page[]> {
  const pages: Page[] = [];
  let cursor: string | undefined;
  do {
    const page = pageOf(method, await result(call(gateway, method, cursor === undefined ? {} : { cursor })));
    pages.push(page);
    cursor = page.nextCursor;
    if (pages.length > 50) throw new Error('listing does not end');
  } while (cursor !== undefined);
  return pages;
}

const uris = (prefix: string, count: number, from = 0) =>
  Array.from({ length: count }, (_, i) => `${prefix}${from + i}`);

// ---- tests -----------------------------------------------------------------------------------------

describe('Gateway: merged listings', () => {
  it('merges three upstreams with different page counts, each resource exactly once, prefixed', async () => {
    const a = await upstream({ name: 'a', resources: 7, pageSize: 2 }); // 4 pages
    const b = await upstream({ name: 'b', resources: 3 }); // 1 page
    const c = await upstream({ name: 'c', resources: 5, pageSize: 2 }); // 3 pages
    const gateway = await startGateway([config('a', a), config('b', b), config('c', c)]);

    const pages = await listAll(gateway);
    expect(pages).toHaveLength(4);
    expect(pages[0]?.items).toEqual([
      ...uris('a+test://a/r/', 2),
      ...uris('b+test://b/r/', 3),
      ...uris('c+test://c/r/', 2),
    ]);
    expect(pages[1]?.items).toEqual([...uris('a+test://a/r/', 2, 2), ...uris('c+test://c/r/', 2, 2)]);
    expect(pages[2]?.items).toEqual([...uris('a+test://a/r/', 2, 4), ...uris('c+test://c/r/', 1, 4)]);
    expect(pages[3]?.items).toEqual(uris('a+test://a/r/', 1, 6));
    expect(pages[3]?.nextCursor).toBeUndefined();
    for (const page of pages) expect(page.unavailable).toBeUndefined();

    const all = pages.flatMap((p) => p.items);
    expect(new Set(all).size).toBe(all.length);
    expect(all.sort()).toEqual(
      [...uris('a+test://a/r/', 7), ...uris('b+test://b/r/', 3), ...uris('c+test://c/r/', 5)].sort(),
    );
    // An upstream that has finished is not asked again.
    expect(a.server.stats.requests['resources/list']).toBe(4);
    expect(b.server.stats.requests['resources/list']).toBe(1);
    expect(c.server.stats.requests['resources/list']).toBe(3);
  });

  it('keeps every other resource field and prefixes template listings too', async () => {
    const a = await upstream({ name: 'a', resources: 1, templates: 3, pageSize: 2 });
    const gateway = await startGateway([config('a', a)]);
    const first = await result(call(gateway, 'resources/list'));
    expect(first.resources).toEqual([{ uri: 'a+test://a/r/0', name: 'r0', mimeType: 'text/plain' }]);

    const templates = await listAll(gateway, 'resources/templates/list');
    expect(templates.map((p) => p.items)).toEqual([
      ['a+test://a/items/{id}', 'a+test://a/t1/{id}'],
      ['a+test://a/t2/{id}'],
    ]);
  });

  it('lists a colliding URI of unprefixed servers once and routes it to the first in config order', async () => {
    for (const order of [
      ['x', 'y'],
      ['y', 'x'],
    ] as const) {
      const x = await upstream({ name: 'x', uriBase: 'shared://', resources: 3 });
      const y = await upstream({ name: 'y', uriBase: 'shared://', resources: 5 });
      const p = await upstream({ name: 'p', resources: 1 });
      const byName = { x, y };
      const gateway = await startGateway([
        config(order[0], byName[order[0]], false),
        config(order[1], byName[order[1]], false),
        config('p', p),
      ]);
      const first = byName[order[0]];

      const all = (await listAll(gateway)).flatMap((page) => page.items);
      expect(all.sort(), order.join()).toEqual([...uris('shared://r/', 5), 'p+test://p/r/0'].sort());

      for (const [name, up] of Object.entries(byName)) up.server.setText('shared://r/1', `from ${name}`);
      const read = await result(call(gateway, 'resources/read', { uri: 'shared://r/1' }));
      // Unprefixed content keeps its URI.
      expect(read.contents).toEqual([
        { uri: 'shared://r/1', mimeType: 'text/plain', text: `from ${order[0]}` },
      ]);

      // A URI only y has goes to y whatever the order; a template both share goes to the first.
      const onlyY = await result(call(gateway, 'resources/read', { uri: 'shared://r/4' }));
      expect(onlyY.contents).toEqual([{ uri: 'shared://r/4', mimeType: 'text/plain', text: 'resource 4' }]);
      first.server.setText('shared://items/abc', `item of ${order[0]}`);
      const templated = await result(call(gateway, 'resources/read', { uri: 'shared://items/abc' }));
      expect(templated.contents).toMatchObject([{ uri: 'shared://items/abc', text: `item of ${order[0]}` }]);
      // x was asked for r/1 and the template only when first; y always for r/4, plus those when first.
      const reads = (up: Upstream) => up.server.stats.requests['resources/read'] ?? 0;
      expect(reads(x)).toBe(order[0] === 'x' ? 2 : 0);
      expect(reads(y)).toBe(order[0] === 'y' ? 3 : 1);
      await gateway.close();
    }
  });

  it('refuses cursors from a gateway with a different upstream set, prefix setting or secret', async () => {
    const a = await upstream({ name: 'a', resources: 3, pageSize: 1 });
    const b = await upstream({ name: 'b', resources: 3, pageSize: 1 });
    const issuer = await startGateway([config('a', a), config('b', b)]);
    const cursor = pageOf('resources/list', await result(call(issuer, 'resources/list'))).nextCursor;
    expect(typeof cursor).toBe('string');

    // Stateless: a second instance with the same config continues it.
    const twin = await startGateway([config('a', a), config('b', b)]);
    const second = pageOf('resources/list', await result(call(twin, 'resources/list', { cursor })));
    expect(second.items).toEqual(['a+test://a/r/1', 'b+test://b/r/1']);

    const others = [
      await startGateway([config('a', a)]),
      await startGateway([config('a', a), config('b', b), config('c', a)]),
      await startGateway([config('b', b), config('a', a)]),
      await startGateway([config('a', a), config('b', b, false)]),
      await startGateway([config('a', a), config('b', b)], { cursorSecret: 'another secret' }),
    ];
    for (const gateway of others) {
      const error = await failure(call(gateway, 'resources/list', { cursor }));
      expect(error.code).toBe(-32602);
      expect(error.reason).toBe('invalid_cursor');
    }
    // The listing cursor is not a template-listing cursor, and garbage is refused.
    for (const [method, bad] of [
      ['resources/templates/list', cursor],
      ['resources/list', 'garbage'],
      ['resources/list', 42],
    ] as const) {
      const error = await failure(call(issuer, method, { cursor: bad }));
      expect(error.reason).toBe('invalid_cursor');
    }
  });

  // Without cursorSecret the MAC key derives from the public upstream names, so clients can sign any body;
  // a signed `null` body used to surface as -32603 instead of invalid_cursor (regression).
  it('answers a forged cursor with a null body as invalid_cursor (-32602)', async () => {
    const a = await upstream({ name: 'a', resources: 1 });
    const gateway = await startGateway([config('a', a)]);
    const key = createHmac('sha256', 'switchyard/cursor/v1')
      .update(JSON.stringify([[['a', true]], '']))
      .digest();
    const body = Buffer.from('null').toString('base64url');
    const mac = createHmac('sha256', key).update(body).digest().subarray(0, 12).toString('base64url');
    const error = await failure(call(gateway, 'resources/list', { cursor: `${body}.${mac}` }));
    expect(error.code).toBe(-32602);
  });

  it('omits an upstream closed mid-listing and names it under _meta', async () => {
    const a = await upstream({ name: 'a', resources: 4, pageSize: 2 });
    const b = await upstream({ name: 'b', resources: 4, pageSize: 2 });
    const gateway = await startGateway([config('a', a), config('b', b)]);

    const first = pageOf('resources/list', await result(call(gateway, 'resources/list')));
    expect(first.items).toEqual([...uris('a+test://a/r/', 2), ...uris('b+test://b/r/', 2)]);
    expect(first.unavailable).toBeUndefined();

    await b.http.close();
    const second = pageOf(
      'resources/list',
      await result(call(gateway, 'resources/list', { cursor: first.nextCursor })),
    );
    expect(second.items).toEqual(uris('a+test://a/r/', 2, 2));
    expect(second.unavailable).toEqual(['b']);
    // a is done and b was dropped from the cursor: the listing ends here.
    expect(second.nextCursor).toBeUndefined();

    // A fresh listing while b is down still serves a, and says so.
    const fresh = pageOf('resources/list', await result(call(gateway, 'resources/list')));
    expect(fresh.items).toEqual(uris('a+test://a/r/', 2));
    expect(fresh.unavailable).toEqual(['b']);
    expect(gateway.status().map((s) => s.name)).toEqual(['a', 'b']);
    expect(gateway.status()[0]?.state).toBe('ready');
    expect(gateway.status()[1]?.state).not.toBe('ready');
  });

  it('starts even when an upstream is unreachable, listing it as unavailable', async () => {
    const gone = await upstream({ name: 'gone' });
    const url = gone.http.url;
    await gone.http.close();
    const a = await upstream({ name: 'a', resources: 1 });
    const gateway = await startGateway([config('a', a), config('gone', url)]);
    const page = pageOf('resources/list', await result(call(gateway, 'resources/list')));
    expect(page.items).toEqual(['a+test://a/r/0']);
    expect(page.unavailable).toEqual(['gone']);
  });
});

describe('Gateway: reads', () => {
  it('routes by prefix and rewrites the content URIs', async () => {
    const a = await upstream({ name: 'a', resources: 3 });
    const b = await upstream({ name: 'b', resources: 3 });
    const gateway = await startGateway([config('a', a), config('b', b)]);

    const fromA = await result(call(gateway, 'resources/read', { uri: 'a+test://a/r/1' }));
    expect(fromA).toEqual({
      contents: [{ uri: 'a+test://a/r/1', mimeType: 'text/plain', text: 'resource 1' }],
    });
    const fromB = await result(call(gateway, 'resources/read', { uri: 'b+test://b/items/x%20y' }));
    expect(fromB).toEqual({
      contents: [{ uri: 'b+test://b/items/x%20y', mimeType: 'text/plain', text: 'item x y' }],
    });
    expect(a.server.stats.requests['resources/read']).toBe(1);
    expect(b.server.stats.requests['resources/read']).toBe(1);
  });

  it('answers resource-not-found for unknown prefixes, unprefixed URIs and missing resources', async () => {
    const a = await upstream({ name: 'a', resources: 3 });
    const gateway = await startGateway([config('a', a)]);

    for (const uri of ['zz+test://a/r/1', 'test://a/r/1', 'A+test://a/r/1']) {
      const error = await failure(call(gateway, 'resources/read', { uri }));
      expect(error.code, uri).toBe(-32602);
      expect(error.reason, uri).toBe('resource_not_found');
      expect(error.data?.uri, uri).toBe(uri);
    }
    // None of those reached the upstream.
    expect(a.server.stats.requests['resources/read']).toBeUndefined();

    const missing = await failure(call(gateway, 'resources/read', { uri: 'a+test://a/r/99' }));
    expect(missing.reason).toBe('resource_not_found');
    expect(missing.data).toMatchObject({ uri: 'a+test://a/r/99', upstream: 'a' });
    expect(missing.message).toContain('a+test://a/r/99');
    expect(a.server.stats.requests['resources/read']).toBe(1);

    for (const params of [{}, { uri: '' }, { uri: 7 }]) {
      const error = await failure(call(gateway, 'resources/read', params));
      expect(error.code).toBe(-32602);
      expect(error.reason).toBeUndefined();
    }
  });

  it('answers method-not-found for methods it does not route and runs middleware around dispatch', async () => {
    const a = await upstream({ name: 'a', resources: 1 });
    const seen: string[] = [];
    const audit: RequestMiddleware = async (ctx, next) => {
      const outcome = await next();
      seen.push(`${ctx.method}:${outcome.ok ? 'ok' : outcome.error.code}`);
      return outcome;
    };
    const gateway = await startGateway([config('a', a)], { middleware: [audit] });
    const error = await failure(call(gateway, 'widgets/list'));
    expect(error.code).toBe(-32601);
    expect(error.message).toContain('tools/call');
    await result(call(gateway, 'resources/read', { uri: 'a+test://a/r/0' }));
    expect(seen).toEqual(['widgets/list:-32601', 'resources/read:ok']);
  });
});

describe('Gateway: subscriptions', () => {
  it('subscribes upstream once per URI and unsubscribes when the last session leaves', async () => {
    const a = await upstream({ name: 'a', resources: 2 });
    const gateway = await startGateway([config('a', a)]);
    const s1 = new RecordingSession('s1');
    const s2 = new RecordingSession('s2');
    gateway.openSession(s1);
    gateway.openSession(s2);
    const uri = 'a+test://a/r/0';

    await result(call(gateway, 'resources/subscribe', { uri }, s1));
    expect(a.server.stats.subscribed).toEqual({ 'test://a/r/0': 1 });
    await result(call(gateway, 'resources/subscribe', { uri }, s2));
    expect(a.server.stats.subscribeCalls).toBe(1);
    expect(a.server.stats.subscribed).toEqual({ 'test://a/r/0': 1 });
    expect(gateway.subscriptionCount).toBe(1);

    await result(call(gateway, 'resources/unsubscribe', { uri }, s1));
    expect(a.server.stats.unsubscribeCalls).toBe(0);
    expect(a.server.stats.subscribed).toEqual({ 'test://a/r/0': 1 });

    await result(call(gateway, 'resources/unsubscribe', { uri }, s2));
    expect(a.server.stats.unsubscribeCalls).toBe(1);
    expect(a.server.stats.subscribed).toEqual({ 'test://a/r/0': 0 });
    expect(gateway.subscriptionCount).toBe(0);
  });

  it('refuses to subscribe to an upstream without subscription support', async () => {
    const a = await upstream({ name: 'a', resources: 1, subscribe: false });
    const gateway = await startGateway([config('a', a)]);
    const error = await failure(call(gateway, 'resources/subscribe', { uri: 'a+test://a/r/0' }));
    expect(error.code).toBe(-32602);
    expect(error.data).toMatchObject({ upstream: 'a', uri: 'a+test://a/r/0' });
    expect(gateway.subscriptionCount).toBe(0);
    expect(a.server.stats.requests['resources/subscribe']).toBeUndefined();
  });

  it('delivers notifications/resources/updated only to the sessions subscribed to that URI', async () => {
    const a = await upstream({ name: 'a', resources: 2 });
    const gateway = await startGateway([config('a', a)]);
    const s1 = new RecordingSession('s1');
    const s2 = new RecordingSession('s2');
    gateway.openSession(s1);
    gateway.openSession(s2);
    await result(call(gateway, 'resources/subscribe', { uri: 'a+test://a/r/0' }, s1));
    await result(call(gateway, 'resources/subscribe', { uri: 'a+test://a/r/1' }, s2));

    // Both updates travel the same upstream stream in order, so once s2 has r/1 it would already hold r/0
    // had it been (wrongly) delivered to it.
    await a.server.triggerUpdated('test://a/r/0');
    await a.server.triggerUpdated('test://a/r/1');
    await s1.until(() => s1.updates().length >= 1, 'update for r/0');
    await s2.until(() => s2.updates().length >= 1, 'update for r/1');
    expect(s1.updates()).toEqual(['a+test://a/r/0']);
    expect(s2.updates()).toEqual(['a+test://a/r/1']);
  });

  it('closeSession releases the session subscriptions and stops its notifications', async () => {
    const a = await upstream({ name: 'a', resources: 2 });
    const gateway = await startGateway([config('a', a)]);
    const s1 = new RecordingSession('s1');
    const s2 = new RecordingSession('s2');
    gateway.openSession(s1);
    gateway.openSession(s2);
    await result(call(gateway, 'resources/subscribe', { uri: 'a+test://a/r/0' }, s1));
    await result(call(gateway, 'resources/subscribe', { uri: 'a+test://a/r/1' }, s1));
    await result(call(gateway, 'resources/subscribe', { uri: 'a+test://a/r/0' }, s2));
    expect(gateway.subscriptionCount).toBe(2);
    expect(gateway.sessionCount).toBe(2);

    await gateway.closeSession('s1');
    expect(gateway.sessionCount).toBe(1);
    expect(gateway.subscriptionCount).toBe(1);
    expect(a.server.stats.subscribed).toEqual({ 'test://a/r/0': 1, 'test://a/r/1': 0 });

    await a.server.triggerUpdated('test://a/r/0');
    await s2.until(() => s2.updates().length >= 1, 'update for r/0');
    expect(s1.updates()).toEqual([]);

    await gateway.closeSession('s2');
    await gateway.closeSession('s2');
    await gateway.closeSession('never-opened');
    expect(gateway.subscriptionCount).toBe(0);
    expect(a.server.stats.subscribed).toEqual({ 'test://a/r/0': 0, 'test://a/r/1': 0 });
    expect(a.server.stats.unsubscribeCalls).toBe(2);
  });

  // closeSession releases what the table holds now; a subscribe still in flight must not outlive it.
  it('does not keep a subscription that lands after its session closed', async () => {
    const a = await upstream({ name: 'a', resources: 1 });
    let enter!: () => void;
    const entered = new Promise<void>((resolve) => {
      enter = resolve;
    });
    let release!: () => void;
    const gate = new Promise<void>((resolve) => {
      release = resolve;
    });
    const slowPolicy: RequestMiddleware = async (ctx, next) => {
      if (ctx.method === 'resources/subscribe') {
        enter();
        await gate;
      }
      return next();
    };
    const gateway = await startGateway([config('a', a)], { middleware: [slowPolicy] });
    const s1 = new RecordingSession('s1');
    gateway.openSession(s1);
    const pending = call(gateway, 'resources/subscribe', { uri: 'a+test://a/r/0' }, s1);
    await within(entered, 5000, 'subscribe reaching the middleware');
    await gateway.closeSession('s1');
    release();
    await pending;
    expect(gateway.subscriptionCount).toBe(0);
    expect(a.server.stats.subscribed['test://a/r/0'] ?? 0).toBe(0);
  });
});
