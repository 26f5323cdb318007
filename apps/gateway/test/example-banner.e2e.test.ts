import { readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { Client, StreamableHTTPClientTransport } from '@modelcontextprotocol/client';
import { afterEach, describe, expect, it } from 'vitest';
import { exampleCopy } from './support/example.js';
import {
  Cleanup,
  connectHttp,
  nextNotification,
  spawnGateway,
  TESTKIT_CLI,
  tempDir,
} from './support/harness.js';

const cleanup = new Cleanup();
afterEach(() => cleanup.run());

describe('pnpm start: the example and its banner', () => {
  it('prints a banner on stderr whose URLs answer, with the real ports, and the example serves everything', async () => {
    const { file, dir } = await exampleCopy(cleanup);
    const gw = spawnGateway(cleanup, ['--config', file, '--banner']);
    // The banner's last line: the whole block (one write) is in by then.
    await gw.waitForLine(/^\s+VS Code\s/, { timeoutMs: 20_000, what: 'the banner' });
    const banner = gw.stderr().slice(gw.stderr().indexOf('Switchyard '));
    const mcpUrl = banner.match(/^MCP endpoint\s+(http:\/\/\S+)$/m)?.[1];
    const statusUrl = banner.match(/^Status page\s+(http:\/\/\S+)$/m)?.[1];
    expect(mcpUrl).toMatch(/^http:\/\/127\.0\.0\.1:[1-9]\d*\/mcp$/);
    expect(statusUrl).toMatch(/^http:\/\/127\.0\.0\.1:[1-9]\d*\/$/);
    expect(banner).toMatch(/^Upstreams\s+docs\s+ready\s+1 tool, 1 prompt, 5 resources, 0 templates$/m);
    expect(banner).toMatch(/^\s+tickets\s+ready\s+3 tools, 1 prompt, 5 resources, 1 template$/m);
    expect(banner).toContain(`.cursor/mcp.json: {"mcpServers":{"switchyard":{"url":"${mcpUrl}"}}}`);
    expect(banner).not.toContain('\x1b['); // stderr is a pipe here: no colour
    expect(gw.stdout()).toBe('');

    const page = await fetch(statusUrl!);
    expect(page.status).toBe(200);
    expect(page.headers.get('content-type')).toMatch(/text\/html/);
    const ready = await fetch(new URL('/readyz', statusUrl));
    expect(ready.status).toBe(200);

    const client = await connectHttp(cleanup, mcpUrl!);
    const { tools } = await client.listTools();
    expect(tools.map((t) => t.name).sort()).toEqual([
      'docs__search_docs',
      'tickets__close_ticket',
      'tickets__create_ticket',
      'tickets__triage_queue',
    ]);
    const { prompts } = await client.listPrompts();
    expect(prompts.map((p) => p.name).sort()).toEqual(['docs__ask-handbook', 'tickets__summarize-ticket']);
    const { resources } = await client.listResources();
    expect(resources.map((r) => r.title)).toEqual(
      expect.arrayContaining(['Onboarding', 'Incident runbook', 'Queue status']),
    );
    expect(resources.map((r) => r.uri)).toContain('tickets+tickets://T-101');
    const { resourceTemplates } = await client.listResourceTemplates();
    expect(resourceTemplates.map((t) => t.uriTemplate)).toEqual(['tickets+tickets://{id}']);
    const runbook = await client.readResource({ uri: 'docs+file:///handbook/incident-runbook.md' });
    expect(runbook.contents[0]).toMatchObject({ text: expect.stringContaining('# Incident runbook') });

    // The live resource: subscribed through the gateway, its updates arrive (every 200 ms here).
    const updated = nextNotification(client, 'notifications/resources/updated', 10_000);
    await client.subscribeResource({ uri: 'tickets+tickets://queue/status' });
    expect(await updated).toMatchObject({ uri: 'tickets+tickets://queue/status' });

    // The audit plugin writes under the config's .switchyard folder.
    const audit = await readFile(join(dir, '.switchyard', 'audit.jsonl'), 'utf8');
    expect(audit).toContain('"method":"tools/list"');
  });

  it('the tickets tools work through the gateway: create, close after an elicitation, triage with progress', async () => {
    const { file } = await exampleCopy(cleanup);
    const gw = spawnGateway(cleanup, ['--config', file, '--banner']);
    const [, mcpUrl] = await gw.waitForLine(/^MCP endpoint\s+(http:\/\/\S+)$/, { timeoutMs: 20_000 });
    const client = new Client(
      { name: 'example-user', version: '1.0.0' },
      { capabilities: { elicitation: { form: {} } } },
    );
    const asked: string[] = [];
    client.setRequestHandler('elicitation/create', (request) => {
      asked.push(request.params.message);
      return { action: 'accept', content: { confirm: true } };
    });
    await client.connect(new StreamableHTTPClientTransport(new URL(mcpUrl!)));
    cleanup.add(() => client.close());

    const created = await client.callTool({
      name: 'tickets__create_ticket',
      arguments: { title: 'Disk full on build agent 3', priority: 'high' },
    });
    expect(created.content).toContainEqual(
      expect.objectContaining({ type: 'resource_link', uri: 'tickets+tickets://T-105' }),
    );
    const closed = await client.callTool({ name: 'tickets__close_ticket', arguments: { id: 'T-105' } });
    expect(asked).toEqual([expect.stringContaining('Close T-105')]);
    expect(closed.content).toContainEqual({ type: 'text', text: 'Closed T-105.' });
    const read = await client.readResource({ uri: 'tickets+tickets://T-105' }, { cacheMode: 'bypass' });
    expect(read.contents[0]).toMatchObject({ text: expect.stringContaining('Status: closed') });

    const progress: string[] = [];
    const triage = await client.callTool(
      { name: 'tickets__triage_queue', arguments: {} },
      {
        onprogress: (p) => void progress.push(p.message ?? ''),
      },
    );
    expect(progress.length).toBeGreaterThan(0);
    expect(triage.content).toContainEqual(
      expect.objectContaining({ text: expect.stringMatching(/^Suggested order:/) }),
    );
  });

  it("counts every page of a paginated upstream, past the callers' policy, with nothing in the audit log", async () => {
    const dir = await tempDir(cleanup);
    const file = join(dir, 'switchyard.json');
    const audit = join(dir, 'audit.jsonl');
    const args = [TESTKIT_CLI, '--name', 'big', '--resources', '25', '--page-size', '10', '--tools', '12'];
    await writeFile(
      file,
      JSON.stringify({
        listen: { http: { host: '127.0.0.1', port: 0, path: '/mcp' } },
        clients: { alice: { token: 'alice-token' } },
        mcpServers: { big: { command: process.execPath, args } },
        plugins: [
          ['@switchyard/plugin-audit', { file: audit, fsync: 'always' }],
          ['@switchyard/plugin-access', { default: 'deny', rules: [] }],
        ],
      }),
    );
    const gw = spawnGateway(cleanup, ['--config', file, '--banner']);
    await gw.waitForLine(/^\s+VS Code\s/, { timeoutMs: 20_000, what: 'the banner' });
    // The operator's inventory: a default-deny access policy hides everything from callers, not from it.
    expect(gw.stderr()).toMatch(
      /^Upstreams\s+big\s+ready\s+12 tools, 0 prompts, 25 resources, \d+ templates?$/m,
    );
    expect(await readFile(audit, 'utf8').catch(() => '')).toBe('');
  });

  it('leaves the banner out with --quiet, and by default when stderr is not a terminal', async () => {
    const { file } = await exampleCopy(cleanup);
    const runs = [
      spawnGateway(cleanup, ['--config', file, '--quiet', '--banner']),
      spawnGateway(cleanup, ['--config', file]), // stderr is a pipe here
    ];
    for (const gw of runs) {
      const admin = await gw.waitForLine(/admin listening on (http:\/\/\S+)/, { timeoutMs: 20_000 });
      expect((await fetch(new URL('/readyz', admin[1]))).status).toBe(200);
    }
    for (const gw of runs) {
      await gw.stop();
      expect(gw.stderr()).toContain('listening on');
      expect(gw.stderr()).not.toContain('ready in');
    }
  });
});
