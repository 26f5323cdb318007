import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { JSONRPCMessage } from '@modelcontextprotocol/client';
import { afterEach, describe, expect, it } from 'vitest';
import { ErrorCode } from '../src/errors.js';
import { HttpClientTransport } from '../src/transports/upstream/http-client-transport.js';

// The upstream Streamable HTTP transport following a request whose response stream the upstream closes
// before answering (SEP-1699 polling): GET + Last-Event-ID after the upstream's `retry`, on to the answer;
// at once when asked to (a downstream client came back); a stream without any event id, a refused
// resumption, failing reconnections and cancellation each end it with a clear outcome.

const servers: Server[] = [];
const transports: HttpClientTransport[] = [];
afterEach(async () => {
  for (const transport of transports.splice(0)) await transport.close();
  for (const server of servers.splice(0)) {
    server.closeAllConnections();
    await new Promise((resolve) => server.close(resolve));
  }
});

interface Seen {
  method: string;
  lastEventId?: string;
  sessionId?: string;
  body?: { method?: string; id?: unknown };
}

/** An upstream whose answer to each HTTP request is `serve`'s; it records every request. */
async function upstream(serve: (seen: Seen, res: ServerResponse, nth: number) => void) {
  const seen: Seen[] = [];
  const server = createServer((req: IncomingMessage, res) => {
    let text = '';
    req.setEncoding('utf8');
    req.on('data', (chunk: string) => {
      text += chunk;
    });
    req.on('end', () => {
      const header = (name: string) => req.headers[name] as string | undefined;
      const entry: Seen = {
        method: req.method ?? '',
        lastEventId: header('last-event-id'),
        sessionId: header('mcp-session-id'),
        body: text ? JSON.parse(text) : undefined,
      };
      seen.push(entry);
      if (entry.body && !('id' in entry.body)) {
        res.writeHead(202).end();
        return;
      }
      serve(entry, res, seen.filter((s) => s.method === entry.method).length);
    });
  });
  servers.push(server);
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return { url: new URL(`http://127.0.0.1:${port}/mcp`), seen };
}

function sse(res: ServerResponse, ...blocks: string[]): void {
  res.writeHead(200, { 'content-type': 'text/event-stream' });
  res.end(blocks.map((b) => `${b}\n\n`).join(''));
}

const answer = (id: unknown) =>
  `id: e9\ndata: ${JSON.stringify({ jsonrpc: '2.0', id, result: { ok: true } })}`;

/** A transport on a session (`s1`) that collects what it delivers and the polls it reports. */
function connect(url: URL) {
  const transport = new HttpClientTransport(url);
  transports.push(transport);
  transport.sessionId = 's1';
  const delivered: JSONRPCMessage[] = [];
  const polls: { id: string | number; retryMs: number | undefined; resumeNow: () => void }[] = [];
  const waiters: (() => void)[] = [];
  transport.onmessage = (message) => {
    delivered.push(message);
    for (const wake of waiters.splice(0)) wake();
  };
  transport.onpoll = (id, retryMs, resumeNow) => polls.push({ id, retryMs, resumeNow });
  const answered = (id: number) =>
    new Promise<JSONRPCMessage>((resolve, reject) => {
      const timer = setTimeout(() => reject(new Error(`no answer to ${id}`)), 10_000);
      const check = () => {
        const found = delivered.find((m) => (m as { id?: unknown }).id === id);
        if (found) {
          clearTimeout(timer);
          resolve(found);
        } else waiters.push(check);
      };
      check();
    });
  const call = (id: number) =>
    transport.send({ jsonrpc: '2.0', id, method: 'tools/call', params: { name: 'x' } } as JSONRPCMessage);
  return { transport, delivered, polls, answered, call };
}

describe('HttpClientTransport: a response stream the upstream closes before answering', () => {
  it('is resumed with GET + Last-Event-ID after the upstream’s retry, and read on to the answer', async () => {
    const up = await upstream((seen, res) => {
      if (seen.method === 'POST') sse(res, 'id: e1\nretry: 20\ndata: ');
      else sse(res, answer(1));
    });
    const t = connect(up.url);
    await t.call(1);
    expect(await t.answered(1)).toEqual({ jsonrpc: '2.0', id: 1, result: { ok: true } });
    expect(up.seen.filter((s) => s.method === 'GET')).toEqual([
      { method: 'GET', lastEventId: 'e1', sessionId: 's1', body: undefined },
    ]);
    expect(t.polls.map(({ id, retryMs }) => ({ id, retryMs }))).toEqual([{ id: 1, retryMs: 20 }]);
  });

  it('is resumed at once when asked (a downstream client came back), whatever the retry', async () => {
    const up = await upstream((seen, res) => {
      if (seen.method === 'POST') sse(res, 'id: e1\nretry: 200000\ndata: ');
      else sse(res, answer(2));
    });
    const t = connect(up.url);
    await t.call(2);
    await expect.poll(() => t.polls.length).toBe(1);
    t.polls[0]!.resumeNow();
    expect(await t.answered(2)).toMatchObject({ id: 2, result: { ok: true } });
  });

  it('fails the request at once when the stream sent no event id (an upstream that died mid-request)', async () => {
    const up = await upstream((_seen, res) =>
      sse(res, `data: ${JSON.stringify({ jsonrpc: '2.0', method: 'notifications/message', params: {} })}`),
    );
    const t = connect(up.url);
    await t.call(3);
    expect(await t.answered(3)).toMatchObject({
      error: {
        code: ErrorCode.UpstreamUnavailable,
        message: 'The upstream closed the response stream without answering.',
      },
    });
    expect(up.seen.filter((s) => s.method === 'GET')).toEqual([]);
    expect(t.polls).toEqual([]);
  });

  it('fails the request when the upstream refuses to resume it, naming the status', async () => {
    const up = await upstream((seen, res) => {
      if (seen.method === 'POST') sse(res, 'id: e1\nretry: 10\ndata: ');
      else res.writeHead(405).end();
    });
    const t = connect(up.url);
    await t.call(4);
    expect(await t.answered(4)).toMatchObject({
      error: {
        code: ErrorCode.UpstreamUnavailable,
        message: expect.stringMatching(/refused to resume it \(HTTP 405\)/),
      },
    });
    expect(up.seen.filter((s) => s.method === 'GET')).toHaveLength(1);
  });

  it('fails the request when the upstream asks to be polled later than the gateway waits', async () => {
    const up = await upstream((_seen, res) => sse(res, 'id: e1\nretry: 900000\ndata: '));
    const t = connect(up.url);
    await t.call(8);
    expect(await t.answered(8)).toMatchObject({
      error: {
        code: ErrorCode.UpstreamUnavailable,
        message: expect.stringMatching(/polled again in 900000 ms, longer than the gateway waits/),
      },
    });
    expect(t.polls).toEqual([]);
  });

  it('gives up after a bounded number of failed reconnections', async () => {
    const up = await upstream((seen, res) => {
      if (seen.method === 'POST') sse(res, 'id: e1\nretry: 10\ndata: ');
      else res.writeHead(503).end();
    });
    const t = connect(up.url);
    await t.call(5);
    expect(await t.answered(5)).toMatchObject({
      error: {
        code: ErrorCode.UpstreamUnavailable,
        message: expect.stringMatching(/could not be reached to resume it \(3 attempts; last: HTTP 503\)/),
      },
    });
    expect(up.seen.filter((s) => s.method === 'GET')).toHaveLength(3);
  });

  it('keeps following a stream that brings news, and stops at the answer', async () => {
    const progress = (n: number) =>
      `id: e${n + 1}\ndata: ${JSON.stringify({ jsonrpc: '2.0', method: 'notifications/progress', params: { progressToken: 1, progress: n } })}`;
    const up = await upstream((seen, res, nth) => {
      if (seen.method === 'POST') sse(res, 'id: e1\nretry: 10\ndata: ');
      else if (nth < 3) sse(res, progress(nth));
      else sse(res, answer(6));
    });
    const t = connect(up.url);
    await t.call(6);
    await t.answered(6);
    expect(up.seen.filter((s) => s.method === 'GET').map((s) => s.lastEventId)).toEqual(['e1', 'e2', 'e3']);
    expect(
      t.delivered.map((m) => (m as { params?: { progress?: number } }).params?.progress ?? 'answer'),
    ).toEqual([1, 2, 'answer']);
  });

  it('stops resuming a request once it is cancelled', async () => {
    const up = await upstream((seen, res) => {
      if (seen.method === 'POST') sse(res, 'id: e1\nretry: 200000\ndata: ');
      else sse(res, answer(7));
    });
    const t = connect(up.url);
    await t.call(7);
    await expect.poll(() => t.polls.length).toBe(1);
    await t.transport.send({
      jsonrpc: '2.0',
      method: 'notifications/cancelled',
      params: { requestId: 7 },
    } as JSONRPCMessage);
    t.polls[0]!.resumeNow();
    // A request sent after it arrives after any GET it would have caused.
    await t.transport.send({ jsonrpc: '2.0', method: 'notifications/roots/list_changed' } as JSONRPCMessage);
    expect(up.seen.map((s) => s.method)).toEqual(['POST', 'POST', 'POST']);
    expect(t.delivered).toEqual([]);
  });
});
