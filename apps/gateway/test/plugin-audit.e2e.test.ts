import { existsSync, readFileSync, statSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import type { Client } from '@modelcontextprotocol/client';
import { afterEach, describe, expect, it } from 'vitest';
import {
  Cleanup,
  connectHttp,
  type GatewayProcess,
  httpUpstream,
  listAll,
  rawInitialize,
  rawPost,
  spawnGateway,
  startGateway,
  tempDir,
  writeConfig,
} from './support/harness.js';

// The audit plugin through the real CLI, loaded by package name, over HTTP: what lands in the file,
// and what survives SIGTERM and SIGKILL.

const cleanup = new Cleanup();
afterEach(() => cleanup.run());

const DENY_PLUGIN = fileURLToPath(new URL('./fixtures/deny-plugin.js', import.meta.url));

interface Line {
  time: string;
  identity: string;
  groups?: string[];
  session: string;
  transport: string;
  method: string;
  uri?: string;
  tool?: string;
  prompt?: string;
  upstream?: string;
  upstreamUri?: string;
  upstreamName?: string;
  params?: { arguments?: Record<string, unknown> };
  outcome: 'ok' | 'error';
  errorCode?: number;
  reason?: string;
  durationMs: number;
  bytes?: number;
}

function readLines(file: string): Line[] {
  if (!existsSync(file)) return [];
  return readFileSync(file, 'utf8')
    .split('\n')
    .filter((l) => l.length > 0)
    .map((l) => JSON.parse(l) as Line);
}

/** A gateway in front of one testkit upstream (`docs`), the audit plugin outermost and the deny plugin inside it. */
async function auditedGateway(audit: Record<string, unknown>, extra: Record<string, unknown> = {}, env = {}) {
  const { url } = await httpUpstream(cleanup, { name: 'docs', resources: 3, tools: 2, prompts: 1 });
  return startGateway(
    cleanup,
    {
      listen: { http: { host: '127.0.0.1', port: 0, path: '/mcp' } },
      mcpServers: { docs: { url } },
      plugins: [
        ['@switchyard/plugin-audit', audit],
        [DENY_PLUGIN, { contains: 'secret' }],
      ],
      ...extra,
    },
    { env },
  );
}

/** Where a relative `file` option lands: the folder of the config file the harness wrote. */
const configDir = (gw: GatewayProcess) => dirname(gw.file);

const read = (client: Client, uri: string) =>
  client.request({ method: 'resources/read', params: { uri } }).then(
    () => 'ok',
    (error: { code?: number }) => error.code,
  );

async function sigterm(gw: GatewayProcess): Promise<void> {
  expect(await gw.stop()).toBe(0);
}

describe('audit plugin through the CLI', () => {
  it('writes one line per answered request, errors included, and SIGTERM leaves every one on disk', async () => {
    const gw = await auditedGateway({ file: './audit.jsonl' });
    const file = join(configDir(gw), 'audit.jsonl');
    const client = await connectHttp(cleanup, gw.url);
    await listAll(client);
    expect(await read(client, 'docs+test://docs/r/0')).toBe('ok');
    expect(await read(client, 'docs+test://docs/secret')).toBe(-32007);
    expect(await read(client, 'nowhere://x')).not.toBe('ok');
    const burst = await Promise.all(
      Array.from({ length: 20 }, (_, i) => read(client, `docs+test://docs/r/${i % 3}`)),
    );
    expect(burst.every((r) => r === 'ok')).toBe(true);
    await sigterm(gw);
    const lines = readLines(file);
    expect(lines).toHaveLength(1 + 1 + 1 + 1 + 20);
    expect(lines[0]).toMatchObject({ method: 'resources/list', outcome: 'ok', transport: 'http' });
    expect(lines[1]).toMatchObject({
      method: 'resources/read',
      uri: 'docs+test://docs/r/0',
      upstream: 'docs',
      outcome: 'ok',
      identity: 'anonymous',
    });
    expect(lines[1]!.bytes).toBeGreaterThan(0);
    expect(lines[2]).toMatchObject({
      uri: 'docs+test://docs/secret',
      errorCode: -32007,
      reason: 'forbidden',
    });
    expect(lines[3]).toMatchObject({ uri: 'nowhere://x', outcome: 'error', reason: 'resource_not_found' });
    expect(new Set(lines.map((l) => l.session)).size).toBe(1);
  });

  it('records the error code the client received: -32002 for a legacy client reading an unknown resource', async () => {
    const file = join(await tempDir(cleanup), 'audit.jsonl');
    const gw = await auditedGateway({ file });
    const { sessionId, protocolVersion } = await rawInitialize(gw.url);
    const uri = 'docs+test://docs/missing';
    const res = await rawPost(
      gw.url,
      JSON.stringify({ jsonrpc: '2.0', id: 7, method: 'resources/read', params: { uri } }),
      { 'mcp-session-id': sessionId, 'mcp-protocol-version': protocolVersion },
    );
    const wire = (res.json as { error: { code: number } }).error;
    expect(wire).toMatchObject({ code: -32002, data: { reason: 'resource_not_found', uri } });
    // Each record is written before its response leaves, so it is in the file already.
    const lines = readLines(file);
    expect(lines).toHaveLength(1);
    expect(lines[0]).toMatchObject({ uri, upstream: 'docs', outcome: 'error', reason: 'resource_not_found' });
    expect(lines[0]!.errorCode).toBe(wire.code);
    await sigterm(gw);
  });

  it('fsync "interval": kill -9 right after the responses loses no record', async () => {
    const file = join(await tempDir(cleanup), 'audit.jsonl');
    // No fdatasync will have run: the records survive because each was written before its response.
    const gw = await auditedGateway({ file, intervalMs: 600_000 });
    const client = await connectHttp(cleanup, gw.url);
    const answers = await Promise.all(
      Array.from({ length: 30 }, (_, i) => read(client, `docs+test://docs/r/${i % 3}`)),
    );
    gw.signal('SIGKILL');
    expect(await gw.exited).toBe('SIGKILL');
    expect(answers.every((a) => a === 'ok')).toBe(true);
    const lines = readLines(file);
    expect(lines).toHaveLength(30);
    expect(lines.every((l) => l.method === 'resources/read' && l.outcome === 'ok')).toBe(true);
  });

  it('fsync "always": every record is in the file by the time its response arrives', async () => {
    const file = join(await tempDir(cleanup), 'audit.jsonl');
    const gw = await auditedGateway({ file, fsync: 'always' });
    const client = await connectHttp(cleanup, gw.url);
    for (let round = 1; round <= 3; round++) {
      const answers = await Promise.all(
        Array.from({ length: 10 }, (_, i) => read(client, `docs+test://docs/r/${i % 3}`)),
      );
      expect(answers.every((a) => a === 'ok')).toBe(true);
      expect(readLines(file)).toHaveLength(round * 10); // the gateway is still running
    }
    gw.signal('SIGKILL');
    await gw.exited;
    expect(readLines(file)).toHaveLength(30);
  });

  it('rotates by size: file, file.1, file.2 hold the newest records in order, older ones are dropped', async () => {
    const file = join(await tempDir(cleanup), 'audit.jsonl');
    const maxBytes = 1000;
    const gw = await auditedGateway({ file, maxBytes, maxFiles: 2 });
    const client = await connectHttp(cleanup, gw.url);
    const total = 30;
    for (let i = 0; i < total; i++) expect(await read(client, `docs+test://docs/items/${i}`)).toBe('ok');
    await sigterm(gw);
    expect(existsSync(`${file}.3`)).toBe(false);
    const kept = [`${file}.2`, `${file}.1`, file];
    for (const f of kept) expect(statSync(f).size).toBeLessThanOrEqual(maxBytes);
    const ids = kept.flatMap((f) => readLines(f)).map((l) => Number(l.uri?.split('/').pop()));
    // a contiguous run that ends with the last request: nothing lost in between, the oldest dropped
    expect(ids.length).toBeGreaterThan(3);
    expect(ids.length).toBeLessThan(total);
    expect(ids).toEqual(Array.from({ length: ids.length }, (_, k) => total - ids.length + k));
  });

  it('records the client identity and never its bearer token', async () => {
    const token = 'tok-alice-7f3c9a1e5b2d4c6f';
    const file = join(await tempDir(cleanup), 'audit.jsonl');
    const gw = await auditedGateway(
      { file, fsync: 'always' },
      { clients: { alice: { token: '${AUDIT_ALICE_TOKEN}', groups: ['platform'] } } },
      { AUDIT_ALICE_TOKEN: token },
    );
    const refused = await rawPost(
      gw.url,
      JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'resources/list', params: {} }),
      { authorization: 'Bearer wrong-token' },
    );
    expect(refused.status).toBe(401);
    const client = await connectHttp(cleanup, gw.url, 'alice', { token });
    await listAll(client);
    expect(await read(client, 'docs+test://docs/r/0')).toBe('ok');
    expect(await read(client, 'docs+test://docs/secret')).toBe(-32007);
    await sigterm(gw);
    const text = readFileSync(file, 'utf8');
    expect(text).not.toContain(token);
    const lines = readLines(file);
    expect(lines).toHaveLength(3); // the refused request never reached the plugins
    for (const line of lines) expect(line).toMatchObject({ identity: 'alice', groups: ['platform'] });
    expect(gw.stderr()).not.toContain(token);
  });

  it('records tool calls and prompt gets with their routed target, and their arguments only as configured', async () => {
    const file = join(await tempDir(cleanup), 'audit.jsonl');
    const gw = await auditedGateway({
      file,
      fsync: 'always',
      arguments: true,
      redact: ['params.arguments.apiKey'],
    });
    const client = await connectHttp(cleanup, gw.url);
    await client.request({
      method: 'tools/call',
      params: { name: 'docs__tool_1', arguments: { text: 'find it', apiKey: 'sk-live-0a1b2c3d' } },
    });
    await client.request({
      method: 'prompts/get',
      params: { name: 'docs__prompt_0', arguments: { topic: 'audit' } },
    });
    const unknown = await client
      .request({ method: 'tools/call', params: { name: 'docs__nothing', arguments: {} } })
      .catch((e: { code?: number }) => e.code);
    expect(unknown).toBe(-32602);
    await sigterm(gw);
    const lines = readLines(file);
    expect(lines).toHaveLength(3);
    expect(lines[0]).toMatchObject({
      method: 'tools/call',
      tool: 'docs__tool_1',
      upstream: 'docs',
      upstreamName: 'tool_1',
      params: { arguments: { text: 'find it', apiKey: '[REDACTED]' } },
      outcome: 'ok',
    });
    expect(lines[1]).toMatchObject({
      method: 'prompts/get',
      prompt: 'docs__prompt_0',
      upstreamName: 'prompt_0',
      params: { arguments: { topic: 'audit' } },
    });
    // No upstream has that tool: the line names what was asked for, and no route.
    expect(lines[2]).toMatchObject({ tool: 'docs__nothing', outcome: 'error', reason: 'tool_not_found' });
    expect(lines[2]).not.toHaveProperty('upstream');
    expect(readFileSync(file, 'utf8')).not.toContain('sk-live-0a1b2c3d');
  });

  it('refuses to start, with exit code 2, when the audit file cannot be opened', async () => {
    const config = await writeConfig(cleanup, {
      listen: { http: { host: '127.0.0.1', port: 0, path: '/mcp' } },
      mcpServers: {},
      plugins: [['@switchyard/plugin-audit', { file: './missing/audit.jsonl' }]],
    });
    const gw = spawnGateway(cleanup, ['--config', config]);
    expect(await gw.exited).toBe(2);
    expect(gw.stderr()).toMatch(
      /plugin error \(PLUGIN_SETUP_FAILED\): Plugin @switchyard\/plugin-audit failed to set up: cannot open the audit file .*missing\/audit\.jsonl/,
    );
  });
});
