import type { Client } from '@modelcontextprotocol/client';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loadConfigFile } from '../src/config/load.js';
import { adminGet } from './support/admin.js';
import { exampleCopy, exampleFile } from './support/example.js';
import { Cleanup, connectHttp, type GatewayProcess, spawnGateway } from './support/harness.js';

// examples/large-catalogs.json, the worked example of docs/large-catalogs.md: the two bundled example
// servers behind the root endpoint and three virtual servers, one of them searching.

const cleanup = new Cleanup();
afterAll(() => cleanup.run());

let gw: GatewayProcess | undefined;
let mcp = '';
let admin = '';

beforeAll(async () => {
  const { file } = await exampleCopy(cleanup, 'large-catalogs.json');
  const started = spawnGateway(cleanup, ['--config', file]);
  mcp = (await started.waitForLine(/listening on (http:\/\/\S+)/, { timeoutMs: 20_000 }))[1]!;
  admin = (await started.waitForLine(/admin listening on (http:\/\/\S+)/))[1]!;
  gw = Object.assign(started, { url: mcp, file });
}, 30_000);

const tools = async (client: Client) => (await client.listTools()).tools.map((t) => t.name).sort();

describe('examples/large-catalogs.json', () => {
  it('is a valid config', async () => {
    const config = await loadConfigFile(exampleFile('large-catalogs.json'), {});
    expect([...(config.virtualServers?.keys() ?? [])]).toEqual(['support', 'writers', 'assistant']);
  });

  it('serves the support desk only the ticket tools it may use', async () => {
    const support = await connectHttp(cleanup, `${mcp}/support`);
    expect(await tools(support)).toEqual(['tickets__create_ticket', 'tickets__triage_queue']);
    await expect(
      support.callTool({ name: 'tickets__close_ticket', arguments: { id: 'T-101' } }),
    ).rejects.toMatchObject({
      data: { reason: 'tool_not_found' },
    });
  });

  it('serves the writers the handbook, nothing of the tickets', async () => {
    const writers = await connectHttp(cleanup, `${mcp}/writers`);
    const { resources } = await writers.listResources();
    expect(resources.length).toBeGreaterThan(0);
    expect(resources.every((r) => r.uri.startsWith('docs+file:///handbook/'))).toBe(true);
    expect(await tools(writers)).toEqual(['docs__search_docs']);
  });

  it('lets the assistant search everything and call what it found', async () => {
    const assistant = await connectHttp(cleanup, `${mcp}/assistant`);
    expect(await tools(assistant)).toEqual(['call_tool', 'docs__search_docs', 'search_tools']);
    const found = (await assistant.callTool({
      name: 'search_tools',
      arguments: { query: 'file a new support ticket' },
    })) as {
      structuredContent: { tools: { name: string }[] };
    };
    expect(found.structuredContent.tools.map((t) => t.name)).toContain('tickets__create_ticket');
    expect(found.structuredContent.tools.length).toBeLessThanOrEqual(3);
    const created = await assistant.callTool({
      name: 'call_tool',
      arguments: { name: 'tickets__create_ticket', arguments: { title: 'Printer on fire', body: 'Level 3' } },
    });
    expect(JSON.stringify(created)).toMatch(/T-\d+/);
  });

  it('lists the virtual servers on /admin/status', async () => {
    const { json } = await adminGet(admin, '/admin/status');
    expect(
      (json.virtualServers as { name: string; toolSearch: boolean }[]).map((v) => [v.name, v.toolSearch]),
    ).toEqual([
      ['support', false],
      ['writers', false],
      ['assistant', true],
    ]);
    expect(gw).toBeDefined();
  });
});
