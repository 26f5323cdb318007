import { existsSync } from 'node:fs';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { controlClient, eventually } from '../src/index.js';
import { Cleanup } from './helpers.js';
import {
  CLI,
  controlFilePath,
  INITIALIZE,
  type Json,
  modernRequest,
  RawStdio,
  readControlUrl,
  request,
  textOf,
  toolCall,
} from './misbehave-wire.js';

const cleanup = new Cleanup();
afterEach(() => cleanup.run());

beforeAll(() => {
  if (!existsSync(CLI))
    throw new Error(`${CLI} is missing: build first (pnpm --filter @switchyard/testkit build)`);
});

const MALFORMED = [
  ['notifications/resources/updated', {}],
  ['notifications/resources/updated', { uri: 42 }],
  ['notifications/progress', { progressToken: {}, progress: 'x' }],
  ['notifications/message', { level: 42 }],
  ['notifications/tools/list_changed', 'oops'],
  ['notifications/x-unknown', {}],
];

const misbehave = (...modes: string[]): string[] => modes.flatMap((mode) => ['--misbehave', mode]);

/** Opens a 2025 session on a process without wire modes. */
async function initialize(stdio: RawStdio): Promise<Json> {
  const { response } = await stdio.exchange(INITIALIZE);
  stdio.send({ jsonrpc: '2.0', method: 'notifications/initialized' });
  return response;
}

describe('misbehave over stdio: the wire modes', () => {
  it('frames every response with noise, an unknown id, a duplicate and malformed notifications; the next request is still answered', async () => {
    const controlFile = await controlFilePath(cleanup);
    const stdio = new RawStdio(
      [
        ...misbehave('stdout-noise', 'unknown-ids', 'duplicate-ids', 'malformed-notifications', 'http-500'),
        '--control-file',
        controlFile,
      ],
      cleanup,
    );
    expect(await stdio.line()).toBe('Starting misbehaving server v0.0.1...');
    stdio.send(INITIALIZE);
    expect(await stdio.line()).toBe('DEBUG: handled initialize');
    expect(await stdio.line()).toBe('{"jsonrpc":');
    const [unknown, response, duplicate, ...notifications] = await stdio.messages(9);
    expect(unknown).toEqual({ jsonrpc: '2.0', id: 'unknown-1', result: {} });
    expect(response).toMatchObject({ id: 0, result: { serverInfo: { name: 'testkit' } } });
    expect(duplicate).toEqual(response);
    expect(notifications.map((n) => [n.method, n.params])).toEqual(MALFORMED);
    // http-500 means nothing on stdio: warned about and ignored (no http_500 tool, hence no tools at all).
    expect(response?.result).not.toHaveProperty('capabilities.tools');
    expect(stdio.stderr).toContain('--misbehave http-500 has no meaning on stdio');

    stdio.send({ jsonrpc: '2.0', method: 'notifications/initialized' });
    stdio.send(request(1, 'resources/read', { uri: 'test://testkit/r/3' }));
    expect(await stdio.line()).toBe('DEBUG: handled resources/read');
    expect(await stdio.line()).toBe('{"jsonrpc":');
    const [unknown2, read, again] = await stdio.messages(3);
    expect(unknown2).toEqual({ jsonrpc: '2.0', id: 'unknown-2', result: {} });
    expect(read).toEqual({
      jsonrpc: '2.0',
      id: 1,
      result: { contents: [{ uri: 'test://testkit/r/3', mimeType: 'text/plain', text: 'resource 3' }] },
    });
    expect(again).toEqual(read);
    const stats = await controlClient(await readControlUrl(controlFile)).stats();
    expect(stats).toMatchObject({ handshakes: 1, requests: { initialize: 1, 'resources/read': 1 } });
  });

  it('no-result-type and repeating-cursor on the modern era', async () => {
    const stdio = new RawStdio(
      [
        '--modern',
        '--resources',
        '3',
        '--page-size',
        '2',
        ...misbehave('no-result-type', 'repeating-cursor'),
      ],
      cleanup,
    );
    const { response: discover } = await stdio.exchange(modernRequest(1, 'server/discover'));
    expect(discover.result).toMatchObject({ supportedVersions: ['2026-07-28'] });
    expect(discover.result).not.toHaveProperty('resultType');
    for (const cursor of [undefined, 'again', 'again']) {
      const { response } = await stdio.exchange(
        modernRequest(2, 'resources/list', cursor === undefined ? {} : { cursor }),
      );
      const result = response.result as Json;
      expect((result.resources as Json[]).map((r) => r.uri)).toEqual([
        'test://testkit/r/0',
        'test://testkit/r/1',
      ]);
      expect(result.nextCursor).toBe('again');
      expect(result).not.toHaveProperty('resultType');
    }
    const { response: read } = await stdio.exchange(
      modernRequest(3, 'resources/read', { uri: 'test://testkit/r/2' }),
    );
    expect(read.result).toMatchObject({ contents: [{ text: 'resource 2' }] });
    expect(read.result).not.toHaveProperty('resultType');
  });

  it('hang-handshake reads and counts everything and answers nothing; the control API still serves', async () => {
    const controlFile = await controlFilePath(cleanup);
    const stdio = new RawStdio(
      [...misbehave('hang-handshake'), '--modern', '--control-file', controlFile],
      cleanup,
    );
    const control = controlClient(await readControlUrl(controlFile));
    stdio.send(INITIALIZE);
    stdio.send(modernRequest(1, 'server/discover'));
    stdio.send(request(2, 'ping'));
    const stats = await eventually(async () => {
      const now = await control.stats();
      return now.requests.ping === 1 && now;
    }, 'all three requests counted');
    expect(stats).toMatchObject({
      handshakes: 2,
      requests: { initialize: 1, 'server/discover': 1, ping: 1 },
    });
    // A few more control round trips: an answer, had there been one, would long be on stdout.
    for (let i = 0; i < 5; i++) await control.stats();
    expect(stdio.unread).toBe(0);
    expect(stdio.child.exitCode).toBeNull();
  });

  it('rejects an unknown mode with the usage text', async () => {
    const stdio = new RawStdio(misbehave('be-nice'), cleanup);
    const code = await new Promise<number | null>((done) => stdio.child.once('exit', done));
    expect(code).toBe(2);
    expect(stdio.stderr).toContain("unknown misbehave mode 'be-nice'");
    expect(stdio.stderr).toContain('--misbehave MODE');
  });
});

describe('misbehave over stdio: the tool and listing modes (2025 era)', () => {
  const shared = new Cleanup();
  let stdio: RawStdio;
  let id = 100;

  beforeAll(async () => {
    stdio = new RawStdio(
      [
        '--behavior-tools',
        '--prompts',
        '1',
        ...misbehave(
          'invalid-result',
          'huge-result',
          'bad-tool-names',
          'endless-cursor',
          'list-changed-burst',
          'server-requests',
        ),
      ],
      shared,
    );
    await initialize(stdio);
  });
  afterAll(() => shared.run());

  it('lists the bad names and the misbehave tools after the others; every list cursor is new', async () => {
    const { response } = await stdio.exchange(request(++id, 'tools/list'));
    const result = response.result as { tools: Json[]; nextCursor: string };
    const names = result.tools.map((t) => t.name);
    expect(names.slice(0, 6)).toEqual([
      'my.tool',
      'my tool',
      'my/tool',
      'my_tool',
      'ünïcødé',
      'x'.repeat(100),
    ]);
    expect(names.slice(-6)).toEqual(['log', 'invalid_result', 'non_object_result', 'huge', 'burst', 'ask']);
    expect(result.nextCursor).toBe('page-1');
    const next = await stdio.exchange(request(++id, 'tools/list', { cursor: 'page-1' }));
    expect((next.response.result as Json).nextCursor).toBe('page-2');
    expect((next.response.result as { tools: Json[] }).tools).toHaveLength(names.length);
    for (const [method, cursor, expected] of [
      ['resources/list', undefined, 'page-1'],
      ['resources/templates/list', 'page-41', 'page-42'],
      ['prompts/list', 'not-ours', 'page-1'],
    ] as const) {
      const page = await stdio.exchange(request(++id, method, cursor === undefined ? {} : { cursor }));
      expect((page.response.result as Json).nextCursor).toBe(expected);
    }
    const echoed = await stdio.exchange(toolCall(++id, 'my tool', { text: 'hi' }));
    expect(echoed.response.result).toMatchObject({
      structuredContent: { tool: 'my tool', arguments: { text: 'hi' } },
    });
  });

  it('invalid_result and non_object_result break the result schema; echo right after is fine', async () => {
    const invalid = await stdio.exchange(toolCall(++id, 'invalid_result'));
    expect(invalid.response).toEqual({ jsonrpc: '2.0', id, result: { content: 'not-an-array' } });
    const nonObject = await stdio.exchange(toolCall(++id, 'non_object_result'));
    expect(nonObject.response).toEqual({ jsonrpc: '2.0', id, result: 'not an object' });
    const echo = await stdio.exchange(toolCall(++id, 'echo', { n: 1 }));
    expect(echo.response.result).toMatchObject({ structuredContent: { tool: 'echo', arguments: { n: 1 } } });
  });

  it('huge answers 40 MiB by default, and what it is asked for', async () => {
    const huge = await stdio.exchange(toolCall(++id, 'huge'), 15_000);
    expect((textOf(huge.response) as string).length).toBe(41_943_040);
    const small = await stdio.exchange(toolCall(++id, 'huge', { bytes: 5 }));
    expect(textOf(small.response)).toBe('xxxxx');
  });

  it('burst sends 2000 tools/list_changed by default, or count of kind', async () => {
    const burst = await stdio.exchange(toolCall(++id, 'burst'));
    expect(burst.before).toHaveLength(2000);
    expect(new Set(burst.before.map((n) => n.method))).toEqual(new Set(['notifications/tools/list_changed']));
    expect(textOf(burst.response)).toBe('burst sent 2000');
    const resources = await stdio.exchange(toolCall(++id, 'burst', { count: 3, kind: 'resources' }));
    expect(resources.before.map((n) => n.method)).toEqual(
      Array(3).fill('notifications/resources/list_changed'),
    );
    expect(textOf(resources.response)).toBe('burst sent 3');
  });

  it('ask sends a server-to-client request and reports the answer or the error', async () => {
    const ask = async (args: Json, answer: (req: Json) => Json): Promise<unknown> => {
      const callId = ++id;
      stdio.send(toolCall(callId, 'ask', args));
      const serverRequest = JSON.parse(await stdio.line()) as Json;
      expect(serverRequest.method).toBe(args.method);
      stdio.send({ jsonrpc: '2.0', id: serverRequest.id, ...answer(serverRequest) });
      const response = JSON.parse(await stdio.line()) as Json;
      expect(response.id).toBe(callId);
      return textOf(response);
    };
    const roots = [{ uri: 'file:///work', name: 'work' }];
    expect(await ask({ method: 'roots/list' }, () => ({ result: { roots } }))).toBe(
      `answered: ${JSON.stringify({ roots })}`,
    );
    expect(
      await ask({ method: 'x/custom' }, () => ({ error: { code: -32601, message: 'Method not found' } })),
    ).toBe('error -32601: Method not found');
    let sampling: Json | undefined;
    const sampled = await ask({ method: 'sampling/createMessage', unrelated: true }, (req) => {
      sampling = req;
      return { result: { role: 'assistant', content: { type: 'text', text: 'hi' }, model: 'm' } };
    });
    expect(sampled).toContain('answered: {"role":"assistant"');
    expect(sampling?.params).toMatchObject({ maxTokens: 50, messages: [{ role: 'user' }] });
  });
});
