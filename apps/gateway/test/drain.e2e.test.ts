import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { Client } from '@modelcontextprotocol/client';
import { WebSocketClientTransport } from '@switchyard/core/listener';
import { afterEach, describe, expect, it } from 'vitest';
import {
  Cleanup,
  connectHttp,
  eventually,
  type GatewayProcess,
  httpUpstream,
  rawPost,
  startGateway,
  tempDir,
  writeConfig,
} from './support/harness.js';
import { errorOf } from './support/named.js';
import { connectStdio } from './support/stdio.js';

// SIGTERM drains (DESIGN §10): no new work, requests in flight finish within shutdownGraceMs, then
// the process exits 0; a second signal exits at once.

const cleanup = new Cleanup();
afterEach(() => cleanup.run());

const INIT = JSON.stringify({
  jsonrpc: '2.0',
  id: 1,
  method: 'initialize',
  params: { protocolVersion: '2025-06-18', capabilities: {}, clientInfo: { name: 'drain', version: '1' } },
});

const MODERN_META = {
  'io.modelcontextprotocol/protocolVersion': '2026-07-28',
  'io.modelcontextprotocol/clientCapabilities': {},
  'io.modelcontextprotocol/clientInfo': { name: 'drain', version: '1' },
};

async function gatewayWithSlowTool() {
  const up = await httpUpstream(cleanup, { name: 'up', resources: 1, behaviorTools: true });
  const gw = await startGateway(cleanup, {
    listen: {
      http: { host: '127.0.0.1', port: 0, path: '/mcp' },
      ws: { host: '127.0.0.1', port: 0, path: '/mcp' },
    },
    mcpServers: { up: { url: up.url } },
    shutdownGraceMs: 20_000,
  });
  const wsUrl = (await gw.waitForLine(/listening on (ws:\/\/\S+)/))[1]!;
  const client = await connectHttp(cleanup, gw.url);
  return { gw, client, wsUrl, stats: up.server.stats };
}

async function connectWs(url: string): Promise<Client> {
  const client = new Client({ name: 'drain-ws', version: '1.0.0' });
  await client.connect(new WebSocketClientTransport(new URL(url)));
  cleanup.add(() => client.close());
  return client;
}

function exitWithin(gw: GatewayProcess, ms: number): Promise<number | string | null> {
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new Error(`gateway still running after ${ms} ms:\n${gw.stderr()}`)), ms);
  });
  return Promise.race([gw.exited, timeout]).finally(() => clearTimeout(timer));
}

describe('drain', () => {
  it('lets calls in flight (HTTP and WebSocket) finish, refuses new work, and exits 0', async () => {
    const { gw, client, wsUrl, stats } = await gatewayWithSlowTool();
    const ws = await connectWs(wsUrl);
    const args = { name: 'up__slow', arguments: { ms: 1_500, steps: 1 } };
    const call = client.callTool(args);
    const wsCall = ws.callTool(args);
    await eventually(() => stats.activeToolCalls === 2, 'the slow calls to reach the upstream');
    gw.signal('SIGTERM');
    await gw.waitForLine(/shutting down \(draining/);
    // The listener stays open while the call runs, and refuses new sessions and requests.
    const refused = await rawPost(gw.url, INIT);
    expect(refused.status).toBe(503);
    expect(refused.json).toMatchObject({ error: { code: -32000, data: { reason: 'shutting_down' } } });
    await expect(client.ping()).rejects.toThrow(/503|shutting down/);
    await expect(ws.ping()).rejects.toThrow(/shutting down/);
    const results = await Promise.all([call, wsCall]);
    expect(results.map((r) => r.isError ?? false)).toEqual([false, false]);
    expect(await exitWithin(gw, 10_000)).toBe(0);
  });

  it('answers a call still in flight when the grace period ends, and one whose session is deleted, with an error', async () => {
    // Found from outside: both POSTs got an empty 200 (no JSON-RPC answer).
    const up = await httpUpstream(cleanup, { name: 'up', resources: 1, behaviorTools: true });
    const gw = await startGateway(cleanup, { mcpServers: { up: { url: up.url } }, shutdownGraceMs: 300 });
    const open = async () => {
      const init = await rawPost(gw.url, INIT);
      const headers = {
        'mcp-session-id': init.headers.get('mcp-session-id')!,
        'mcp-protocol-version': '2025-06-18',
      };
      await rawPost(gw.url, JSON.stringify({ jsonrpc: '2.0', method: 'notifications/initialized' }), headers);
      return headers;
    };
    const slow = (headers: Record<string, string>, id: number) =>
      rawPost(
        gw.url,
        JSON.stringify({
          jsonrpc: '2.0',
          id,
          method: 'tools/call',
          params: { name: 'up__slow', arguments: { ms: 60_000, steps: 1 } },
        }),
        headers,
      );
    const calls = (n: number) => () => up.server.stats.activeToolCalls === n;
    const a = await open();
    const deleted = slow(a, 2);
    await eventually(calls(1), 'the first slow call to reach the upstream');
    expect((await fetch(gw.url, { method: 'DELETE', headers: a })).status).toBe(200);
    expect(await deleted).toMatchObject({
      status: 404,
      json: { id: 2, error: { code: -32001, data: { reason: 'session_not_found' } } },
    });
    await eventually(calls(0), 'the deleted session to cancel its call upstream');
    const cut = slow(await open(), 3);
    // And a 2026-07-28 call (found from outside: its connection closed without a byte).
    const modernCut = rawPost(
      gw.url,
      JSON.stringify({
        jsonrpc: '2.0',
        id: 4,
        method: 'tools/call',
        params: { name: 'up__slow', arguments: { ms: 60_000, steps: 1 }, _meta: MODERN_META },
      }),
      { 'mcp-protocol-version': '2026-07-28', 'mcp-method': 'tools/call', 'mcp-name': 'up__slow' },
    );
    await eventually(calls(2), 'both slow calls to reach the upstream');
    gw.signal('SIGTERM');
    expect(await cut).toMatchObject({
      status: 503,
      json: { id: 3, error: { code: -32000, data: { reason: 'shutting_down' } } },
    });
    expect(await modernCut).toMatchObject({
      json: { id: 4, error: { code: -32000, data: { reason: 'shutting_down' } } },
    });
    expect(await exitWithin(gw, 10_000)).toBe(0);
  });

  it('audits a call cut off when the grace period ends as what its client got: -32000 shutting_down, not a cancellation', async () => {
    // Found from outside: the client got HTTP 503 shutting_down, its audit record -32603 cancelled.
    const up = await httpUpstream(cleanup, { name: 'up', resources: 1, behaviorTools: true });
    const audit = join(await tempDir(cleanup), 'audit.jsonl');
    const gw = await startGateway(cleanup, {
      mcpServers: { up: { url: up.url } },
      shutdownGraceMs: 300,
      plugins: [['@switchyard/plugin-audit', { file: audit }]],
    });
    const client = await connectHttp(cleanup, gw.url);
    const slow = { name: 'up__slow', arguments: { ms: 60_000, steps: 1 } };
    const cut = errorOf(client.callTool(slow));
    const modernCut = rawPost(
      gw.url,
      JSON.stringify({
        jsonrpc: '2.0',
        id: 4,
        method: 'tools/call',
        params: { ...slow, _meta: MODERN_META },
      }),
      { 'mcp-protocol-version': '2026-07-28', 'mcp-method': 'tools/call', 'mcp-name': 'up__slow' },
    );
    await eventually(() => up.server.stats.activeToolCalls === 2, 'both slow calls to reach the upstream');
    gw.signal('SIGTERM');
    expect(await cut).toMatchObject({ code: -32000, data: { reason: 'shutting_down' } });
    expect(await modernCut).toMatchObject({
      json: { id: 4, error: { code: -32000, data: { reason: 'shutting_down' } } },
    });
    expect(await exitWithin(gw, 10_000)).toBe(0);
    const records = readFileSync(audit, 'utf8')
      .trim()
      .split('\n')
      .map((line) => JSON.parse(line) as Record<string, unknown>)
      .filter((r) => r.method === 'tools/call');
    expect(records).toEqual([
      expect.objectContaining({
        tool: 'up__slow',
        outcome: 'error',
        errorCode: -32000,
        reason: 'shutting_down',
      }),
      expect.objectContaining({
        tool: 'up__slow',
        outcome: 'error',
        errorCode: -32000,
        reason: 'shutting_down',
      }),
    ]);
  });

  it('answers WebSocket and stdio calls cut off when the grace period ends with -32000 shutting_down, and audits them so', async () => {
    // Found from outside: the connection just closed (the client heard no answer), and the audit record
    // said -32603 cancelled, where an HTTP session's POST hears (and records) shutting_down.
    const up = await httpUpstream(cleanup, { name: 'up', resources: 1, behaviorTools: true });
    const dir = await tempDir(cleanup);
    const config = (listen: Record<string, unknown>, audit: string) => ({
      listen,
      mcpServers: { up: { url: up.url } },
      shutdownGraceMs: 300,
      plugins: [['@switchyard/plugin-audit', { file: join(dir, audit) }]],
    });
    const slow = { name: 'up__slow', arguments: { ms: 60_000, steps: 1 } };
    const cutOff = { code: -32000, data: { reason: 'shutting_down' } };
    const auditedCutOff = (audit: string) =>
      readFileSync(join(dir, audit), 'utf8')
        .trim()
        .split('\n')
        .map((line) => JSON.parse(line) as Record<string, unknown>)
        .filter((r) => r.method === 'tools/call');

    const gw = await startGateway(
      cleanup,
      config(
        {
          http: { host: '127.0.0.1', port: 0, path: '/mcp' },
          ws: { host: '127.0.0.1', port: 0, path: '/mcp' },
        },
        'ws.jsonl',
      ),
    );
    const wsUrl = (await gw.waitForLine(/listening on (ws:\/\/\S+)/))[1]!;
    const ws = await connectWs(wsUrl);
    const wsCut = errorOf(ws.callTool(slow));
    const started = () => up.server.stats.toolCalls.slow ?? 0;
    await eventually(() => started() === 1, 'the WebSocket call to reach the upstream');
    gw.signal('SIGTERM');
    expect(await wsCut).toMatchObject(cutOff);
    expect(await exitWithin(gw, 10_000)).toBe(0);
    expect(auditedCutOff('ws.jsonl')).toEqual([
      expect.objectContaining({ tool: 'up__slow', errorCode: -32000, reason: 'shutting_down' }),
    ]);

    const file = await writeConfig(cleanup, config({ stdio: true }, 'stdio.jsonl'));
    const { client, transport } = await connectStdio(cleanup, file);
    const exited = new Promise<void>((resolve) => {
      transport.onclose = () => resolve();
    });
    const stdioCut = errorOf(client.callTool(slow));
    await eventually(() => started() === 2, 'the stdio call to reach the upstream');
    process.kill(transport.pid!, 'SIGTERM');
    expect(await stdioCut).toMatchObject(cutOff);
    await exited;
    expect(auditedCutOff('stdio.jsonl')).toEqual([
      expect.objectContaining({ tool: 'up__slow', errorCode: -32000, reason: 'shutting_down' }),
    ]);
  });

  it('a second SIGTERM during a long call exits at once with 143', async () => {
    const { gw, client, stats } = await gatewayWithSlowTool();
    const call = client.callTool({ name: 'up__slow', arguments: { ms: 60_000, steps: 1 } });
    call.catch(() => {});
    await eventually(() => stats.activeToolCalls === 1, 'the slow call to reach the upstream');
    gw.signal('SIGTERM');
    await gw.waitForLine(/shutting down \(draining/);
    gw.signal('SIGTERM');
    expect(await exitWithin(gw, 5_000)).toBe(143);
  });

  it('drains a stdio session too: its call in flight finishes, a new request is refused, then exit 0', async () => {
    const up = await httpUpstream(cleanup, { name: 'up', resources: 1, behaviorTools: true });
    const config = await writeConfig(cleanup, {
      mcpServers: { up: { url: up.url } },
      shutdownGraceMs: 20_000,
    });
    const { client, transport, logs } = await connectStdio(cleanup, config);
    const exited = new Promise<void>((resolve) => {
      transport.onclose = () => resolve();
    });
    const call = client.callTool({ name: 'up__slow', arguments: { ms: 1_500, steps: 1 } });
    await eventually(() => up.server.stats.activeToolCalls === 1, 'the slow call to reach the upstream');
    process.kill(transport.pid!, 'SIGTERM');
    await logs.waitFor(/shutting down \(draining/);
    await expect(client.ping()).rejects.toMatchObject({ code: -32000, data: { reason: 'shutting_down' } });
    expect((await call).isError ?? false).toBe(false);
    await exited;
    expect(logs.text).not.toMatch(/grace period over/);
  });

  it('closes at once when nothing is in flight', async () => {
    const { gw, client } = await gatewayWithSlowTool();
    await client.ping();
    gw.signal('SIGTERM');
    expect(await exitWithin(gw, 5_000)).toBe(0);
  });
});
