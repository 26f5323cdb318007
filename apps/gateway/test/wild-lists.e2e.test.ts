import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { adminGet, startAdminGateway } from './support/admin.js';
import { Cleanup, eventually, listAll } from './support/harness.js';
import { listPages } from './support/named.js';
import {
  BAD,
  callTool,
  connectClient,
  echoed,
  everyUpstreamReady,
  expectUnharmed,
  type Json,
  startWildGateway,
  textOf,
  type WildGateway,
  wildUpstream,
} from './support/wild.js';

// DESIGN §11 through the real gateway, the listing side: upstreams whose cursors never end, tool names
// no strict client accepts, and list_changed storms. Each test checks what the client sees, then that
// the upstreams and `good` still answer after one handshake and one connection (see support/wild.ts).

const EXPOSED = /^[A-Za-z0-9_-]{1,64}$/;
const BEHAVIOUR = ['echo', 'slow', 'fail', 'throw', 'link', 'elicit', 'sample', 'roots', 'log'];

const cleanup = new Cleanup();
afterEach(() => cleanup.run());

describe('upstreams in the wild: endless listings', () => {
  it('cuts off an upstream whose cursor repeats or passes maxPagesPerList, names it in _meta, and the enumeration ends', async () => {
    const upstreams = Object.fromEntries(
      (
        await Promise.all([
          wildUpstream(cleanup, 'good', {
            transport: 'http',
            modes: [],
            args: ['--tools', '7', '--resources', '11', '--page-size', '4'],
          }),
          wildUpstream(cleanup, 'rc', { transport: 'stdio', modes: ['repeating-cursor'] }),
          wildUpstream(cleanup, 'ec', { transport: 'http', modern: true, modes: ['endless-cursor'] }),
        ])
      ).map((u) => [u.name, u]),
    );
    const { gw, admin } = await startAdminGateway(cleanup, {
      mcpServers: Object.fromEntries(Object.values(upstreams).map((u) => [u.name, u.entry])),
      limits: { maxPagesPerList: 5 },
    });
    await everyUpstreamReady(admin);
    const legacy = await connectClient(cleanup, gw.url, 'lists-legacy');
    const modern = await connectClient(cleanup, gw.url, 'lists-modern', true);

    const goodTools = [...BEHAVIOUR, ...Array.from({ length: 7 }, (_, i) => `tool_${i}`)].map(
      (n) => `good__${n}`,
    );
    const goodResources = Array.from({ length: 11 }, (_, i) => `good+test://good/r/${i}`);
    for (const client of [legacy, modern]) {
      const era = client.getProtocolEra();
      // good: 16 tools in pages of 4; rc repeats its cursor on its 2nd page; ec is cut at its 5th, the last.
      const tools = await listPages(client, 'tools/list');
      expect(tools.pages, `tools/list pages (${era})`).toBe(5);
      const toolNames = tools.items.map((t) => t.name as string);
      expect(toolNames.filter((n) => n.startsWith('good__')).sort(), `good's tools (${era})`).toEqual(
        goodTools.sort(),
      );
      expect(truncated(tools.metas), `tools/list truncated (${era})`).toEqual(['ec', 'rc']);
      expect(toolNames).toEqual(expect.arrayContaining(['rc__echo', 'ec__echo']));

      const resources = await listAll(client, 'resources/list');
      expect(resources.pages, `resources/list pages (${era})`).toBe(5);
      const uris = resources.items.map((r) => r.uri as string);
      expect(uris.filter((u) => u.startsWith('good+')).sort(), `good's resources (${era})`).toEqual(
        goodResources.sort(),
      );
      expect(truncated(resources.metas), `resources/list truncated (${era})`).toEqual(['ec', 'rc']);
      expect(uris).toEqual(expect.arrayContaining(['rc+test://rc/r/0', 'ec+test://ec/r/0']));
    }
    // An unknown name lists a healthy upstream afresh (it may have added the tool unannounced), but not
    // one whose listing never ends: that would cost up to maxPagesPerList requests per name tried.
    const listed = async () =>
      Object.fromEntries(
        await Promise.all(
          Object.values(upstreams).map(async (u) => [u.name, (await u.stats()).requests['tools/list'] ?? 0]),
        ),
      );
    const before = await listed();
    for (const name of ['good', 'rc', 'ec']) {
      expect(await callTool(legacy, `${name}__nope`), `${name}__nope`).toMatchObject({
        error: { code: -32602, data: { reason: 'tool_not_found', name: `${name}__nope` } },
      });
    }
    expect(await listed()).toEqual({ ...before, good: before.good + 4 });
    // The cut-off is logged (rate-limited), not a failure of the upstream.
    expect(gw.stderr()).toMatch(/WARN .* upstream cut off from a merged listing upstream="rc"/);
    expect(gw.stderr()).toMatch(/WARN .* upstream cut off from a merged listing upstream="ec"/);
    await expectUnharmed({ legacy, admin, upstreams }, ['rc', 'ec']);
    const status = await adminGet(admin, '/admin/status');
    expect(status.json.upstreams).toHaveLength(3);
  });
});

/** Every upstream named in `_meta["switchyard/truncated"]` across the pages of one enumeration. */
function truncated(metas: unknown[]): string[] {
  const names = new Set<string>();
  for (const meta of metas)
    for (const name of ((meta as Json)['switchyard/truncated'] as string[]) ?? []) names.add(name);
  return [...names].sort();
}

describe('upstreams in the wild: names and storms', () => {
  const shared = new Cleanup();
  afterAll(() => shared.run());
  let fx: WildGateway;
  beforeAll(async () => {
    fx = await startWildGateway(shared);
  }, 30_000);

  it('exposes bad tool names as valid ones, one per collision, the long one cut with a hash, each reaching its tool', async () => {
    const XS = 'x'.repeat(100);
    for (const client of [fx.legacy, fx.modern]) {
      const era = client.getProtocolEra();
      const names = (await listPages(client, 'tools/list')).items.map((t) => t.name as string);
      for (const name of names) expect(name, `${name} (${era})`).toMatch(EXPOSED);
      for (const u of BAD) {
        const own = names.filter((n) => n.startsWith(`${u}__`) && !BEHAVIOUR.includes(n.slice(u.length + 2)));
        // my.tool, "my tool", my/tool and my_tool all map to my_tool: the first listed keeps it.
        expect(
          own.filter((n) => n === `${u}__my_tool`),
          `${u} (${era})`,
        ).toHaveLength(1);
        expect(own).toContain(`${u}___n_c_d_`);
        const cut = own.filter((n) => n.startsWith(`${u}__xxx`));
        expect(cut, `${u}'s long name (${era})`).toHaveLength(1);
        expect(cut[0]).toMatch(new RegExp(`^${u}__x{51}_[0-9a-f]{8}$`));
        const reach: [string, string][] = [
          [`${u}__my_tool`, 'my.tool'],
          [`${u}___n_c_d_`, 'ünïcødé'],
          [cut[0]!, XS],
        ];
        for (const [exposed, original] of reach) {
          const args = { text: `${era} to ${exposed}` };
          expect(await callTool(client, exposed, args), `${exposed} (${era})`).toMatchObject({
            result: echoed(original, args),
          });
        }
      }
    }
    // The hash is of the server and the name: each upstream's cut name is its own.
    const cuts = (await listPages(fx.legacy, 'tools/list')).items
      .map((t) => t.name as string)
      .filter((n) => n.includes('__xxx'));
    expect(new Set(cuts.map((n) => n.slice(-8))).size).toBe(BAD.length);
    for (const u of BAD) {
      const stats = await fx.upstreams[u].stats();
      expect(stats.toolCalls, u).toMatchObject({ 'my.tool': 2, ünïcødé: 2, [XS]: 2 });
      expect(stats.toolCalls.my_tool ?? 0, `${u}: the hidden my_tool`).toBe(0);
      expect(fx.gw.stderr()).toContain(
        `tool name collision; the first listed keeps the name exposed="${u}__my_tool" winner="${u}:my.tool" hidden="${u}:my_tool"`,
      );
    }
    await expectUnharmed(fx, BAD);
  });

  it('coalesces a list_changed storm: a few re-lists per upstream and a few notifications to clients', async () => {
    const heard = { legacy: 0, modern: 0 };
    fx.legacy.setNotificationHandler('notifications/tools/list_changed', () => {
      heard.legacy += 1;
    });
    fx.modern.setNotificationHandler('notifications/tools/list_changed', () => {
      heard.modern += 1;
    });
    const listen = await fx.modern.listen({ toolsListChanged: true });
    shared.add(() => listen.close());
    const relists = async (u: (typeof BAD)[number]) =>
      (await fx.upstreams[u].stats()).requests['tools/list'] ?? 0;
    let total = 0;
    for (const u of BAD) {
      const before = await relists(u);
      const was = { ...heard };
      expect(textOf(await callTool(fx.legacy, `${u}__burst`, { count: 2000, kind: 'tools' }))).toBe(
        'burst sent 2000',
      );
      // The first notification starts a re-list; those arriving while it runs or within 500 ms after it
      // started lead to exactly one more: two, whatever the rate, and each client hears of it.
      await eventually(
        async () =>
          (await relists(u)) - before >= 2 && heard.legacy > was.legacy && heard.modern > was.modern,
        `${u}: the re-lists and the clients' list_changed`,
      );
      const more = (await relists(u)) - before;
      // One more per 500 ms the storm lasts: a 2 000-notification storm takes well under a second here.
      expect(more, `${u}: re-lists after 2 000 list_changed`).toBeLessThanOrEqual(4);
      total += more;
    }
    // A client hears at most one list_changed per re-list (coalesced across upstreams within 25 ms).
    expect(heard.legacy).toBeLessThanOrEqual(total);
    expect(heard.modern).toBeLessThanOrEqual(total);
    // The gateway's index is current: the storm's upstreams still list and call right.
    const names = (await listPages(fx.modern, 'tools/list')).items.map((t) => t.name as string);
    expect(names).toEqual(expect.arrayContaining(BAD.map((u) => `${u}__burst`)));
    await expectUnharmed(fx, BAD);
  });
});
