import { fileURLToPath } from 'node:url';
import { afterEach, expect, it } from 'vitest';
import { startAdminGateway } from './support/admin.js';
import { Cleanup, eventually, listAll, TESTKIT_CLI } from './support/harness.js';
import { type Json, listPages, names } from './support/named.js';
import { connectClient, everyUpstreamReady } from './support/wild.js';

// DESIGN §5 and §11 through the real gateway: one upstream whose lists hold items that are no objects
// (`null` first), one tool name twice on a page, and a 200,000-character cursor, beside a healthy one.
// The healthy upstream is listed whole on every page, by tools/list and by tool search; the hostile one's
// good items are listed once, and it is named where it is cut off.

const cleanup = new Cleanup();
afterEach(() => cleanup.run());

const HOSTILE = fileURLToPath(new URL('./fixtures/hostile-list-upstream.js', import.meta.url));
const TRUNCATED = 'switchyard/truncated';

it('lists a healthy upstream whole beside one whose lists are broken, naming the one cut off', async () => {
  const { gw, admin } = await startAdminGateway(cleanup, {
    mcpServers: {
      good: {
        command: process.execPath,
        args: [TESTKIT_CLI, '--name', 'good', '--tools', '30', '--page-size', '10', '--resources', '5'],
      },
      hostile: { command: process.execPath, args: [HOSTILE] },
    },
    virtualServers: { search: { servers: ['*'], toolSearch: { enabled: true } } },
  });
  await everyUpstreamReady(admin);
  const goodTools = Array.from({ length: 30 }, (_, i) => `good__tool_${i}`);

  for (const modern of [false, true]) {
    const client = await connectClient(cleanup, gw.url, modern ? 'lists-modern' : 'lists-legacy', modern);
    const era = client.getProtocolEra();
    // good: 30 tools in pages of 10; hostile: one page, then a cursor too long to carry.
    const tools = await listPages(client, 'tools/list');
    expect(tools.pages, `tools/list pages (${era})`).toBe(3);
    const toolNames = names(tools.items);
    expect(
      toolNames.filter((n) => n.startsWith('good__')),
      `good's tools (${era})`,
    ).toEqual(goodTools);
    expect(
      toolNames.filter((n) => n.startsWith('hostile__')),
      `hostile's tools (${era})`,
    ).toEqual(['hostile__dup', 'hostile__ok']);
    expect(tools.items.find((t) => t.name === 'hostile__dup')?.description).toBe('first dup');
    expect(
      tools.metas.flatMap((m) => (m[TRUNCATED] as string[] | undefined) ?? []),
      `tools/list truncated (${era})`,
    ).toEqual(['hostile']);

    const resources = await listAll(client, 'resources/list');
    expect(resources.items.map((r) => r.uri).sort(), `resources (${era})`).toEqual(
      [...Array.from({ length: 5 }, (_, i) => `good+test://good/r/${i}`), 'hostile+h://x/ok'].sort(),
    );
    const prompts = await listPages(client, 'prompts/list');
    expect(names(prompts.items), `prompts (${era})`).toEqual(['hostile__ok']);
  }

  // Tool search walks the same listing to its end: a tool on good's last page is found and called.
  const search = await connectClient(cleanup, `${gw.url}/search`, 'search');
  const found = (await search.callTool({ name: 'search_tools', arguments: { query: 'good__tool_25' } })) as {
    structuredContent: { tools: Json[] };
  };
  expect(names(found.structuredContent.tools)).toContain('good__tool_25');
  const called = await search.callTool({
    name: 'call_tool',
    arguments: { name: 'good__tool_25', arguments: { text: 'x' } },
  });
  expect(called.isError, JSON.stringify(called)).toBeFalsy();

  // Said in the log, naming the upstream and why; the name it lists twice also once as the index reads it.
  await eventually(
    () =>
      /upstream cut off from a merged listing upstream="hostile" method="tools\/list" why=".*longer than 8192/.test(
        gw.stderr(),
      ),
    'the cut-off logged',
  );
  expect(gw.stderr()).toMatch(
    /upstream listed one name twice.* upstream="hostile" method="tools\/list" name="hostile__dup"/,
  );
  expect(gw.stderr()).toMatch(
    /an upstream lists one tool name twice; .* upstream="hostile" exposed="hostile__dup" tool="dup"/,
  );
});
