import { afterEach, describe, expect, it } from 'vitest';
import { startAdminGateway } from './support/admin.js';
import { CHROMIUM, launchBrowser, signIn, textOf } from './support/browser.js';
import { Cleanup, httpUpstream } from './support/harness.js';
import { connectOverHttp, interactiveClient } from './support/interactive.js';

// The approve plugin's pending approvals on the status page, in a real headless Chromium: an approver
// outside the admin groups signs in with its token and sees only the approvals; an admin sees them
// beside the status. The buttons decide the held call; upstream text is shown as text, never markup.

const cleanup = new Cleanup();
afterEach(() => cleanup.run());

const TOKENS = { alice: 'alice-token', lead: 'lead-token', root: 'root-token' };

describe.skipIf(!CHROMIUM)('pending approvals on the status page', () => {
  it('an approver approves and an admin denies a held call with the buttons', async () => {
    const old = await httpUpstream(cleanup, { name: 'old', tools: 2 });
    const { gw, admin } = await startAdminGateway(cleanup, {
      clients: {
        alice: { token: TOKENS.alice },
        lead: { token: TOKENS.lead, groups: ['leads'] },
        root: { token: TOKENS.root, groups: ['admins'] },
      },
      mcpServers: { old: { url: old.url } },
      plugins: [['@switchyard/plugin-approve', { rules: [{ tools: ['old__tool_1'], by: ['leads'] }] }]],
    });
    const { client } = interactiveClient('legacy');
    await connectOverHttp(cleanup, client, gw.url, TOKENS.alice);
    const browser = await launchBrowser(cleanup);
    const page = await browser.newPage();
    const failures: string[] = [];
    page.on('pageerror', (error) => failures.push(String(error)));

    await signIn(page, admin, TOKENS.lead);
    await page.waitForSelector('#approvals-section:not([hidden])');
    expect(await page.$eval('#main', (el) => (el as { hidden: boolean }).hidden)).toBe(true);
    expect(await textOf(page, '#approvals-note')).toBe('approver view');

    const crafted = '<img src=x onerror=window.pwned=1>';
    const approved = client.callTool(
      { name: 'old__tool_1', arguments: { text: crafted } },
      { timeout: 20_000 },
    );
    await page.waitForSelector('#approvals tbody tr[data-approval]');
    const cells = await page.$$eval('#approvals tbody tr td', (tds) => tds.map((td) => td.textContent));
    expect(cells.slice(0, 3)).toEqual(['alice', 'old__tool_1', 'old']);
    expect(await textOf(page, '#approvals pre.arguments')).toContain(crafted);
    expect(await page.$$eval('#approvals img', (imgs) => imgs.length)).toBe(0);
    expect(await page.evaluate('window.pwned')).toBeUndefined();
    expect(old.server.stats.toolCalls.tool_1 ?? 0).toBe(0);

    await page.click('#approvals button.approve');
    expect((await approved).structuredContent).toMatchObject({
      tool: 'tool_1',
      arguments: { text: crafted },
    });
    expect(old.server.stats.toolCalls.tool_1).toBe(1);
    await page.waitForFunction(`document.querySelectorAll('#approvals tbody tr').length === 0`);

    const adminPage = await browser.newPage();
    adminPage.on('pageerror', (error) => failures.push(String(error)));
    await signIn(adminPage, admin, TOKENS.root);
    await adminPage.waitForSelector('#main:not([hidden])');
    const denied = client.callTool({ name: 'old__tool_1', arguments: { text: 'drop' } }, { timeout: 20_000 });
    denied.catch(() => undefined);
    await adminPage.waitForSelector('#approvals tbody tr[data-approval]');
    await adminPage.click('#approvals button.deny');
    await expect(denied).rejects.toMatchObject({ code: -32013, data: { reason: 'approval_denied' } });
    expect(old.server.stats.toolCalls.tool_1).toBe(1);
    await adminPage.waitForFunction(`document.querySelectorAll('#approvals tbody tr').length === 0`);
    expect(failures).toEqual([]);
  });
});
