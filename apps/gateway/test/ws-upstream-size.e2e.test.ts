import { once } from 'node:events';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type WebSocket, WebSocketServer } from 'ws';
import { Cleanup, connectHttp, eventually, startGateway } from './support/harness.js';
import { callTool } from './support/wild.js';

// DESIGN §11 for a WebSocket upstream: a message over `limits.maxResultBytes` — even one many times over
// it, where the `ws` library alone would close the connection (1009) — is dropped as it arrives and fails
// only the request it answers; a call in flight on the same connection is answered, and the upstream
// stays connected (one connection, one handshake).

const LIMIT = 1_000_000;
const shared = new Cleanup();
afterAll(() => shared.run());

/** A raw JSON-RPC MCP server over WebSocket, on an ephemeral loopback port, that answers too much. */
class HostileWsUpstream {
  readonly wss = new WebSocketServer({
    host: '127.0.0.1',
    port: 0,
    handleProtocols: (p) => (p.has('mcp') ? 'mcp' : false),
  });
  connections = 0;
  closes = 0;
  /** Answers to the `slow` calls received and not answered yet. */
  readonly held: Array<() => void> = [];
  readonly #received: Array<() => void> = [];

  constructor() {
    this.wss.on('connection', (ws) => {
      this.connections += 1;
      ws.on('close', () => {
        this.closes += 1;
      });
      ws.on('message', (data) => this.#message(ws, JSON.parse(data.toString())));
    });
  }

  get url(): string {
    return `ws://127.0.0.1:${(this.wss.address() as AddressInfo).port}/`;
  }

  /** Resolves once a `slow` call is being held. */
  slowReceived(): Promise<void> {
    if (this.held.length > 0) return Promise.resolve();
    return new Promise((resolve) => this.#received.push(resolve));
  }

  #message(ws: WebSocket, m: { id?: number; method: string; params?: Record<string, unknown> }): void {
    if (m.id === undefined) return;
    const reply = (result: unknown) => ws.send(JSON.stringify({ jsonrpc: '2.0', id: m.id, result }));
    const text = (t: string) => ({ content: [{ type: 'text', text: t }] });
    if (m.method === 'initialize') {
      const info = { name: 'hostile-ws', version: '1' };
      reply({ protocolVersion: m.params?.protocolVersion, capabilities: { tools: {} }, serverInfo: info });
    } else if (m.method === 'tools/list') {
      const names = ['good', 'slow', 'huge', 'huge_fragments', 'unbounded'];
      reply({ tools: names.map((name) => ({ name, inputSchema: { type: 'object' } })) });
    } else if (m.method === 'tools/call') {
      const name = m.params?.name;
      if (name === 'good') reply(text('ok'));
      else if (name === 'slow') {
        this.held.push(() => reply(text('slow-ok')));
        for (const resolve of this.#received.splice(0)) resolve();
      } else if (name === 'huge')
        reply(text('x'.repeat(3 * LIMIT))); // one frame, 3× the limit
      else if (name === 'unbounded') {
        // A frame header declaring 2^52 bytes, and nothing after it.
        const header = Buffer.from([0x81, 127, 0, 0x10, 0, 0, 0, 0, 0, 0]);
        (ws as unknown as { _socket: { write(b: Buffer): void } })._socket.write(header);
      } else if (name === 'huge_fragments') {
        // One message in 4 frames: the first within the limit, the total 3× over it.
        const whole = JSON.stringify({ jsonrpc: '2.0', id: m.id, result: text('y'.repeat(3 * LIMIT)) });
        const size = Math.ceil(whole.length / 4);
        for (let at = 0; at < whole.length; at += size) {
          ws.send(whole.slice(at, at + size), { fin: at + size >= whole.length });
        }
      }
    } else ws.send(JSON.stringify({ jsonrpc: '2.0', id: m.id, error: { code: -32601, message: 'nope' } }));
  }
}

let upstream: HostileWsUpstream;
let client: Awaited<ReturnType<typeof connectHttp>>;
let gw: Awaited<ReturnType<typeof startGateway>>;

beforeAll(async () => {
  upstream = new HostileWsUpstream();
  shared.add(
    () =>
      new Promise<void>((resolve) => {
        for (const ws of upstream.wss.clients) ws.terminate();
        upstream.wss.close(() => resolve());
      }),
  );
  await once(upstream.wss, 'listening');
  gw = await startGateway(shared, {
    limits: { maxResultBytes: LIMIT },
    mcpServers: { bad: { url: upstream.url, timeoutMs: 10_000 } },
  });
  client = await connectHttp(shared, gw.url);
}, 30_000);

describe('a WebSocket upstream answering over limits.maxResultBytes', () => {
  for (const tool of ['huge', 'huge_fragments']) {
    it(`fails only that request (${tool}); a call in flight is answered and the upstream stays connected`, async () => {
      const slow = callTool(client, 'bad__slow');
      await upstream.slowReceived();
      const huge = await callTool(client, `bad__${tool}`);
      expect(huge).toMatchObject({
        error: {
          code: -32008,
          data: { reason: 'result_too_large', upstream: 'bad', limit: LIMIT, bytes: expect.any(Number) },
        },
      });
      const data = 'error' in huge ? (huge.error.data as { bytes?: number }) : {};
      expect(data.bytes ?? 0).toBeGreaterThan(3 * LIMIT);
      upstream.held.shift()?.();
      expect(await slow).toMatchObject({ result: { content: [{ type: 'text', text: 'slow-ok' }] } });
      expect(await callTool(client, 'bad__good')).toMatchObject({ result: { content: [{ text: 'ok' }] } });
      expect({ connections: upstream.connections, closes: upstream.closes }).toEqual({
        connections: 1,
        closes: 0,
      });
      expect(gw.stderr()).not.toMatch(/connection lost|upstream disconnected/);
    });
  }
});

describe('a WebSocket upstream declaring a message of more than 1 GiB', () => {
  it('is disconnected at once, with a warning saying why, and reconnected', async () => {
    // Found from outside: the reason was logged only at debug level ("connection closed" at warn).
    const before = upstream.connections;
    expect(await callTool(client, 'bad__unbounded')).toMatchObject({
      error: { data: { reason: 'upstream_unavailable', upstream: 'bad' } },
    });
    expect(gw.stderr()).toMatch(
      /WARN.*closed the upstream connection.*declared a WebSocket message of 4503599627370496 bytes/,
    );
    await eventually(() => upstream.connections > before || undefined, 'the upstream reconnected');
    expect(await callTool(client, 'bad__good')).toMatchObject({ result: { content: [{ text: 'ok' }] } });
  });
});
