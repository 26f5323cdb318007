import { existsSync, readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import type { Client } from '@modelcontextprotocol/client';
import type { TestServer } from '@switchyard/testkit';
import { afterEach, describe, expect, it } from 'vitest';
import {
  Cleanup,
  collectNotifications,
  connectHttp,
  eventually,
  type GatewayProcess,
  httpUpstream,
  startGateway,
} from './support/harness.js';

// The secrets plugin through the real CLI, loaded by package name beside the audit plugin, in front of
// a testkit upstream whose echo tools answer with their arguments; the gateway logs at debug level.

const cleanup = new Cleanup();
afterEach(() => cleanup.run());

// A fake GitHub token (assembled, so this file holds no literal a secret scanner stops on).
const TOKEN = ['ghp', 'wWPw5k4aXcaT4fNP0UcnZwJUVFk6LO0pINUx'].join('_');
const SECRET_DETECTED = { code: -32010, data: { reason: 'secret_detected', rules: ['github'] } };
// A generated AWS key pair (not the documentation's EXAMPLE values, which the rule allows).
const AWS_ID = ['ASIA', 'Q3XZ7LKD2MWP6NRT'].join('');
const AWS_SECRET = ['k9Vd2PqL7sWx/Rt4Zb8N+', 'fGh3Jm6Yc1Ua5Eo0Ti2'].join('');
const AWS_PAIR = `aws_access_key_id = ${AWS_ID}\naws_secret_access_key = ${AWS_SECRET}`;

type Plugins = [string, Record<string, unknown>][];

async function gateway(
  plugins: (audit: string) => Plugins,
): Promise<{ gw: GatewayProcess; upstream: TestServer; audit: string; client: Client }> {
  const { server: upstream, url } = await httpUpstream(cleanup, {
    name: 'docs',
    tools: 1,
    prompts: 1,
    behaviorTools: true,
  });
  const gw = await startGateway(
    cleanup,
    {
      listen: { http: { host: '127.0.0.1', port: 0, path: '/mcp' } },
      mcpServers: { docs: { url } },
      plugins: plugins('./audit.jsonl'),
    },
    { args: ['--log-level', 'debug'] },
  );
  const client = await connectHttp(cleanup, gw.url);
  return { gw, upstream, audit: join(dirname(gw.file), 'audit.jsonl'), client };
}

const call = (client: Client, text: string) =>
  client.request({ method: 'tools/call', params: { name: 'docs__tool_0', arguments: { text } } });

function records(file: string): Record<string, unknown>[] {
  if (!existsSync(file)) return [];
  return readFileSync(file, 'utf8')
    .split('\n')
    .filter((l) => l.length > 0)
    .map((l) => JSON.parse(l) as Record<string, unknown>);
}

/** After a clean stop, neither the audit file nor anything the gateway printed holds the token. */
async function expectNoTokenAnywhere(gw: GatewayProcess, audit: string) {
  expect(await gw.stop()).toBe(0);
  expect(gw.stderr()).not.toContain(TOKEN);
  expect(gw.stdout()).not.toContain(TOKEN);
  expect(existsSync(audit) ? readFileSync(audit, 'utf8') : '').not.toContain(TOKEN);
}

describe('@switchyard/plugin-secrets through the CLI', () => {
  it('refuses a token in tool arguments before the upstream; the audit log outside it records the rule, not the token', async () => {
    const { gw, upstream, audit, client } = await gateway((file) => [
      ['@switchyard/plugin-audit', { file, arguments: true }],
      ['@switchyard/plugin-secrets', {}],
    ]);
    await expect(call(client, `deploy with ${TOKEN}`)).rejects.toMatchObject(SECRET_DETECTED);
    expect(upstream.stats.toolCalls.tool_0 ?? 0).toBe(0);
    expect(await call(client, 'hello')).toMatchObject({
      structuredContent: { arguments: { text: 'hello' } },
    });
    expect(upstream.stats.toolCalls.tool_0).toBe(1);
    await expectNoTokenAnywhere(gw, audit);
    expect(gw.stderr()).toMatch(/credential found.*github/); // debug logging was on, and names the rule
    const calls = records(audit).filter((r) => r.method === 'tools/call');
    expect(calls).toHaveLength(2);
    expect(calls[0]).toMatchObject({
      tool: 'docs__tool_0',
      outcome: 'error',
      errorCode: -32010,
      reason: 'secret_detected',
      params: { arguments: { text: 'deploy with [REDACTED:github]' } },
      secrets: ['github'],
    });
    expect(calls[1]).toMatchObject({ outcome: 'ok', params: { arguments: { text: 'hello' } } });
    expect(calls[1]!.secrets).toBeUndefined();
  });

  it('refuses it too with the audit log listed inside it, which then never sees the request', async () => {
    const { gw, upstream, audit, client } = await gateway((file) => [
      ['@switchyard/plugin-secrets', {}],
      ['@switchyard/plugin-audit', { file, arguments: true }],
    ]);
    await expect(call(client, TOKEN)).rejects.toMatchObject(SECRET_DETECTED);
    expect(upstream.stats.toolCalls.tool_0 ?? 0).toBe(0);
    await expectNoTokenAnywhere(gw, audit);
    expect(records(audit).filter((r) => r.method === 'tools/call')).toEqual([]);
  });

  it('redacts a token in a tool result, which stays a valid text result', async () => {
    const { gw, upstream, audit, client } = await gateway((file) => [
      ['@switchyard/plugin-audit', { file }],
      ['@switchyard/plugin-secrets', { scan: ['results'] }],
    ]);
    const result = (await call(client, `echo ${TOKEN} back`)) as {
      content: { type: string; text: string }[];
      structuredContent: { arguments: { text: string } };
    };
    expect(upstream.stats.toolCalls.tool_0).toBe(1);
    expect(result.content[0]!.type).toBe('text');
    expect(result.content[0]!.text).toContain('echo [REDACTED:github] back');
    expect(result.structuredContent.arguments.text).toBe('echo [REDACTED:github] back');
    expect(JSON.stringify(result)).not.toContain(TOKEN);
    await expectNoTokenAnywhere(gw, audit);
    expect(records(audit).find((r) => r.method === 'tools/call')).toMatchObject({
      outcome: 'ok',
      secrets: ['github'],
    });
  });

  it('refuses an AWS access key id alone, nested deep in tool arguments, before the upstream', async () => {
    const { gw, upstream, audit, client } = await gateway((file) => [
      ['@switchyard/plugin-audit', { file, arguments: true }],
      ['@switchyard/plugin-secrets', {}],
    ]);
    const args = { text: 'deploy', profile: { credentials: [{ accessKeyId: AWS_ID }] } };
    await expect(
      client.request({ method: 'tools/call', params: { name: 'docs__tool_0', arguments: args } }),
    ).rejects.toMatchObject({ code: -32010, data: { reason: 'secret_detected', rules: ['aws'] } });
    expect(upstream.stats.toolCalls.tool_0 ?? 0).toBe(0);
    expect(await gw.stop()).toBe(0);
    for (const text of [gw.stderr(), gw.stdout(), readFileSync(audit, 'utf8')])
      expect(text).not.toContain(AWS_ID);
  });

  it('redacts an AWS key id beside its secret in a tool result, a prompt and a resource read', async () => {
    const { gw, audit, client } = await gateway((file) => [
      ['@switchyard/plugin-audit', { file }],
      ['@switchyard/plugin-secrets', { scan: ['results'] }],
    ]);
    const answers = [
      await call(client, AWS_PAIR),
      await client.request({
        method: 'prompts/get',
        params: { name: 'docs__prompt_0', arguments: { topic: AWS_PAIR } },
      }),
      await client.request({ method: 'resources/read', params: { uri: `docs+test://docs/items/${AWS_ID}` } }),
    ];
    for (const answer of answers) {
      const text = JSON.stringify(answer);
      expect(text).toContain('[REDACTED:aws]');
      expect(text).not.toContain(AWS_ID);
      expect(text).not.toContain(AWS_SECRET);
    }
    // Only answers are scanned here, so the read's URI (which carried the id to the upstream) is audited
    // as sent; the secret never was in a request the audit log records.
    expect(await gw.stop()).toBe(0);
    for (const text of [gw.stderr(), gw.stdout(), readFileSync(audit, 'utf8')])
      expect(text).not.toContain(AWS_SECRET);
  });

  it('refuses a token under a `blob` key in arguments before the upstream (found from outside)', async () => {
    const { gw, upstream, audit, client } = await gateway((file) => [
      ['@switchyard/plugin-audit', { file, arguments: true }],
      ['@switchyard/plugin-secrets', {}],
    ]);
    // Any key named `blob` was skipped as if it were base64 resource contents: the token reached the
    // upstream and the audit log.
    for (const args of [{ blob: TOKEN }, { nested: { blob: TOKEN } }]) {
      await expect(
        client.request({ method: 'tools/call', params: { name: 'docs__tool_0', arguments: args } }),
      ).rejects.toMatchObject(SECRET_DETECTED);
    }
    expect(upstream.stats.toolCalls.tool_0 ?? 0).toBe(0);
    await expectNoTokenAnywhere(gw, audit);
  });

  it("redacts a token in the upstream's log messages about a call (found from outside: never scanned)", async () => {
    const { gw, audit, client } = await gateway((file) => [
      ['@switchyard/plugin-audit', { file }],
      ['@switchyard/plugin-secrets', { scan: ['results'] }],
    ]);
    const logs = collectNotifications(client, 'notifications/message');
    const result = await client.request({
      method: 'tools/call',
      params: { name: 'docs__log', arguments: { message: `deploying with ${TOKEN}` } },
    });
    expect(result).toMatchObject({ content: [{ type: 'text', text: 'logged' }] });
    await eventually(() => logs.length > 0, 'the log message', 2_000);
    expect(logs).toEqual([{ level: 'info', logger: 'docs', data: 'deploying with [REDACTED:github]' }]);
    expect(records(audit).at(-1)).toMatchObject({ method: 'tools/call', secrets: ['github'] });
    await expectNoTokenAnywhere(gw, audit);
  });

  it('with block, refuses a result holding a token', async () => {
    const { gw, upstream, audit, client } = await gateway((file) => [
      ['@switchyard/plugin-audit', { file }],
      ['@switchyard/plugin-secrets', { scan: ['results'], action: 'block' }],
    ]);
    await expect(call(client, TOKEN)).rejects.toMatchObject({
      code: -32010,
      data: { reason: 'secret_detected', rules: ['github'], where: 'result' },
    });
    expect(upstream.stats.toolCalls.tool_0).toBe(1);
    expect(await call(client, 'fine')).toMatchObject({ structuredContent: { arguments: { text: 'fine' } } });
    await expectNoTokenAnywhere(gw, audit);
  });
});
