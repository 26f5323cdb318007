/**
 * The raw MCP clients of `@switchyard/testkit/mcp`: a legacy session and sessionless 2026-07-28 requests
 * against the testkit's own HTTP server, and a session over stdio and over WebSocket against minimal
 * echo servers (a child process, an in-process `ws` server).
 */
import { Agent } from 'node:http';
import { afterEach, describe, expect, it } from 'vitest';
import { WebSocketServer } from 'ws';
import { TestServer } from '../src/index.js';
import {
  ChannelClient,
  closeSessions,
  eachLimited,
  LegacyHttpClient,
  ModernHttpClient,
  openSessions,
  PendingRequests,
  parseMessages,
  startTestkitHttp,
} from '../src/mcp/index.js';
import { spawnProcess } from '../src/process.js';
import { Cleanup } from './helpers.js';

const cleanup = new Cleanup();
afterEach(() => cleanup.run());

async function httpServer() {
  const server = new TestServer({ name: 'raw', resources: 3, modern: true });
  cleanup.add(() => server.close());
  return { server, url: (await server.listenHttp()).url };
}

/** A line-per-message JSON-RPC server on stdin/stdout answering initialize and echoing `echo`'s params. */
const ECHO_SERVER = `
  const rl = require('node:readline').createInterface({ input: process.stdin });
  process.stderr.write('echo ready\\n');
  rl.on('line', (line) => {
    const m = JSON.parse(line);
    if (m.id === undefined) return;
    const reply = m.method === 'initialize' ? { result: { protocolVersion: m.params.protocolVersion } }
      : m.method === 'echo' ? { result: m.params } : { error: { code: -32601, message: 'no ' + m.method } };
    process.stdout.write(JSON.stringify({ jsonrpc: '2.0', id: m.id, ...reply }) + '\\n');
  });
`;

describe('LegacyHttpClient', () => {
  it('opens a session, keeps its id on every request, and ends it with DELETE', async () => {
    const { server, url } = await httpServer();
    const client = await LegacyHttpClient.open(url, { clientName: 'raw-test' });
    expect(client.sessionId).toMatch(/\S/);
    expect(client.protocolVersion).toBe('2025-11-25');
    const read = await client.request({ method: 'resources/read', params: { uri: 'test://raw/r/1' } });
    expect((read.contents as { uri: string }[])[0]!.uri).toBe('test://raw/r/1');
    await expect(client.request({ method: 'no/such' })).rejects.toMatchObject({ code: -32601 });
    expect(server.stats.requests['resources/read']).toBe(1);
    expect(await client.close()).toBe(200);
    await expect(client.request({ method: 'ping' })).rejects.toThrow();
  });

  it('shares an agent it does not own, and speaks the revision asked for', async () => {
    const { url } = await httpServer();
    const agent = new Agent({ keepAlive: true });
    cleanup.add(() => agent.destroy());
    const client = await LegacyHttpClient.open(url, { agent, protocolVersion: '2025-06-18' });
    expect(client.protocolVersion).toBe('2025-06-18');
    await client.close();
    await expect(client.request({ method: 'ping' })).rejects.toMatchObject({ status: 404 });
  });
});

describe('openSessions, closeSessions', () => {
  it('opens sessions a few at a time and counts the statuses of their DELETEs', async () => {
    const { server, url } = await httpServer();
    const sessions = await openSessions(url, 5, { parallel: 2, clientName: (i) => `s${i}` });
    expect(new Set(sessions.map((s) => s.sessionId)).size).toBe(5);
    expect(server.stats.requests.initialize).toBe(5);
    expect(await closeSessions(sessions, 2)).toEqual({ '200': 5 });
  });

  it('runs every task before it rejects with the first failure', async () => {
    const ran: number[] = [];
    const run = eachLimited(5, 2, async (i) => {
      ran.push(i);
      if (i === 1 || i === 3) throw new Error(`task ${i}`);
    });
    await expect(run).rejects.toThrow('task 1');
    expect(ran.sort()).toEqual([0, 1, 2, 3, 4]);
  });
});

describe('startTestkitHttp', () => {
  it('starts the built test server and the conformance fixture over HTTP, each answering a session', async () => {
    const server = await startTestkitHttp({ args: ['--name', 'cli', '--resources', '1'] });
    cleanup.add(() => server.proc.stop());
    expect(server.controlUrl).toMatch(/^http:/);
    const fixture = await startTestkitHttp({ fixture: true, name: 'fixture' });
    cleanup.add(() => fixture.proc.stop());
    for (const { url } of [server, fixture]) {
      const session = await LegacyHttpClient.open(url);
      await expect(session.request({ method: 'ping' })).resolves.toEqual({});
      await session.close();
    }
  });
});

describe('ModernHttpClient', () => {
  it('sends sessionless requests with the 2026-07-28 envelope, concurrently', async () => {
    const { url } = await httpServer();
    const client = new ModernHttpClient(url);
    cleanup.add(() => client.close());
    const reads = await Promise.all(
      [0, 1, 2].map((i) =>
        client.request({ method: 'resources/read', params: { uri: `test://raw/r/${i}` } }),
      ),
    );
    expect(reads.map((r) => (r.contents as { uri: string }[])[0]!.uri)).toEqual([
      'test://raw/r/0',
      'test://raw/r/1',
      'test://raw/r/2',
    ]);
  });
});

describe('ChannelClient', () => {
  it('runs a session over a child’s stdin/stdout, and fails requests in flight when it exits', async () => {
    const proc = spawnProcess({ name: 'echo', args: ['-e', ECHO_SERVER], stdin: 'pipe' });
    cleanup.add(() => proc.stop());
    await proc.waitForLine(/echo ready/);
    const client = await ChannelClient.overStdio(proc, 'stdio-test');
    await expect(client.request({ method: 'echo', params: { a: 1 } })).resolves.toEqual({ a: 1 });
    await expect(client.request({ method: 'nope' })).rejects.toMatchObject({ code: -32601 });
    await client.close();
    expect(proc.running()).toBe(false);
  });

  it('runs a session over WebSocket (subprotocol mcp)', async () => {
    const wss = new WebSocketServer({ host: '127.0.0.1', port: 0 });
    cleanup.add(() => new Promise((resolve) => wss.close(resolve)));
    const protocols: string[] = [];
    wss.on('connection', (socket) => {
      protocols.push(socket.protocol);
      socket.on('message', (data) => {
        const m = JSON.parse(String(data));
        if (m.id !== undefined)
          socket.send(JSON.stringify({ jsonrpc: '2.0', id: m.id, result: { echoed: m.method } }));
      });
    });
    await new Promise((resolve) => wss.once('listening', resolve));
    const { port } = wss.address() as { port: number };
    const client = await ChannelClient.overWebSocket(`ws://127.0.0.1:${port}`);
    await expect(client.request({ method: 'tools/list' })).resolves.toEqual({ echoed: 'tools/list' });
    await client.close();
    expect(protocols).toEqual(['mcp']);
  });
});

describe('parseMessages', () => {
  it('reads a JSON body, a batch, an event stream and an empty body', () => {
    expect(parseMessages('{"id":1}', 'application/json')).toEqual([{ id: 1 }]);
    expect(parseMessages('[{"id":1},{"id":2}]', 'application/json')).toHaveLength(2);
    expect(parseMessages('event: message\ndata: {"id":3}\n\n', 'text/event-stream')).toEqual([{ id: 3 }]);
    expect(parseMessages('  ', 'application/json')).toEqual([]);
  });
});

describe('PendingRequests', () => {
  it('settles each request by id, with its result or its JSON-RPC error', async () => {
    const pending = new PendingRequests();
    const a = pending.open('resources/read');
    const b = pending.open('tools/call');
    expect(b.id).toBe(a.id + 1);
    pending.answer({ jsonrpc: '2.0', method: 'notifications/message' }); // ignored
    pending.answer({ jsonrpc: '2.0', id: 'other', result: {} }); // ignored
    pending.answer({ jsonrpc: '2.0', id: b.id, error: { code: -32602, message: 'bad' } });
    pending.answer({ jsonrpc: '2.0', id: a.id, result: { ok: true } });
    await expect(a.result).resolves.toEqual({ ok: true });
    await expect(b.result).rejects.toThrow('tools/call: bad (-32602)');
    expect(pending.size).toBe(0);
  });

  it('fails everything in flight when the transport closes', async () => {
    const pending = new PendingRequests();
    const { result } = pending.open('ping');
    pending.failAll(new Error('closed'));
    await expect(result).rejects.toThrow('closed');
    expect(pending.size).toBe(0);
  });
});
