import { once } from 'node:events';
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { JSONRPCMessage } from '@modelcontextprotocol/client';
import { afterEach, describe, expect, it } from 'vitest';
import { createUpstreamTransport } from '../src/transports/upstream/create.js';
import type { InboundFaults } from '../src/transports/upstream/faults.js';
import { SseClientTransport } from '../src/transports/upstream/sse-client-transport.js';

// The legacy HTTP+SSE client transport against a raw loopback server: what each request carries, and
// how the stream ending or being refused ends the transport.

const closers: (() => Promise<void>)[] = [];
afterEach(async () => {
  for (const close of closers.splice(0).reverse()) await close().catch(() => {});
});

interface Seen {
  method: string;
  url: string;
  authorization: string | undefined;
}

/** A legacy SSE server: `onGet` answers the stream's GET (default: an endpoint event, kept open). */
async function sseServer(onGet?: (res: ServerResponse) => void) {
  const seen: Seen[] = [];
  let stream: ServerResponse | undefined;
  const server = createServer((req: IncomingMessage, res: ServerResponse) => {
    seen.push({ method: req.method!, url: req.url!, authorization: req.headers.authorization });
    if (req.method === 'GET') {
      if (onGet) return onGet(res);
      stream = res.writeHead(200, { 'content-type': 'text/event-stream' });
      res.write('event: endpoint\ndata: /messages?sessionId=1\n\n');
      return;
    }
    let body = '';
    req.on('data', (chunk) => {
      body += chunk;
    });
    req.on('end', () => {
      const { id, method } = JSON.parse(body) as { id: number; method: string };
      if (method === 'fail') return void res.writeHead(500).end('<title>Broken</title>');
      res.writeHead(202).end();
      stream?.write(`data: ${JSON.stringify({ jsonrpc: '2.0', id, result: { ok: true } })}\n\n`);
    });
  });
  server.listen(0, '127.0.0.1');
  await once(server, 'listening');
  closers.push(async () => {
    server.closeAllConnections();
    await new Promise((resolve) => server.close(resolve));
  });
  const origin = `127.0.0.1:${(server.address() as AddressInfo).port}`;
  return { seen, origin, stream: () => stream };
}

function open(url: string, headers: Record<string, string> = {}) {
  const transport = new SseClientTransport(new URL(url), headers);
  closers.push(() => transport.close());
  const received: JSONRPCMessage[] = [];
  transport.onmessage = (message) => received.push(message);
  const closed = new Promise<void>((resolve) => {
    transport.onclose = resolve;
  });
  return { transport, received, closed };
}

const ping = (id: number, method = 'ping') => ({ jsonrpc: '2.0', id, method }) as JSONRPCMessage;

describe('SseClientTransport', () => {
  it('sends the URL userinfo as Basic authorization on the stream and every POST, never in a URL', async () => {
    const server = await sseServer();
    const { transport, received } = open(`http://al%20ice:p%40ss@${server.origin}/sse?token=abc`);
    await transport.start();
    await transport.send(ping(1));
    await expect.poll(() => received).toEqual([{ jsonrpc: '2.0', id: 1, result: { ok: true } }]);
    const basic = `Basic ${Buffer.from('al ice:p@ss').toString('base64')}`;
    expect(server.seen).toEqual([
      { method: 'GET', url: '/sse?token=abc', authorization: basic },
      { method: 'POST', url: '/messages?sessionId=1', authorization: basic },
    ]);
  });

  it('a configured Authorization header wins over the userinfo', async () => {
    const server = await sseServer();
    const { transport } = open(`http://alice:pass@${server.origin}/sse`, { Authorization: 'Bearer mine' });
    await transport.start();
    await transport.send(ping(1));
    expect(server.seen.map((s) => s.authorization)).toEqual(['Bearer mine', 'Bearer mine']);
  });

  it('the stream ending ends the transport (onclose); a send after it rejects', async () => {
    const server = await sseServer();
    const { transport, closed } = open(`http://${server.origin}/sse`);
    await transport.start();
    server.stream()!.end();
    await closed;
    await expect(transport.send(ping(1))).rejects.toThrow(/closed/);
    expect(server.seen.filter((s) => s.method === 'GET')).toHaveLength(1); // never reconnected by itself
  });

  it('a refused stream, or one that ends before its endpoint, fails start', async () => {
    const refusing = await sseServer((res) => res.writeHead(503).end('down'));
    const refused = open(`http://${refusing.origin}/sse`);
    await expect(refused.transport.start()).rejects.toThrow(
      'the SSE stream was refused: HTTP 503 Service Unavailable: down',
    );
    await refused.closed;
    const silent = await sseServer((res) =>
      res.writeHead(200, { 'content-type': 'text/event-stream' }).end(),
    );
    await expect(open(`http://${silent.origin}/sse`).transport.start()).rejects.toThrow(
      /before naming its endpoint/,
    );
    const elsewhere = await sseServer((res) =>
      res
        .writeHead(200, { 'content-type': 'text/event-stream' })
        .write('event: endpoint\ndata: http://example.com/m\n\n'),
    );
    await expect(open(`http://${elsewhere.origin}/sse`).transport.start()).rejects.toThrow(/origin/);
  });

  it('takes an event stream whatever the case of its media type, and fails at once on a refusal whose page never ends', async () => {
    // Found from outside: `Text/Event-Stream` was refused; a refusal that kept its body open was reported
    // only as a timeout once the connection's timeoutMs ran out.
    const cased = await sseServer((res) =>
      res
        .writeHead(200, { 'content-type': 'Text/Event-Stream; charset=utf-8' })
        .write('event: endpoint\ndata: /messages?sessionId=1\n\n'),
    );
    await open(`http://${cased.origin}/sse`).transport.start();
    const endless = await sseServer((res) => res.writeHead(500).write('<title>Overloaded</title>'));
    await expect(open(`http://${endless.origin}/sse`).transport.start()).rejects.toThrow(
      'the SSE stream was refused: HTTP 500 Internal Server Error: Overloaded',
    );
  });

  it('an error page answering one POST fails that request alone', async () => {
    const server = await sseServer();
    const { transport } = open(`http://${server.origin}/sse`);
    const failed: unknown[] = [];
    const faults: InboundFaults = {
      oversized: () => {},
      unparsable: () => {},
      failed: (...args) => void failed.push(args),
      maxBytes: () => 1024,
    };
    transport.faults = faults;
    await transport.start();
    await transport.send(ping(5, 'fail'));
    expect(failed).toEqual([[5, 'HTTP 500 Internal Server Error: Broken', { status: 500 }]]);
  });
});

describe('createUpstreamTransport', () => {
  it("masks the URL's secrets in what a remote transport's errors say", async () => {
    // An upstream that quotes what it was sent in its refusal: the error reaches logs, status and callers.
    const server = await sseServer((res) => res.writeHead(401).end('bad token TOKEN12345 for PASSWORD1'));
    const { transport } = createUpstreamTransport({
      kind: 'sse',
      url: `http://alice:PASSWORD1@${server.origin}/sse?token=TOKEN12345`,
      headers: {},
    });
    closers.push(() => transport.close());
    await expect(transport.start()).rejects.toThrow(
      'the SSE stream was refused: HTTP 401 Unauthorized: bad token *** for ***',
    );
  });

  it('masks the credentials an upstream echoes back: the Basic form of the userinfo, header values, any Bearer', async () => {
    // Found from outside: an error page quoting the request's Authorization reached callers, the log and
    // /admin/status (`Basic YWxp…` decodes to the URL's password; a configured header's value as sent).
    const echoing = createServer((req, res) => {
      res.writeHead(401).end(`auth=${req.headers.authorization} key=${req.headers['x-api-key']}`);
    });
    echoing.listen(0, '127.0.0.1');
    await once(echoing, 'listening');
    closers.push(async () => {
      echoing.closeAllConnections();
      await new Promise((resolve) => echoing.close(resolve));
    });
    const origin = `127.0.0.1:${(echoing.address() as AddressInfo).port}`;
    const texts: string[] = [];
    for (const [url, headers] of [
      [`http://alice:s3cr%40tPW@${origin}/sse`, {}],
      [`http://${origin}/sse`, { authorization: 'Bearer HDRSECRET77', 'x-api-key': 'KEY-123456' }],
    ] as const) {
      const { transport } = createUpstreamTransport({ kind: 'sse', url, headers: { ...headers } });
      closers.push(() => transport.close());
      texts.push(
        await transport.start().then(
          () => 'started',
          (error: Error) => error.message,
        ),
      );
    }
    expect(texts[0]).toBe('the SSE stream was refused: HTTP 401 Unauthorized: auth=Basic *** key=undefined');
    expect(texts[1]).toBe('the SSE stream was refused: HTTP 401 Unauthorized: auth=*** key=***');
    for (const text of texts) expect(text).not.toMatch(/YWxp|HDRSECRET77|KEY-123456|s3cr/);
  });
});
