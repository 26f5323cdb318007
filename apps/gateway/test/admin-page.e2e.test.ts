import { mkdir, stat, writeFile } from 'node:fs/promises';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { definitionDigest } from '@switchyard/plugin-pin/lock';
import { afterEach, describe, expect, it } from 'vitest';
import { startAdminGateway } from './support/admin.js';
import { CHROMIUM, launchBrowser, textOf } from './support/browser.js';
import { Cleanup, connectHttp, httpUpstream, tempDir } from './support/harness.js';

// The status page in a real headless Chromium (Debian's `chromium`; CI installs it in .ci/run): it
// loads from the built CLI, lists the configured upstreams, and its numbers move with the traffic and
// when an upstream goes away. SWITCHYARD_SCREENSHOT=1 also refreshes docs/images/status-page.png.

const SCREENSHOT = fileURLToPath(new URL('../../../docs/images/status-page.png', import.meta.url));

if (!CHROMIUM) {
  console.warn(
    'admin-page.e2e: skipped: no chromium binary (install it: apt-get install -y chromium, or set CHROMIUM_PATH)',
  );
}

const cleanup = new Cleanup();
afterEach(() => cleanup.run());

const launch = () => launchBrowser(cleanup);
const text = textOf;

describe.skipIf(!CHROMIUM)('status page in a browser', () => {
  it('shows the upstreams and follows requests and a killed upstream live', async () => {
    const docs = await httpUpstream(cleanup, { name: 'docs', resources: 4 });
    const notes = await httpUpstream(cleanup, { name: 'notes', resources: 2 });
    const { gw, admin } = await startAdminGateway(cleanup, {
      mcpServers: { docs: { url: docs.url, required: true }, notes: { url: notes.url } },
      plugins: [['@switchyard/plugin-cache', {}]],
    });
    const browser = await launch();
    const page = await browser.newPage();
    await page.setViewport({ width: 1280, height: 1000 });
    const failures: string[] = [];
    page.on('pageerror', (error) => failures.push(String(error)));
    await page.goto(admin);
    await page.waitForSelector('#upstreams tr[data-upstream="docs"]');
    await page.waitForSelector('#upstreams tr[data-upstream="notes"]');
    expect(await text(page, '#readiness')).toBe('ready');
    expect(await text(page, '#upstreams tr[data-upstream="notes"] .state')).toBe('ready');
    expect(await page.$$eval('.uplot', (charts) => charts.length)).toBe(3);
    const before = Number(await text(page, '#requests-total'));

    const client = await connectHttp(cleanup, gw.url, 'page-test');
    const rounds = process.env.SWITCHYARD_SCREENSHOT ? 30 : 3;
    for (let i = 0; i < rounds; i++) {
      const { resources } = await client.listResources();
      await client.readResource({ uri: resources[i % resources.length]!.uri });
      if (process.env.SWITCHYARD_SCREENSHOT) await new Promise((r) => setTimeout(r, 200));
    }
    // Page-side expressions as strings: this file is type-checked without the DOM library.
    await page.waitForFunction(
      `Number(document.getElementById('requests-total').textContent) >= ${before + 2 * rounds}`,
    );
    await page.waitForSelector('#recent tbody tr');

    // Kill one upstream: the next call to it fails, and the page shows it down with its error.
    await notes.server.close();
    // A URI no earlier read touched, so the cache cannot answer it.
    await expect(client.readResource({ uri: 'notes+test://notes/items/after-kill' })).rejects.toThrow();
    const notesRow = `document.querySelector('#upstreams tr[data-upstream="notes"]')`;
    await page.waitForFunction(`${notesRow}.querySelector('.state').textContent !== 'ready'`);
    await page.waitForFunction(`Number(${notesRow}.querySelector('.errors').textContent) > 0`);
    expect(Number(await text(page, '#requests-errors'))).toBeGreaterThan(0);
    expect(failures).toEqual([]);

    if (process.env.SWITCHYARD_SCREENSHOT) {
      await mkdir(dirname(SCREENSHOT), { recursive: true });
      await page.screenshot({ path: SCREENSHOT as `${string}.png`, fullPage: true });
      expect((await stat(SCREENSHOT)).size).toBeLessThan(200 * 1024);
    }
  });

  it("shows the pin plugin's quarantined tools with a readable diff (text only), and hides the section without the plugin", async () => {
    const docs = await httpUpstream(cleanup, { name: 'docs', tools: 2 });
    const dir = await tempDir(cleanup);
    const lockFile = join(dir, 'pins.json');
    // tool_0 pinned to a definition whose description carries markup (changed since: the upstream's
    // own description), kept beside the lock file as after a restart; tool_1 not pinned (new).
    const direct = await connectHttp(cleanup, docs.url, 'direct');
    const listed = (await direct.listTools()).tools as Record<string, unknown>[];
    const crafted = {
      ...listed.find((t) => t.name === 'tool_0')!,
      description: '<img src=x onerror="window.__pwned=1">Reads <b>files</b>',
    };
    const digest = definitionDigest('tools', crafted);
    await writeFile(
      lockFile,
      JSON.stringify({ version: 1, servers: { docs: { tools: { tool_0: digest } } } }),
    );
    await writeFile(
      join(dir, 'pins.definitions.json'),
      JSON.stringify({ version: 1, definitions: { [digest]: { kind: 'tools', definition: crafted } } }),
    );
    const { gw, admin } = await startAdminGateway(cleanup, {
      mcpServers: { docs: { url: docs.url } },
      plugins: [['@switchyard/plugin-pin', { lockFile }]],
    });
    const client = await connectHttp(cleanup, gw.url, 'page-test');
    expect((await client.listTools()).tools).toEqual([]);
    const browser = await launch();
    const page = await browser.newPage();
    const failures: string[] = [];
    page.on('pageerror', (error) => failures.push(String(error)));
    await page.goto(admin);
    await page.waitForSelector('#pins tbody tr');
    const rows = await page.$$eval('#pins tbody tr', (trs) =>
      trs.map((tr) => [...tr.querySelectorAll('td')].slice(0, 5).map((td) => td.textContent)),
    );
    expect(rows).toEqual([
      ['docs__tool_0', 'docs', 'tool', 'changed', 'description'],
      ['docs__tool_1', 'docs', 'tool', 'new', '–'],
    ]);
    expect(await text(page, '#pins-mode')).toContain('mode enforce');

    // The diff: closed at first, opened by a click, and still open once the table is redrawn.
    const changed = '#pins tr[data-pin="tool docs__tool_0"]';
    expect(await text(page, `${changed} summary`)).toBe('1 field');
    await page.click(`${changed} summary`);
    await page.evaluate(`window.__updated = document.getElementById('updated').textContent`);
    await page.waitForFunction(`document.getElementById('updated').textContent !== window.__updated`);
    expect(await page.$eval(`${changed} details`, (el) => (el as unknown as { open: boolean }).open)).toBe(
      true,
    );
    expect(await text(page, `${changed} .diff-field`)).toBe('description');
    expect(await text(page, `${changed} pre.diff-before`)).toBe(crafted.description);
    expect(await text(page, `${changed} pre.diff-after`)).toBe(
      String(listed.find((t) => t.name === 'tool_0')!.description),
    );
    // The upstream's markup stayed text: no element made of it, no script run.
    expect(await page.$$eval('#pins img, #pins b', (els) => els.length)).toBe(0);
    expect(await page.evaluate('window.__pwned')).toBeUndefined();
    // A new tool's diff is its definition against nothing.
    const fresh = '#pins tr[data-pin="tool docs__tool_1"]';
    expect(await text(page, `${fresh} summary`)).toMatch(/^[2-9] fields$/);
    // Its Approve button pins the definition the row shows: it sends that one's digest.
    const shown = definitionDigest('tools', listed.find((t) => t.name === 'tool_1')!);
    expect(
      await page.$eval(
        `${fresh} button.approve-pin`,
        (el) => (el as unknown as { dataset: Record<string, string> }).dataset.digest,
      ),
    ).toBe(shown);
    const sent = new Promise<string | undefined>((resolve) =>
      page.on('request', (req) => {
        if (req.url().endsWith('/admin/pins/approve')) resolve(req.postData());
      }),
    );
    await page.click(`${fresh} button.approve-pin`);
    expect(JSON.parse((await sent) ?? '')).toEqual({ name: 'docs__tool_1', digest: shown });
    await page.waitForFunction(`!document.querySelector('#pins tr[data-pin="tool docs__tool_1"]')`);
    expect(await text(page, '#pins-error')).toBe('');
    expect(failures).toEqual([]);

    const plain = await startAdminGateway(cleanup, { mcpServers: { docs: { url: docs.url } } });
    const other = await browser.newPage();
    await other.goto(plain.admin);
    await other.waitForSelector('#upstreams tr[data-upstream="docs"]');
    expect(await other.$eval('#pins-section', (el) => (el as { hidden: boolean }).hidden)).toBe(true);
  });
});
