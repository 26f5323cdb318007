import type { AddressInfo } from 'node:net';
import { Client, InMemoryTransport } from '@modelcontextprotocol/client';
import { Server } from '@modelcontextprotocol/server';
import { afterEach, describe, expect, it } from 'vitest';
import { WebSocketServer } from 'ws';
import type { SessionSink } from '../src/context.js';
import { MergedCursorCodec } from '../src/cursor.js';
import { openSession } from '../src/downstream/session.js';
import { Gateway } from '../src/gateway.js';
import { cursorKeyMaterial } from '../src/listing/merged.js';
import { silentLogger } from '../src/logger.js';
import { testRequest } from '../src/testing.js';
import { WebSocketSessionTransport } from '../src/transports/downstream/ws-session-transport.js';
import { MCP_WS_SUBPROTOCOL } from '../src/transports/websocket.js';

// Upstreams that put freshness hints (ttlMs/cacheScope) on their list pages, served over WebSocket
// in-process: the core merges the hints of the pages it combines, and one enumeration keeps one scope.

const cleanup: Array<() => Promise<unknown>> = [];
afterEach(async () => {
  for (const task of cleanup.splice(0).reverse()) await task().catch(() => undefined);
});

interface HintedUpstream {
  name: string;
  pages: number;
  ttlMs: number;
  cacheScope: 'public' | 'private';
}

async function hintedUpstream(spec: HintedUpstream): Promise<string> {
  const wss = new WebSocketServer({
    port: 0,
    host: '127.0.0.1',
    handleProtocols: (p) => (p.has(MCP_WS_SUBPROTOCOL) ? MCP_WS_SUBPROTOCOL : false),
  });
  await new Promise<void>((resolve) => wss.once('listening', () => resolve()));
  wss.on('connection', (socket) => {
    const server = new Server({ name: spec.name, version: '1' }, { capabilities: { resources: {} } });
    server.setRequestHandler('resources/list', (request) => {
      const page = request.params?.cursor === undefined ? 0 : Number(request.params.cursor);
      const resources = [{ uri: `hint://${spec.name}/${page}`, name: `p${page}` }];
      const nextCursor = page + 1 < spec.pages ? String(page + 1) : undefined;
      return {
        resources,
        ttlMs: spec.ttlMs,
        cacheScope: spec.cacheScope,
        ...(nextCursor ? { nextCursor } : {}),
      };
    });
    void server.connect(new WebSocketSessionTransport(socket));
  });
  cleanup.push(
    () =>
      new Promise<void>((resolve) => {
        for (const client of wss.clients) client.terminate();
        wss.close(() => resolve());
      }),
  );
  return `ws://127.0.0.1:${(wss.address() as AddressInfo).port}/`;
}

async function gatewayOver(specs: HintedUpstream[]): Promise<Gateway> {
  return (await gatewayAndConfigOver(specs)).gateway;
}

async function gatewayAndConfigOver(specs: HintedUpstream[]) {
  const upstreams = await Promise.all(
    specs.map(async (spec) => ({
      name: spec.name,
      prefix: true,
      timeoutMs: 5_000,
      transport: { kind: 'ws' as const, url: await hintedUpstream(spec), headers: {} },
    })),
  );
  const gateway = new Gateway({ upstreams, logger: silentLogger });
  cleanup.push(() => gateway.close());
  await gateway.start();
  return { gateway, upstreams };
}

const session: SessionSink = {
  id: 's',
  transport: 'memory',
  identity: { id: 'test', groups: [], anonymous: true },
  notify: async () => {},
};

async function list(gateway: Gateway, cursor?: string): Promise<Record<string, unknown>> {
  const outcome = await gateway.handle(
    testRequest('resources/list', cursor === undefined ? {} : { cursor }, { session }),
  );
  if (!outcome.ok) throw outcome.error;
  return outcome.result;
}

describe('freshness hints on merged listings', () => {
  it('merges ttlMs (minimum) and cacheScope (public only if every page is public)', async () => {
    const gateway = await gatewayOver([
      { name: 'a', pages: 1, ttlMs: 60_000, cacheScope: 'public' },
      { name: 'b', pages: 1, ttlMs: 5_000, cacheScope: 'public' },
    ]);
    const page = await list(gateway);
    expect(page).toMatchObject({ ttlMs: 5_000, cacheScope: 'public' });
    expect((page.resources as unknown[]).length).toBe(2);
  });

  it('keeps the scope the enumeration started with on every later page', async () => {
    // b is private and has one page; a is public with three. Page 1 is private, and so are pages 2
    // and 3 although only public a contributes to them.
    const gateway = await gatewayOver([
      { name: 'a', pages: 3, ttlMs: 60_000, cacheScope: 'public' },
      { name: 'b', pages: 1, ttlMs: 60_000, cacheScope: 'private' },
    ]);
    const scopes: unknown[] = [];
    let cursor: string | undefined;
    do {
      const page = await list(gateway, cursor);
      scopes.push(page.cacheScope);
      cursor = page.nextCursor as string | undefined;
    } while (cursor);
    expect(scopes).toEqual(['private', 'private', 'private']);
  });

  it('rejects a correctly signed cursor whose pinned scope is not a scope', async () => {
    const { gateway, upstreams } = await gatewayAndConfigOver([
      { name: 'a', pages: 2, ttlMs: 1_000, cacheScope: 'public' },
    ]);
    const first = await list(gateway);
    expect(first.cacheScope).toBe('public');
    // Signed like the gateway signs: its upstream set, and the (absent) cursorSecret.
    const codec = new MergedCursorCodec(
      cursorKeyMaterial(
        upstreams.map((config) => ({ name: config.name, config })),
        '',
      ),
    );
    const state = codec.decode('r', first.nextCursor);
    expect(state).toEqual({ positions: { a: { cursor: '1', pages: 1, seen: [] } }, scope: 'public' });
    await expect(list(gateway, codec.encode('r', { ...state, scope: 'shared' }))).rejects.toMatchObject({
      code: -32602,
      data: { reason: 'invalid_cursor' },
    });
  });

  it('never shows the modern-only fields to a legacy client', async () => {
    const gateway = await gatewayOver([{ name: 'a', pages: 1, ttlMs: 60_000, cacheScope: 'public' }]);
    expect(await list(gateway)).toMatchObject({ ttlMs: 60_000, cacheScope: 'public' });
    const [clientSide, serverSide] = InMemoryTransport.createLinkedPair();
    const session = openSession(gateway, { transport: 'memory' });
    cleanup.push(() => session.close());
    await session.connect(serverSide);
    const client = new Client({ name: 'legacy', version: '1' });
    cleanup.push(() => client.close());
    await client.connect(clientSide);
    expect(client.getProtocolEra()).toBe('legacy');
    const page = (await client.request({ method: 'resources/list', params: {} })) as Record<string, unknown>;
    expect(page.resources).toEqual([{ uri: 'a+hint://a/0', name: 'p0' }]);
    expect(page).not.toHaveProperty('ttlMs');
    expect(page).not.toHaveProperty('cacheScope');
    expect(page).not.toHaveProperty('resultType');
  });
});
