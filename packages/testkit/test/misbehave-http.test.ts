import { existsSync } from 'node:fs';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { controlClient, eventually, TestServer, type TestServerOptions } from '../src/index.js';
import { Cleanup } from './helpers.js';
import {
  CLI,
  INITIALIZE,
  type Json,
  legacySession,
  MODERN,
  modernRequest,
  post,
  postRaw,
  request,
  SseStream,
  spawnHttpCli,
  textOf,
  toolCall,
} from './misbehave-wire.js';

const cleanup = new Cleanup();
afterEach(() => cleanup.run());

beforeAll(() => {
  if (!existsSync(CLI))
    throw new Error(`${CLI} is missing: build first (pnpm --filter @switchyard/testkit build)`);
});

const MALFORMED_METHODS = [
  'notifications/resources/updated',
  'notifications/resources/updated',
  'notifications/progress',
  'notifications/message',
  'notifications/tools/list_changed',
  'notifications/x-unknown',
];

async function startServer(
  options: TestServerOptions,
  owner: Cleanup,
): Promise<{ server: TestServer; url: string }> {
  const server = new TestServer({ modern: true, ...options });
  owner.add(() => server.close());
  const http = await server.listenHttp();
  return { server, url: http.url };
}

describe('misbehave over HTTP: the response modes (CLI, both eras)', () => {
  it('frames every response with an unknown id, a duplicate and malformed notifications; invalid results go out', async () => {
    const cli = await spawnHttpCli(
      [
        '--modern',
        ...[
          'unknown-ids',
          'duplicate-ids',
          'malformed-notifications',
          'invalid-result',
          'stdout-noise',
        ].flatMap((mode) => ['--misbehave', mode]),
      ],
      cleanup,
    );
    expect(cli.stderr()).toContain('--misbehave stdout-noise has no meaning on http');

    // 2025 era, SSE answers of a session.
    const init = await post(cli.url, INITIALIZE);
    expect(init.contentType).toBe('text/event-stream');
    const [unknown, response, duplicate, ...notifications] = init.messages;
    expect(unknown).toEqual({ jsonrpc: '2.0', id: 'unknown-1', result: {} });
    expect(response).toMatchObject({ id: 0, result: { serverInfo: { name: 'testkit' } } });
    expect(duplicate).toEqual(response);
    expect(notifications.map((n) => n.method)).toEqual(MALFORMED_METHODS);
    expect(notifications[4]?.params).toBe('oops');

    const session = await legacySession(cli.url);
    const invalid = await post(cli.url, toolCall(1, 'invalid_result'), session);
    expect(invalid.messages.slice(1, 3)).toEqual([
      { jsonrpc: '2.0', id: 1, result: { content: 'not-an-array' } },
      { jsonrpc: '2.0', id: 1, result: { content: 'not-an-array' } },
    ]);
    const read = await post(cli.url, request(2, 'resources/read', { uri: 'test://testkit/r/1' }), session);
    expect(read.messages[1]).toMatchObject({ id: 2, result: { contents: [{ text: 'resource 1' }] } });

    // Modern era: a JSON answer that became several messages is streamed instead.
    const discover = await post(cli.url, modernRequest(3, 'server/discover'));
    expect(discover.status).toBe(200);
    expect(discover.contentType).toBe('text/event-stream');
    expect(discover.messages.map((m) => m.id ?? m.method)).toEqual([
      expect.stringMatching(/^unknown-\d+$/),
      3,
      3,
      ...MALFORMED_METHODS,
    ]);
    expect(discover.messages[1]?.result).toMatchObject({
      resultType: 'complete',
      supportedVersions: [MODERN],
    });
    const nonObject = await post(cli.url, toolCall(4, 'non_object_result', {}, true));
    expect(nonObject.messages[1]).toEqual({ jsonrpc: '2.0', id: 4, result: 'not an object' });
    const modernInvalid = await post(cli.url, toolCall(5, 'invalid_result', {}, true));
    expect(modernInvalid.messages[1]).toEqual({
      jsonrpc: '2.0',
      id: 5,
      result: { content: 'not-an-array', resultType: 'complete' },
    });
    const list = await post(cli.url, modernRequest(6, 'resources/list'));
    expect(list.messages[1]).toMatchObject({
      id: 6,
      result: { resultType: 'complete', resources: expect.any(Array) },
    });

    expect(await controlClient(cli.controlUrl).stats()).toMatchObject({
      handshakes: 3,
      requests: { initialize: 2, 'server/discover': 1 },
    });
  });
});

describe('misbehave over HTTP: results, lists, tools (in-process)', () => {
  const shared = new Cleanup();
  let url: string;
  let server: TestServer;

  beforeAll(async () => {
    ({ server, url } = await startServer(
      {
        tools: 1,
        resources: 3,
        pageSize: 2,
        misbehave: [
          'no-result-type',
          'repeating-cursor',
          'http-500',
          'list-changed-burst',
          'server-requests',
          'huge-result',
        ],
      },
      shared,
    ));
  });
  afterAll(() => shared.run());

  it('modern results lose resultType (JSON bodies rewritten), 2025 ones are untouched; lists repeat their cursor', async () => {
    const modern = await post(url, modernRequest(1, 'resources/list', { cursor: 'again' }));
    expect(modern.contentType).toBe('application/json');
    expect(modern.messages).toEqual([
      {
        jsonrpc: '2.0',
        id: 1,
        result: expect.objectContaining({
          resources: [
            expect.objectContaining({ uri: 'test://testkit/r/0' }),
            expect.objectContaining({ uri: 'test://testkit/r/1' }),
          ],
          nextCursor: 'again',
        }),
      },
    ]);
    expect(modern.messages[0]?.result).not.toHaveProperty('resultType');
    const tools = await post(url, modernRequest(2, 'tools/list'));
    expect(tools.messages[0]?.result).toMatchObject({ nextCursor: 'again' });
    expect(tools.messages[0]?.result).not.toHaveProperty('resultType');

    const session = await legacySession(url);
    const legacy = await post(url, request(3, 'resources/templates/list', { cursor: 'again' }), session);
    expect(legacy.messages).toEqual([
      {
        jsonrpc: '2.0',
        id: 3,
        result: { resourceTemplates: [expect.objectContaining({ name: 't0' })], nextCursor: 'again' },
      },
    ]);
  });

  it('http-500 answers a call of http_500 with an HTML 500 page in both eras; the next call is served', async () => {
    const session = await legacySession(url);
    for (const [call, headers] of [
      [toolCall(10, 'http_500'), session],
      [toolCall(11, 'http_500', {}, true), {}],
    ] as const) {
      const failed = await post(url, call, headers);
      expect(failed.status).toBe(500);
      expect(failed.contentType).toMatch(/^text\/html/);
      expect(failed.text).toContain('<h1>Internal Server Error</h1>');
    }
    const next = await post(url, toolCall(12, 'tool_0', { a: 1 }), session);
    expect(next.messages[0]).toMatchObject({ id: 12, result: { structuredContent: { tool: 'tool_0' } } });
    const modernNext = await post(url, toolCall(13, 'tool_0', {}, true));
    expect(modernNext.messages[0]).toMatchObject({
      id: 13,
      result: { structuredContent: { tool: 'tool_0' } },
    });
    expect(server.stats.toolCalls.http_500).toBe(2);
  });

  it('http-500 answers a call of http_429 with a 429 and Retry-After: 7 in both eras', async () => {
    const session = await legacySession(url);
    for (const [call, headers] of [
      [toolCall(14, 'http_429'), session],
      [toolCall(15, 'http_429', {}, true), {}],
    ] as const) {
      const failed = await postRaw(url, call, headers);
      expect(failed.status).toBe(429);
      expect(failed.headers.get('retry-after')).toBe('7');
      await failed.text();
    }
    expect(server.stats.toolCalls.http_429).toBe(2);
  });

  it('burst: 2000 list_changed on the call stream (2025), to the listen streams (modern)', async () => {
    const session = await legacySession(url);
    const legacy = await post(url, toolCall(20, 'burst'), session);
    expect(legacy.messages).toHaveLength(2001);
    expect(legacy.messages.slice(0, 2000).every((m) => m.method === 'notifications/tools/list_changed')).toBe(
      true,
    );
    expect(textOf(legacy.messages[2000] as Json)).toBe('burst sent 2000');

    const listen = new SseStream(
      await postRaw(
        url,
        modernRequest(21, 'subscriptions/listen', { notifications: { resourcesListChanged: true } }),
      ),
    );
    cleanup.add(() => listen.cancel());
    expect((await listen.next()).method).toBe('notifications/subscriptions/acknowledged');
    const modern = await post(url, toolCall(22, 'burst', { count: 5, kind: 'resources' }, true));
    expect(textOf(modern.messages[0] as Json)).toBe('burst sent 5');
    for (let i = 0; i < 5; i++)
      expect((await listen.next()).method).toBe('notifications/resources/list_changed');
  });

  it('ask: a request on the call stream, or unrelated on the GET stream (2025); not on the modern era', async () => {
    const session = await legacySession(url);
    const related = new SseStream(
      await postRaw(url, toolCall(30, 'ask', { method: 'elicitation/create' }), session),
    );
    cleanup.add(() => related.cancel());
    const elicitation = await related.next();
    expect(elicitation).toMatchObject({
      method: 'elicitation/create',
      params: { message: 'What is your answer?' },
    });
    const answer = { action: 'accept', content: { answer: '42' } };
    expect((await post(url, { jsonrpc: '2.0', id: elicitation.id, result: answer }, session)).status).toBe(
      202,
    );
    expect(textOf(await related.next())).toBe(`answered: ${JSON.stringify(answer)}`);

    const standalone = new SseStream(
      await fetch(url, { headers: { accept: 'text/event-stream', ...session } }),
    );
    cleanup.add(() => standalone.cancel());
    const unrelated = post(url, toolCall(31, 'ask', { method: 'x/custom', unrelated: true }), session);
    const custom = await standalone.next();
    expect(custom).toMatchObject({ method: 'x/custom', params: {} });
    await post(
      url,
      { jsonrpc: '2.0', id: custom.id, error: { code: -32601, message: 'Method not found' } },
      session,
    );
    expect(textOf((await unrelated).messages[0] as Json)).toBe('error -32601: Method not found');

    const modern = await post(url, toolCall(32, 'ask', { method: 'roots/list' }, true));
    expect(textOf(modern.messages[0] as Json)).toBe('ask needs the 2025 era');
  });

  it('huge answers 40 MiB through the rewriting layer', async () => {
    const huge = await post(url, toolCall(33, 'huge', {}, true));
    expect(huge.status).toBe(200);
    expect((textOf(huge.messages[0] as Json) as string).length).toBe(41_943_040);
    expect(huge.messages[0]?.result).not.toHaveProperty('resultType');
  });
});

describe('misbehave over HTTP: hang-handshake (in-process)', () => {
  it('holds initialize and server/discover open forever, counted; the control API still answers', async () => {
    const { server, url } = await startServer({ misbehave: ['hang-handshake'] }, cleanup);
    const abort = new AbortController();
    cleanup.add(() => abort.abort());
    const legacy = post(url, INITIALIZE, {}, abort.signal);
    const modern = post(url, modernRequest(1, 'server/discover'), {}, abort.signal);
    await eventually(() => server.stats.handshakes === 2, 'both handshakes counted');
    const controlUrl = url.replace(/\/mcp$/, '/control');
    expect(await controlClient(controlUrl).stats()).toMatchObject({
      handshakes: 2,
      requests: { initialize: 1, 'server/discover': 1 },
    });
    let settled = false;
    void Promise.allSettled([legacy, modern]).then(() => {
      settled = true;
    });
    await controlClient(controlUrl).stats();
    expect(settled).toBe(false);
    abort.abort();
    await expect(legacy).rejects.toThrow();
    await expect(modern).rejects.toThrow();
  });
});
