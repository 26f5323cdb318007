import { afterEach, describe, expect, it } from 'vitest';
import {
  Cleanup,
  connectHttp,
  httpUpstream,
  spawnGateway,
  startGateway,
  writeConfig,
} from './support/harness.js';
import { connectModernHttp, errorOf, listPages, names, stdioUpstream } from './support/named.js';

// What the config says about tools and prompts, through the CLI: curation, "prefix": false collisions,
// odd upstream names, refused curation values, and the capabilities the gateway advertises.

const cleanup = new Cleanup();
afterEach(() => cleanup.run());

const httpListen = { http: { host: '127.0.0.1', port: 0, path: '/mcp' } };
const EXPOSED = /^[A-Za-z0-9_-]{1,64}$/;

const toolNameFlags = (...toolNames: string[]) => toolNames.flatMap((n) => ['--tool-name', n]);

describe('tools and prompts configured per server', () => {
  it('curates with allow/deny: filtered tools and prompts are absent, refused, and never reach the upstream', async () => {
    const gh = await stdioUpstream(cleanup, 'gh', [
      ...toolNameFlags('search_code', 'search_repos', 'get_file', 'repo_delete', 'search_delete'),
      ...['--prompts', '3', '--resources', '0'],
    ]);
    const gw = await startGateway(cleanup, {
      listen: httpListen,
      mcpServers: {
        gh: {
          ...gh.config,
          tools: { allow: ['search_*', 'get_*'], deny: ['*_delete'] },
          prompts: { deny: ['prompt_1'] },
        },
      },
    });
    const client = await connectHttp(cleanup, gw.url);
    expect(names((await listPages(client, 'tools/list')).items)).toEqual([
      'gh__search_code',
      'gh__search_repos',
      'gh__get_file',
    ]);
    expect(names((await listPages(client, 'prompts/list')).items)).toEqual(['gh__prompt_0', 'gh__prompt_2']);
    for (const name of ['gh__repo_delete', 'gh__search_delete', 'gh__nothing']) {
      expect(
        await errorOf(client.request({ method: 'tools/call', params: { name, arguments: {} } })),
      ).toMatchObject({ code: -32602, data: { reason: 'tool_not_found', name } });
    }
    expect(
      await errorOf(client.request({ method: 'prompts/get', params: { name: 'gh__prompt_1' } })),
    ).toMatchObject({ code: -32602, data: { reason: 'prompt_not_found' } });
    // What curation lets through still works, and is what the upstream saw.
    const allowed = await client.request({
      method: 'tools/call',
      params: { name: 'gh__get_file', arguments: { path: '/a' } },
    });
    expect(allowed.structuredContent).toEqual({ tool: 'get_file', arguments: { path: '/a' } });
    await client.request({ method: 'prompts/get', params: { name: 'gh__prompt_2' } });
    const stats = await (await gh.control()).stats();
    expect(stats.toolCalls).toEqual({ get_file: 1 });
    expect(stats.promptGets).toEqual({ prompt_2: 1 });
  });

  it('"prefix": false keeps names; a collision goes to the first in config order and is reported', async () => {
    const first = await httpUpstream(cleanup, { name: 'first', resources: 0, tools: 2, prompts: 1 });
    const second = await stdioUpstream(cleanup, 'second', [
      '--resources',
      '0',
      '--tools',
      '3',
      '--prompts',
      '2',
    ]);
    const gw = await startGateway(cleanup, {
      listen: httpListen,
      mcpServers: {
        first: { url: first.url, prefix: false },
        second: { ...second.config, prefix: false },
      },
    });
    const client = await connectHttp(cleanup, gw.url);
    expect(names((await listPages(client, 'tools/list')).items).sort()).toEqual([
      'tool_0',
      'tool_1',
      'tool_2',
    ]);
    expect(names((await listPages(client, 'prompts/list')).items).sort()).toEqual(['prompt_0', 'prompt_1']);
    for (const name of ['tool_0', 'tool_1', 'tool_2']) {
      await client.request({ method: 'tools/call', params: { name, arguments: {} } });
    }
    await client.request({ method: 'prompts/get', params: { name: 'prompt_0' } });
    await client.request({ method: 'prompts/get', params: { name: 'prompt_1' } });
    expect(first.server.stats.toolCalls).toEqual({ tool_0: 1, tool_1: 1 });
    expect(first.server.stats.promptGets).toEqual({ prompt_0: 1 });
    const stats = await (await second.control()).stats();
    expect(stats.toolCalls).toEqual({ tool_2: 1 });
    expect(stats.promptGets).toEqual({ prompt_1: 1 });
    await gw.waitForLine(
      /tool name collision.*exposed="tool_0".*winner="first:tool_0".*hidden="second:tool_0"/,
    );
    await gw.waitForLine(/tool name collision.*exposed="tool_1".*winner="first:tool_1"/);
    await gw.waitForLine(/prompt name collision.*exposed="prompt_0".*winner="first:prompt_0"/);
    expect(gw.stderr()).not.toMatch(/collision.*exposed="tool_2"/);
  });

  it('exposes odd upstream names as valid names (a long one cut with a stable hash), each reaching its tool', async () => {
    const odd = ['get.file/contents', 'with space', 'ünï', 'x'.repeat(80), `${'x'.repeat(80)}y`];
    const docs = await stdioUpstream(cleanup, 'docs', ['--resources', '0', ...toolNameFlags(...odd)]);
    const flat = await httpUpstream(cleanup, { name: 'flat', resources: 0, toolNames: ['a.b/c'] });
    const config = {
      listen: httpListen,
      mcpServers: { docs: docs.config, flat: { url: flat.url, prefix: false } },
    };
    // Two gateway processes on the same config: the second must expose the very same names.
    const [gw, again] = await Promise.all([startGateway(cleanup, config), startGateway(cleanup, config)]);
    const client = await connectHttp(cleanup, gw.url);
    const exposed = names((await listPages(client, 'tools/list')).items);
    expect(exposed).toHaveLength(odd.length + 1);
    for (const name of exposed) expect(name).toMatch(EXPOSED);
    expect(new Set(exposed).size).toBe(exposed.length);
    expect(exposed.slice(0, 3)).toEqual(['docs__get_file_contents', 'docs__with_space', 'docs___n_']);
    expect(exposed[3]).toHaveLength(64);
    expect(exposed[4]).toHaveLength(64);
    expect(exposed).toContain('a_b_c');
    const called: unknown[] = [];
    for (const name of exposed) {
      const result = await client.request({ method: 'tools/call', params: { name, arguments: {} } });
      called.push((result.structuredContent as { tool: unknown }).tool);
    }
    expect(called).toEqual([...odd, 'a.b/c']);
    const client2 = await connectHttp(cleanup, again.url);
    expect(names((await listPages(client2, 'tools/list')).items)).toEqual(exposed);
  });

  it('refuses a bad curation value at start with exit code 2, naming the file and the JSON path', async () => {
    const cases: Array<[Record<string, unknown>, string, RegExp]> = [
      [{ tools: { allow: 'x' } }, '$.mcpServers.gh.tools.allow', /array/i],
      [{ prompts: { deny: [''] } }, '$.mcpServers.gh.prompts.deny[0]', /non-empty glob/],
      [{ tools: { alow: ['x'] } }, '$.mcpServers.gh.tools', /unknown key\(s\) "alow"/],
    ];
    const results = await Promise.all(
      cases.map(async ([entry]) => {
        const file = await writeConfig(cleanup, { mcpServers: { gh: { command: 'node', ...entry } } });
        const gw = spawnGateway(cleanup, ['--config', file]);
        const code = await gw.exited;
        return { file, code, stderr: gw.stderr() };
      }),
    );
    cases.forEach(([, path, why], i) => {
      const { file, code, stderr } = results[i]!;
      expect(code, stderr).toBe(2);
      expect(stderr).toContain(file);
      const lines = stderr.split('\n').filter((line) => line.includes(`${path}: `));
      expect(
        lines.some((line) => why.test(line)),
        `no line for ${path} matching ${why} in:\n${stderr}`,
      ).toBe(true);
    });
  });
});

describe('capabilities', () => {
  it('advertises tools and prompts (initialize and server/discover) only when some upstream has them', async () => {
    const plain = await httpUpstream(cleanup, { name: 'plain', resources: 2 });
    const tooled = await httpUpstream(cleanup, { name: 'tooled', resources: 0, tools: 1 });
    const prompted = await httpUpstream(cleanup, { name: 'prompted', resources: 0, prompts: 1 });
    const [none, tools, both] = await Promise.all([
      startGateway(cleanup, { listen: httpListen, mcpServers: { plain: { url: plain.url } } }),
      startGateway(cleanup, {
        listen: httpListen,
        mcpServers: { plain: { url: plain.url }, tooled: { url: tooled.url } },
      }),
      startGateway(cleanup, {
        listen: httpListen,
        mcpServers: { tooled: { url: tooled.url }, prompted: { url: prompted.url } },
      }),
    ]);
    const expectations = [
      [none, { tools: false, prompts: false }],
      [tools, { tools: true, prompts: false }],
      [both, { tools: true, prompts: true }],
    ] as const;
    for (const [gw, has] of expectations) {
      const legacy = await connectHttp(cleanup, gw.url);
      const modern = await connectModernHttp(cleanup, gw.url);
      const discovered = await modern.discover();
      for (const capabilities of [
        legacy.getServerCapabilities(),
        modern.getServerCapabilities(),
        discovered.capabilities,
      ]) {
        expect(capabilities).toHaveProperty('resources');
        expect(capabilities?.tools !== undefined, JSON.stringify(capabilities)).toBe(has.tools);
        expect(capabilities?.prompts !== undefined, JSON.stringify(capabilities)).toBe(has.prompts);
      }
    }
  });
});
