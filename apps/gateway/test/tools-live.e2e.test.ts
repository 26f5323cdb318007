import type { Client } from '@modelcontextprotocol/client';
import { TestServer } from '@switchyard/testkit';
import { afterEach, describe, expect, it } from 'vitest';
import { Cleanup, connectHttp, httpUpstream, reservePort } from './support/harness.js';
import {
  connectModernHttp,
  connectWs,
  listChangedCounter,
  listPages,
  names,
  startEverywhere,
  stdioUpstream,
} from './support/named.js';

// Tools and prompts over time, through the CLI: list_changed reaches every kind of session when an
// upstream's lists change or an upstream connects late.

const cleanup = new Cleanup();
afterEach(() => cleanup.run());

describe('list changes', () => {
  it('re-emits an upstream tools/prompts list change to legacy HTTP, stdio, WebSocket and modern listen clients', async () => {
    const local = await stdioUpstream(cleanup, 'local', [
      '--resources',
      '1',
      '--tools',
      '2',
      '--prompts',
      '1',
    ]);
    const gw = await startEverywhere(cleanup, { local: local.config });
    const http = await connectHttp(cleanup, gw.httpUrl);
    const ws = await connectWs(cleanup, gw.wsUrl);
    const modern = await connectModernHttp(cleanup, gw.httpUrl);
    const clients: Record<string, Client> = { http, ws, stdio: gw.stdio, modern };
    const counters = Object.entries(clients).map(([name, client]) => ({
      name,
      tools: listChangedCounter(client, 'notifications/tools/list_changed'),
      prompts: listChangedCounter(client, 'notifications/prompts/list_changed'),
    }));
    const listen = await modern.listen({ toolsListChanged: true, promptsListChanged: true });
    expect(listen.honoredFilter).toMatchObject({ toolsListChanged: true, promptsListChanged: true });
    cleanup.add(() => listen.close());
    for (const c of counters)
      if (c.name !== 'modern') await Promise.all([c.tools.settle(), c.prompts.settle()]);
    const control = await local.control();

    await control.tools(4);
    await Promise.all(counters.map((c) => c.tools.next(`tools/list_changed on the ${c.name} client`)));
    for (const client of Object.values(clients)) {
      expect(names((await listPages(client, 'tools/list')).items)).toContain('local__tool_3');
      const result = await client.request({
        method: 'tools/call',
        params: { name: 'local__tool_3', arguments: {} },
      });
      expect(result.structuredContent).toEqual({ tool: 'tool_3', arguments: {} });
    }

    await control.prompts(3);
    await Promise.all(counters.map((c) => c.prompts.next(`prompts/list_changed on the ${c.name} client`)));
    for (const client of Object.values(clients)) {
      const got = await client.request({ method: 'prompts/get', params: { name: 'local__prompt_2' } });
      expect(got.messages[0]).toMatchObject({ content: { text: 'prompt_2 {}' } });
    }
  });

  it('announces an upstream that connects late: sessions hear tools/list_changed, new sessions see its prompts', async () => {
    const { port, release } = await reservePort(cleanup);
    const web = await httpUpstream(cleanup, { name: 'web', resources: 0, tools: 1 });
    const gw = await startEverywhere(cleanup, {
      web: { url: web.url },
      late: { url: `http://127.0.0.1:${port}/mcp` },
    });
    await gw.logs.waitFor(/\[switchyard:upstream:late\] failed to connect/);
    const http = await connectHttp(cleanup, gw.httpUrl);
    const before = await listPages(http, 'tools/list');
    expect(names(before.items)).toEqual(['web__tool_0']);
    expect(before.metas[0]).toMatchObject({ 'switchyard/unavailable': ['late'] });
    expect(http.getServerCapabilities()?.prompts).toBeUndefined(); // nobody connected offers prompts yet
    const counters = [http, gw.stdio].map((client) =>
      listChangedCounter(client, 'notifications/tools/list_changed'),
    );
    await Promise.all(counters.map((c) => c.settle()));

    const late = new TestServer({ name: 'late', resources: 0, tools: 2, prompts: 1 });
    cleanup.add(() => late.close());
    await release();
    await late.listenHttp({ port });
    await Promise.all(counters.map((c, i) => c.next(`tools/list_changed on session ${i}`, 15_000)));
    for (const client of [http, gw.stdio]) {
      expect(names((await listPages(client, 'tools/list')).items).sort()).toEqual([
        'late__tool_0',
        'late__tool_1',
        'web__tool_0',
      ]);
      const result = await client.request({
        method: 'tools/call',
        params: { name: 'late__tool_1', arguments: { x: 1 } },
      });
      expect(result.structuredContent).toEqual({ tool: 'tool_1', arguments: { x: 1 } });
    }
    const fresh = await connectHttp(cleanup, gw.httpUrl, 'fresh');
    expect(fresh.getServerCapabilities()?.prompts).toEqual({ listChanged: true });
    expect(names((await listPages(fresh, 'prompts/list')).items)).toEqual(['late__prompt_0']);
  });
});
