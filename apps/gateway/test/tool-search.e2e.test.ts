import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import type { Client } from '@modelcontextprotocol/client';
import type { TestServer } from '@switchyard/testkit';
import { LegacyHttpClient } from '@switchyard/testkit/mcp';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import {
  Cleanup,
  connectHttp,
  eventually,
  type GatewayProcess,
  httpUpstream,
  startGateway,
  tempDir,
} from './support/harness.js';
import { type ClientEra, connectOverHttp, interactiveClient } from './support/interactive.js';
import { PUBLISHED_CLI } from './support/published.js';

// Tool search (DESIGN §13) through the real CLI, over published servers (filesystem, memory, everything)
// and a testkit upstream (`kit`, with behaviour tools), the access and audit plugins on top. A search
// answers per caller: what it may not list is never found and never called; call_tool is the tools/call
// of the tool it names in every respect.

const shared = new Cleanup();
const cleanup = new Cleanup();
afterEach(() => cleanup.run());
afterAll(() => shared.run());

const TOKENS = { alice: 'alice-token', bob: 'bob-token' };
let gw: GatewayProcess;
let kit: TestServer;
let auditFile = '';

beforeAll(async () => {
  const dir = await tempDir(shared);
  auditFile = join(dir, 'audit.jsonl');
  const kitUp = await httpUpstream(shared, { name: 'kit', tools: 2, behaviorTools: true });
  kit = kitUp.server;
  gw = await startGateway(shared, {
    listen: { http: { host: '127.0.0.1', port: 0, path: '/mcp' } },
    clients: { alice: { token: TOKENS.alice }, bob: { token: TOKENS.bob, groups: ['restricted'] } },
    mcpServers: {
      files: { command: process.execPath, args: [PUBLISHED_CLI.filesystem, dir] },
      memory: {
        command: process.execPath,
        args: [PUBLISHED_CLI.memory],
        env: { MEMORY_FILE_PATH: join(dir, 'm.json') },
      },
      everything: { command: process.execPath, args: [PUBLISHED_CLI.everything] },
      kit: { url: kitUp.url },
    },
    toolSearch: { limit: 5, alwaysList: ['files__read_text_file'] },
    virtualServers: { kb: { servers: ['memory'], toolSearch: { alwaysList: [] } } },
    plugins: [
      ['@switchyard/plugin-audit', { file: auditFile, fsync: 'always' }],
      [
        '@switchyard/plugin-access',
        {
          default: 'allow',
          rules: [
            { effect: 'deny', groups: ['restricted'], tools: ['files__write_file', 'memory__delete_*'] },
          ],
        },
      ],
    ],
  });
}, 60_000);

const connect = (token = TOKENS.alice, path = '') =>
  connectHttp(cleanup, `${gw.url}${path}`, 'search-test', { token });

type Found = { name: string; description?: string; inputSchema?: unknown };
async function search(client: Client, query: string, limit?: number): Promise<Found[]> {
  const result = (await client.callTool({
    name: 'search_tools',
    arguments: limit === undefined ? { query } : { query, limit },
  })) as { structuredContent: { tools: Found[] }; content: { type: string; text: string }[] };
  expect(JSON.parse(result.content[0]!.text)).toEqual({ tools: result.structuredContent.tools });
  return result.structuredContent.tools;
}

function audit(): Record<string, unknown>[] {
  return readFileSync(auditFile, 'utf8')
    .trim()
    .split('\n')
    .map((line) => JSON.parse(line) as Record<string, unknown>);
}

describe('the listing tool search makes of what its caller may use', () => {
  // First in the file: nobody's tools are listed yet, so this call_tool makes the gateway list them.
  it("is the gateway's own: a call_tool gets one audit record, its own, and no tools/list of the client's", async () => {
    // Found from outside: the listing was audited as the client's tools/list and cost a rate-limit token.
    const session = await LegacyHttpClient.open(gw.url, {
      clientName: 'raw',
      headers: { authorization: `Bearer ${TOKENS.bob}` },
    });
    cleanup.add(() => session.close());
    const answer = await session.request({
      method: 'tools/call',
      params: { name: 'call_tool', arguments: { name: 'kit__tool_0', arguments: { text: 'x' } } },
    });
    expect(answer).toMatchObject({ content: [{ type: 'text' }] });
    const records = () => audit().filter((r) => r.session === session.sessionId);
    await eventually(() => records().some((r) => r.method === 'tools/call'), 'the call_tool record');
    expect(records().map((r) => [r.method, r.tool])).toEqual([['tools/call', 'kit__tool_0']]);
  });
});

describe.each(['legacy', 'modern'] as ClientEra[])('a %s client', (era) => {
  const client = async (token = TOKENS.alice) => {
    const { client: c, inputs } = interactiveClient(era);
    await connectOverHttp(cleanup, c, gw.url, token);
    return { client: c, inputs };
  };

  it('lists the alwaysList tools and the two search tools, and finds tools by what they do', async () => {
    const { client: c } = await client();
    const { tools } = await c.listTools();
    expect(tools.map((t) => t.name)).toEqual(['files__read_text_file', 'search_tools', 'call_tool']);
    const found = await search(c, 'show me what is inside a folder');
    expect(found.map((t) => t.name)).toContain('files__list_directory');
    expect(found.length).toBeLessThanOrEqual(5);
    for (const tool of found)
      expect(tool).toEqual(
        expect.objectContaining({ name: expect.any(String), inputSchema: expect.any(Object) }),
      );
    expect((await search(c, 'add new people to the knowledge graph', 3)).map((t) => t.name)).toContain(
      'memory__create_entities',
    );
  });

  it('call_tool is the tools/call of the tool it names: its result, progress, elicitation, audit target', async () => {
    const { client: c, inputs } = await client();
    const direct = await c.callTool({ name: 'kit__tool_0', arguments: { text: 'x' } });
    const wrapped = await c.callTool({
      name: 'call_tool',
      arguments: { name: 'kit__tool_0', arguments: { text: 'x' } },
    });
    expect(wrapped).toEqual(direct);
    const progress: number[] = [];
    await c.callTool(
      { name: 'call_tool', arguments: { name: 'kit__slow', arguments: { ms: 200, steps: 2 } } },
      { onprogress: (p) => progress.push(p.progress) },
    );
    expect(progress).toEqual([1, 2]);
    const asked = await c.callTool({
      name: 'call_tool',
      arguments: { name: 'kit__elicit', arguments: { message: 'sure?' } },
    });
    expect(inputs.elicitations).toHaveLength(1);
    expect(JSON.stringify(asked)).toContain('forty-two');
    await eventually(
      () =>
        audit().some((r) => r.method === 'tools/call' && r.tool === 'kit__slow' && r.identity === 'alice'),
      'the audit record of the wrapped call under the real tool name',
    );
    expect(audit().some((r) => r.tool === 'call_tool')).toBe(false);
  });

  it('never finds or calls what the caller may not list; an unknown and a forbidden tool answer alike', async () => {
    const { client: c } = await client(TOKENS.bob);
    for (const query of ['write a file to disk', 'delete entities from the knowledge graph']) {
      const names = (await search(c, query, 20)).map((t) => t.name);
      expect(names).not.toContain('files__write_file');
      expect(names.filter((n) => n.startsWith('memory__delete_'))).toEqual([]);
    }
    const refusal = async (name: string) => {
      const error = (await c
        .callTool({ name: 'call_tool', arguments: { name, arguments: { path: '/x', content: 'y' } } })
        .then(
          () => undefined,
          (e: unknown) => e,
        )) as { code: number; data: { reason: string }; message: string };
      return { code: error.code, reason: error.data.reason, message: error.message.replace(name, 'N') };
    };
    expect(await refusal('files__write_file')).toEqual(await refusal('files__no_such_tool'));
    expect(await refusal('files__write_file')).toMatchObject({ code: -32602, reason: 'tool_not_found' });
  });
});

describe('search_tools and call_tool refuse bad input with -32602 and a reason, forwarding nothing', () => {
  it.each([
    ['search_tools', {}, 'invalid_query'],
    ['search_tools', { query: '   ' }, 'invalid_query'],
    ['search_tools', { query: 'x'.repeat(1001) }, 'invalid_query'],
    ['search_tools', { query: 42 }, 'invalid_query'],
    ['search_tools', { query: 'files', limit: 0 }, 'invalid_limit'],
    ['search_tools', { query: 'files', limit: 21 }, 'invalid_limit'],
    ['search_tools', { query: 'files', limit: 'all' }, 'invalid_limit'],
    ['call_tool', {}, 'invalid_name'],
    ['call_tool', { name: 7 }, 'invalid_name'],
    ['call_tool', { name: 'kit__tool_0', arguments: 'x' }, 'invalid_arguments'],
    ['call_tool', { name: 'kit__tool_0', arguments: [1] }, 'invalid_arguments'],
    ['call_tool', { name: '__proto__' }, 'tool_not_found'],
    ['call_tool', { name: 'constructor', arguments: {} }, 'tool_not_found'],
  ])('%s %j → %s', async (tool, args, reason) => {
    const c = await connect();
    const before = JSON.stringify(kit.stats.toolCalls);
    await expect(
      c.callTool({ name: tool, arguments: args as Record<string, unknown> }),
    ).rejects.toMatchObject({
      code: -32602,
      data: { reason },
    });
    expect(JSON.stringify(kit.stats.toolCalls)).toBe(before);
  });
});

describe('tool search on a virtual server, and a legacy session calling a found tool by name', () => {
  it('searches only what the virtual server exposes', async () => {
    const kb = await connect(TOKENS.alice, '/kb');
    expect((await kb.listTools()).tools.map((t) => t.name)).toEqual(['search_tools', 'call_tool']);
    const names = (await search(kb, 'read a file from disk', 20)).map((t) => t.name);
    expect(names.length).toBeGreaterThan(0);
    expect(names.every((n) => n.startsWith('memory__'))).toBe(true);
  });

  it('lets a legacy session call a found tool by its own name', async () => {
    const c = await connect();
    expect(await c.callTool({ name: 'kit__tool_1', arguments: { text: 'direct' } })).toMatchObject({
      structuredContent: { tool: 'tool_1', arguments: { text: 'direct' } },
    });
  });

  it('follows an upstream that adds a tool (list_changed)', async () => {
    const c = await connect();
    expect((await search(c, 'tool 5', 20)).map((t) => t.name)).not.toContain('kit__tool_5');
    await kit.setToolCount(6);
    try {
      await eventually(
        async () => (await search(c, 'tool 5', 20)).some((t) => t.name === 'kit__tool_5'),
        'the new tool found',
      );
    } finally {
      await kit.setToolCount(2);
    }
  });
});
