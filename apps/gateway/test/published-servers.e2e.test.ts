import { mkdir, readFile, realpath, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import type { Client } from '@modelcontextprotocol/client';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Cleanup, connectHttp, httpUpstream, startGateway, tempDir } from './support/harness.js';
import { connectDirect, PUBLISHED_CLI, type StdioServer } from './support/published.js';

// Published servers we did not write (@modelcontextprotocol/server-everything, -filesystem and -memory,
// pinned devDependencies) over stdio beside a testkit upstream, behind one gateway: through it, each
// one's tools are its own under `<server>__<name>`, and calls answer what they answer directly. Each
// direct client spawns the same server binary itself.

const cleanup = new Cleanup();
afterAll(() => cleanup.run());

const PUBLISHED = ['everything', 'filesystem', 'memory'] as const;
type Published = (typeof PUBLISHED)[number];

let gateway: Client;
const direct = {} as Record<Published, Client>;
let root = '';
let memoryFile = '';

beforeAll(async () => {
  const dir = await tempDir(cleanup);
  // The filesystem server compares real paths (a temp dir can sit behind a symlink, as on macOS).
  root = join(await realpath(dir), 'files');
  await mkdir(root);
  await writeFile(join(root, 'notes.txt'), 'first line\nsecond line\n');
  await writeFile(join(root, 'readme.md'), '# Files\n');
  await mkdir(join(root, 'sub'));
  memoryFile = join(dir, 'memory-gateway.jsonl');
  const servers = (memory: string): Record<Published, StdioServer> => ({
    everything: { command: process.execPath, args: [PUBLISHED_CLI.everything, 'stdio'] },
    filesystem: { command: process.execPath, args: [PUBLISHED_CLI.filesystem, root] },
    // Its own file for each memory server: both see the same calls, so both graphs must end up alike.
    memory: { command: process.execPath, args: [PUBLISHED_CLI.memory], env: { MEMORY_FILE_PATH: memory } },
  });
  const testkit = await httpUpstream(cleanup, { name: 'testkit', tools: 2 });
  const gw = startGateway(cleanup, {
    listen: { http: { host: '127.0.0.1', port: 0, path: '/mcp' } },
    mcpServers: { ...servers(memoryFile), testkit: { url: testkit.url } },
  });
  const directs = Object.entries(servers(join(dir, 'memory-direct.jsonl'))).map(async ([name, server]) => {
    direct[name as Published] = await connectDirect(cleanup, name, server);
  });
  // Everything started is settled (and so registered for cleanup) before a failure is thrown.
  const failed = (await Promise.allSettled([gw, ...directs])).find((r) => r.status === 'rejected');
  if (failed) throw failed.reason;
  gateway = await connectHttp(cleanup, (await gw).url, 'published-servers');
});

const callBoth = async (server: Published, name: string, args: Record<string, unknown> = {}) => {
  const [viaGateway, directly] = await Promise.all([
    gateway.callTool({ name: `${server}__${name}`, arguments: args }),
    direct[server].callTool({ name, arguments: args }),
  ]);
  return { viaGateway, directly };
};

const firstText = (result: { content?: unknown }) =>
  ((result.content as { type: string; text?: string }[] | undefined) ?? []).find((c) => c.type === 'text')
    ?.text;

describe('published servers behind one gateway, beside a testkit upstream', () => {
  it("lists each server's own tools, named <server>__<name>, and nothing else", async () => {
    const listed = (await gateway.listTools(undefined, { cacheMode: 'bypass' })).tools;
    for (const server of PUBLISHED) {
      const own = (await direct[server].listTools(undefined, { cacheMode: 'bypass' })).tools;
      expect(own.length).toBeGreaterThan(0);
      const prefix = `${server}__`;
      const exposed = listed
        .filter((t) => t.name.startsWith(prefix))
        .map((t) => ({ ...t, name: t.name.slice(prefix.length) }));
      expect(exposed, server).toEqual(own);
    }
    const testkit = listed.filter((t) => t.name.startsWith('testkit__')).map((t) => t.name);
    expect(testkit).toEqual(['testkit__tool_0', 'testkit__tool_1']);
    const counts = await Promise.all(PUBLISHED.map(async (s) => (await direct[s].listTools()).tools.length));
    expect(listed).toHaveLength(counts.reduce((a, b) => a + b, testkit.length));
  });

  it('server-everything: echo and get-sum answer as they do directly', async () => {
    const echo = await callBoth('everything', 'echo', { message: 'through the yard' });
    expect(echo.viaGateway).toEqual(echo.directly);
    expect(firstText(echo.viaGateway)).toBe('Echo: through the yard');
    const sum = await callBoth('everything', 'get-sum', { a: 19, b: 23 });
    expect(sum.viaGateway).toEqual(sum.directly);
    expect(firstText(sum.viaGateway)).toMatch(/\b42\b/);
  });

  it('server-memory: create_entities then read_graph answer as they do directly', async () => {
    const entities = [
      { name: 'Switchyard', entityType: 'project', observations: ['an MCP gateway'] },
      { name: 'Upstream', entityType: 'server', observations: ['fronted by the gateway'] },
    ];
    const created = await callBoth('memory', 'create_entities', { entities });
    expect(created.viaGateway).toEqual(created.directly);
    const graph = await callBoth('memory', 'read_graph');
    expect(graph.viaGateway).toEqual(graph.directly);
    expect(JSON.parse(firstText(graph.viaGateway) ?? '{}')).toMatchObject({ entities, relations: [] });
    // The gateway's memory server is the one its config started, with its own MEMORY_FILE_PATH.
    expect(await readFile(memoryFile, 'utf8')).toContain('"name":"Switchyard"');
  });

  it('server-filesystem: list_directory and read_text_file answer as they do directly', async () => {
    const listing = await callBoth('filesystem', 'list_directory', { path: root });
    expect(listing.viaGateway).toEqual(listing.directly);
    expect(firstText(listing.viaGateway)?.split('\n').sort()).toEqual([
      '[DIR] sub',
      '[FILE] notes.txt',
      '[FILE] readme.md',
    ]);
    const read = await callBoth('filesystem', 'read_text_file', { path: join(root, 'notes.txt') });
    expect(read.viaGateway).toEqual(read.directly);
    expect(firstText(read.viaGateway)).toBe('first line\nsecond line\n');
    const head = await callBoth('filesystem', 'read_text_file', { path: join(root, 'notes.txt'), head: 1 });
    expect(head.viaGateway).toEqual(head.directly);
    expect(firstText(head.viaGateway)).toBe('first line');
  });
});
