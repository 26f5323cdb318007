import { once } from 'node:events';
import { createServer, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { JSONRPCMessage } from '@modelcontextprotocol/server';
import type { ResumableStreamInfo } from '@switchyard/core/listener';
import { Cleanup, eventually } from '@switchyard/testkit';
import { afterEach, describe, expect, it } from 'vitest';
import {
  SessionHttpTransport,
  type SessionHttpTransportOptions,
} from '../src/listeners/session-transport.js';
import { type Json, messageOf, type SseEvent, SseReader } from './sse-resume.support.js';

// SessionHttpTransport on a real node:http server, driven directly (the test plays the SDK Server's part
// with transport.send), so every disconnect and every message's timing is the test's choice.

const cleanup = new Cleanup();
afterEach(() => cleanup.run());

async function serve(options: SessionHttpTransportOptions = {}, version = '2025-11-25') {
  const transport = new SessionHttpTransport('session-1', { retryMs: 50, ...options });
  const received: Json[] = [];
  /** What the transport handed on with each request, by id. */
  const extras = new Map<unknown, ResumableStreamInfo | undefined>();
  transport.onmessage = (message, extra) => {
    received.push(message as Json);
    if ('id' in message) extras.set(message.id, extra);
  };
  transport.setProtocolVersion(version);
  const posts: ServerResponse[] = [];
  const gets: ServerResponse[] = [];
  const server = createServer((req, res) => {
    if (req.method === 'GET') {
      gets.push(res);
      const lastEventId = req.headers['last-event-id'];
      transport.handleGet(res, { lastEventId: typeof lastEventId === 'string' ? lastEventId : undefined });
      return;
    }
    const chunks: Buffer[] = [];
    req.on('data', (chunk: Buffer) => chunks.push(chunk));
    req.on('end', () => {
      posts.push(res);
      transport.handlePost(res, JSON.parse(Buffer.concat(chunks).toString('utf8')), true);
    });
  });
  server.listen(0, '127.0.0.1');
  await once(server, 'listening');
  cleanup.add(() => new Promise((resolve) => server.close(resolve)));
  cleanup.add(() => server.closeAllConnections());
  cleanup.add(() => transport.close());
  const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/mcp`;
  const post = (body: Json | Json[], signal?: AbortSignal) =>
    fetch(url, {
      method: 'POST',
      headers: { 'content-type': 'application/json', accept: 'application/json, text/event-stream' },
      body: JSON.stringify(body),
      signal,
    });
  const get = (lastEventId?: string, signal?: AbortSignal) =>
    fetch(url, {
      headers: { accept: 'text/event-stream', ...(lastEventId ? { 'last-event-id': lastEventId } : {}) },
      signal,
    });
  const send = (message: Json, relatedRequestId?: number) =>
    transport.send(
      message as JSONRPCMessage,
      relatedRequestId === undefined ? undefined : { relatedRequestId },
    );
  /** Waits until the transport has handed request `id` to the server. */
  const arrived = (id: number) => eventually(() => received.some((m) => m.id === id), `request ${id}`);
  return { transport, received, extras, posts, gets, post, get, send, arrived };
}

const call = (id: number, method = 'tools/call') => ({ jsonrpc: '2.0', id, method, params: {} });
const progress = (token: number, n: number) => ({
  jsonrpc: '2.0',
  method: 'notifications/progress',
  params: { progressToken: token, progress: n },
});
const notice = (n: number) => ({ jsonrpc: '2.0', method: 'notifications/message', params: { data: n } });
const result = (id: number) => ({ jsonrpc: '2.0', id, result: { content: [] } });
const closedOnServer = (res: ServerResponse) => (res.closed ? Promise.resolve() : once(res, 'close'));

describe('SessionHttpTransport resumable streams', () => {
  it('answers a tool call as a primed stream, keeps it after the client drops, and bounds what it keeps', async () => {
    const t = await serve({ events: { maxEvents: 5 } });
    const abort = new AbortController();
    const response = await t.post(call(1), abort.signal);
    expect(response.headers.get('content-type')).toBe('text/event-stream');
    const stream = new SseReader(response);
    const priming = await stream.next();
    expect(priming).toEqual({ id: expect.any(String), retry: 50, data: '' });
    for (let n = 1; n <= 20; n++) await t.send(progress(1, n), 1);
    const seen: SseEvent[] = [];
    for (let n = 1; n <= 20; n++) seen.push((await stream.next())!);
    expect(seen.map((e) => (messageOf(e)!.params as Json).progress)).toEqual(
      Array.from({ length: 20 }, (_, i) => i + 1),
    );
    abort.abort();
    await closedOnServer(t.posts[0]!);
    // The client is gone: the rest of the call is kept, up to 5 events.
    await t.send(progress(1, 21), 1);
    await t.send(result(1));
    const idOf = (n: number) => seen[n - 1]!.id!;
    const evicted = await t.get(idOf(16));
    expect(evicted.status).toBe(400);
    expect(await evicted.json()).toMatchObject({
      error: { code: -32000, message: expect.stringMatching(/Last-Event-ID/) },
    });
    const resumed = await t.get(idOf(17));
    expect(resumed.status).toBe(200);
    const rest = await new SseReader(resumed).rest();
    // Primed with the client's own id (so dropping again loses nothing), then progress 18..21 and the result.
    expect(rest[0]).toEqual({ id: idOf(17), retry: 50, data: '' });
    expect(rest.slice(1).map(messageOf)).toEqual([
      progress(1, 18),
      progress(1, 19),
      progress(1, 20),
      progress(1, 21),
      result(1),
    ]);
    expect(new Set(rest.map((e) => e.id)).size).toBe(rest.length);
  });

  it('keeps other requests as JSON until a related notification, and primes only 2025-11-25 clients', async () => {
    const t = await serve();
    const read = t.post(call(1, 'resources/read'));
    await t.arrived(1);
    await t.send(result(1));
    const json = await read;
    expect(json.headers.get('content-type')).toBe('application/json');
    expect(await json.json()).toEqual(result(1));

    const listing = t.post(call(2, 'resources/list'));
    await t.arrived(2);
    await t.send(notice(1), 2);
    await t.send(result(2));
    const events = await new SseReader(await listing).rest();
    expect(events.map((e) => [e.retry, messageOf(e)])).toEqual([
      [50, undefined],
      [undefined, notice(1)],
      [undefined, result(2)],
    ]);
    expect(events.every((e) => e.id)).toBe(true);

    const old = await serve({}, '2025-06-18');
    const quiet = old.post(call(3));
    await old.arrived(3);
    await old.send(result(3));
    expect((await quiet).headers.get('content-type')).toBe('application/json');
    const streamed = old.post(call(4));
    await old.arrived(4);
    await old.send(progress(4, 1), 4);
    await old.send(result(4));
    const unprimed = await new SseReader(await streamed).rest();
    expect(unprimed.map(messageOf)).toEqual([progress(4, 1), result(4)]);
    expect(unprimed.every((e) => e.id && e.retry === undefined)).toBe(true);
  });

  it('resumes the standalone stream: missed messages, then live ones; the newest connection wins', async () => {
    const t = await serve();
    const abort = new AbortController();
    const first = new SseReader(await t.get(undefined, abort.signal));
    expect(await first.next()).toMatchObject({ retry: 50, data: '' });
    const conflict = await t.get();
    expect(conflict.status).toBe(409);
    await conflict.body?.cancel();
    await t.send(notice(1));
    const one = await first.next();
    expect(messageOf(one!)).toEqual(notice(1));
    abort.abort();
    await closedOnServer(t.gets[0]!);
    await t.send(notice(2));
    await t.send(notice(3));
    const resumed = new SseReader(await t.get(one!.id));
    const replayed = [await resumed.next(), await resumed.next(), await resumed.next()];
    expect(replayed.map((e) => e && messageOf(e))).toEqual([undefined, notice(2), notice(3)]);
    await t.send(notice(4));
    expect(messageOf((await resumed.next())!)).toEqual(notice(4));
    // A client resuming a stream it still holds (a half-open connection): the old one is ended.
    const again = new SseReader(await t.get(replayed[2]!.id));
    expect(await resumed.rest()).toEqual([]);
    expect((await again.next())?.data).toBe('');
    expect(messageOf((await again.next())!)).toEqual(notice(4));
    await t.transport.close();
    expect(await again.rest()).toEqual([]);
  });

  it('a cancelled request ends its stream; closing the session answers what is in flight and forgets every stream', async () => {
    const t = await serve();
    const cancel = (requestId: number) =>
      t.post({ jsonrpc: '2.0', method: 'notifications/cancelled', params: { requestId } });
    const stream = new SseReader(await t.post(call(7)));
    const priming = await stream.next();
    await t.send(progress(7, 1), 7);
    expect((await cancel(7)).status).toBe(202);
    expect(t.received.at(-1)).toMatchObject({ method: 'notifications/cancelled' });
    expect((await stream.rest()).map(messageOf)).toEqual([progress(7, 1)]);
    // The client gave the call up: there is nothing left to resume.
    expect((await t.get(priming!.id)).status).toBe(400);
    // A JSON answer whose only request is cancelled: 202, nothing to say.
    const read = t.post(call(9, 'resources/read'));
    await t.arrived(9);
    await cancel(9);
    expect((await read).status).toBe(202);

    // Closing the session answers what is still in flight (its session is gone), then ends the stream.
    const open = new SseReader(await t.post(call(8)));
    const primed = await open.next();
    await t.transport.close();
    expect((await open.rest()).map(messageOf)).toEqual([
      {
        jsonrpc: '2.0',
        id: 8,
        error: {
          code: -32001,
          message: 'Session not found: the session was closed before this request was answered',
          data: { reason: 'session_not_found' },
        },
      },
    ]);
    expect((await t.get(primed!.id)).status).toBe(400);
  });
});

describe('SessionHttpTransport polling (SEP-1699)', () => {
  it('closes a resumable request’s connection mid-call with a retry; the client’s return is reported', async () => {
    const t = await serve();
    const pending = t.post(call(1, 'resources/read'));
    await t.arrived(1);
    const stream = t.extras.get(1)?.resumableStream;
    expect(stream).toBeDefined();
    let returned = 0;
    // Still a JSON answer: it becomes a primed stream, gets the retry, and its connection ends.
    stream!.close(700, () => {
      returned += 1;
    });
    const first = await new SseReader(await pending).rest();
    expect(first).toEqual([
      { id: expect.any(String), retry: 50, data: '' },
      { retry: 700, data: '' },
    ]);
    await t.send(result(1));
    expect(returned).toBe(0);
    const resumed = await new SseReader(await t.get(first[0]!.id)).rest();
    expect(resumed.map((e) => messageOf(e) ?? e.id)).toEqual([first[0]!.id, result(1)]);
    expect(returned).toBe(1);
    // Answered: nothing left to close.
    stream!.close(700, () => {});
  });

  it('leaves the stream of a client that cannot resume (2025-06-18) alone', async () => {
    const t = await serve({}, '2025-06-18');
    const pending = t.post(call(2));
    await t.arrived(2);
    expect(t.extras.get(2)?.resumableStream).toBeUndefined();
    t.transport.pollStream(2, 700, () => {});
    await t.send(result(2));
    const answer = await pending;
    expect(answer.headers.get('content-type')).toBe('application/json');
    expect(await answer.json()).toEqual(result(2));
  });
});
