import { createServer, request } from 'node:http';
import type { AddressInfo } from 'node:net';
import { Client, StreamableHTTPClientTransport } from '@modelcontextprotocol/client';
import type { ControlClient } from '@switchyard/testkit';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import {
  getOn,
  type Json,
  messageOf,
  openRawSession,
  postOn,
  type SseEvent,
  SseReader,
} from './sse-resume.support.js';
import { Cleanup, connectHttp, eventually, startGateway } from './support/harness.js';
import { stdioUpstream } from './support/named.js';

// Resumable legacy Streamable HTTP streams through the CLI: event ids and a priming event (2025-11-25
// clients only), a tool call whose POST stream the client loses mid-call finished on a GET with
// Last-Event-ID, the standalone stream resumed the same way, unknown ids refused, and the official SDK
// v2 client recovering a call whose stream a proxy cuts.

const shared = new Cleanup();
const cleanup = new Cleanup();
afterAll(() => shared.run());
afterEach(() => cleanup.run());

let url: string;
let control: ControlClient;
beforeAll(async () => {
  const local = await stdioUpstream(shared, 'local', ['--resources', '5', '--behavior-tools']);
  const gw = await startGateway(shared, {
    listen: { http: { host: '127.0.0.1', port: 0, path: '/mcp' } },
    mcpServers: { local: { ...local.config, timeoutMs: 5_000 } },
  });
  url = gw.url;
  control = await local.control();
}, 30_000);

/** Opens a legacy session by raw HTTP at `version`. */
const open = (version: string) => openRawSession(cleanup, url, version);

/** An SSE stream the test can cut: reading stops and the connection closes when `cut` is called. */
async function stream(response: Promise<Response>, abort: AbortController) {
  const res = await response;
  expect(res.headers.get('content-type')).toBe('text/event-stream');
  const reader = new SseReader(res);
  cleanup.add(() => reader.cancel());
  return { reader, cut: () => abort.abort() };
}

const toolCall = (id: number, name: string, args: Json, progressToken?: string) => ({
  id,
  method: 'tools/call',
  params: { name: `local__${name}`, arguments: args, ...(progressToken ? { _meta: { progressToken } } : {}) },
});
const progressOf = (e: SseEvent) => (messageOf(e)?.params as { progress?: number } | undefined)?.progress;
const isPriming = (e: SseEvent | undefined) => e !== undefined && e.id !== undefined && e.data === '';
const uri = (n: number) => `local+test://local/r/${n}`;

describe('resumable legacy Streamable HTTP streams', () => {
  it('primes SSE answers with an id and retry for 2025-11-25 clients only; ids on every event', async () => {
    const current = await open('2025-11-25');
    // A quick tool call keeps the plain JSON answer; one still running after 50 ms becomes a stream.
    const quickCall = await postOn(current, toolCall(1, 'echo', { x: 1 }));
    expect(quickCall.headers.get('content-type')).toMatch(/^application\/json/);
    await quickCall.body?.cancel();
    const long = await new SseReader(await postOn(current, toolCall(4, 'slow', { ms: 300 }))).rest();
    expect(long).toHaveLength(2);
    expect(long[0]).toEqual({ id: expect.any(String), retry: expect.any(Number), data: '' });
    expect(long[1]).toMatchObject({ id: expect.any(String), event: 'message' });
    expect(long[1]!.id).not.toBe(long[0]!.id);
    expect(messageOf(long[1]!)).toMatchObject({ id: 4, result: { content: expect.any(Array) } });
    // The hot read path stays JSON.
    const read = await postOn(current, { id: 2, method: 'resources/read', params: { uri: uri(1) } });
    expect(read.headers.get('content-type')).toMatch(/^application\/json/);
    await read.body?.cancel();
    const standalone = await stream(getOn(current), new AbortController());
    expect(isPriming(await standalone.reader.next())).toBe(true);

    const older = await open('2025-06-18');
    const quick = await postOn(older, toolCall(1, 'echo', { x: 2 }));
    expect(quick.headers.get('content-type')).toMatch(/^application\/json/);
    await quick.body?.cancel();
    const slow = await new SseReader(
      await postOn(older, toolCall(2, 'slow', { ms: 40, steps: 2 }, 'p')),
    ).rest();
    expect(slow.map(progressOf)).toEqual([1, 2, undefined]);
    expect(slow.every((e) => e.id && e.data !== '' && e.retry === undefined)).toBe(true);
    await (await postOn(older, { id: 3, method: 'resources/subscribe', params: { uri: uri(2) } })).text();
    const olderStream = await stream(getOn(older), new AbortController());
    await control.updated('test://local/r/2');
    const first = await olderStream.reader.next();
    expect(first).toMatchObject({ id: expect.any(String), event: 'message' });
    expect(messageOf(first!)).toMatchObject({ params: { uri: uri(2) } });
  });

  it('a tool call whose POST stream the client drops finishes on a GET with Last-Event-ID, exactly once', async () => {
    const session = await open('2025-11-25');
    const abort = new AbortController();
    const call = await stream(
      postOn(session, toolCall(7, 'slow', { ms: 2_000, steps: 8 }, 'tok'), abort.signal),
      abort,
    );
    const before = await call.reader.until((e) => progressOf(e) === 2);
    expect(isPriming(before[0])).toBe(true);
    call.cut();
    const lastEventId = before.at(-1)!.id!;
    const after = await new SseReader(await getOn(session, lastEventId)).rest(); // ends once the call is answered
    // Primed with the client's own id, then the rest of the call.
    expect(after[0]).toEqual({ id: lastEventId, retry: expect.any(Number), data: '' });
    const messages = [...before, ...after].map(messageOf).filter((m) => m !== undefined);
    expect(messages.map((m) => (m.params as { progress?: number } | undefined)?.progress ?? m.id)).toEqual([
      1, 2, 3, 4, 5, 6, 7, 8, 7,
    ]);
    expect(messages.at(-1)).toMatchObject({
      id: 7,
      result: { content: [{ type: 'text', text: 'slept 2000 ms' }] },
    });
    const ids = [...before, ...after.slice(1)].map((e) => e.id);
    expect(new Set(ids).size).toBe(ids.length);
  });

  it('resumes the standalone GET stream: what it missed, then live messages', async () => {
    const session = await open('2025-11-25');
    for (const n of [1, 2, 3, 4])
      await (await postOn(session, { id: n, method: 'resources/subscribe', params: { uri: uri(n) } })).text();
    // A second session subscribed to the same resources shows when the gateway has fanned an update out.
    const observer = await connectHttp(cleanup, url, 'observer');
    const observed: string[] = [];
    observer.setNotificationHandler('notifications/resources/updated', (n) => {
      observed.push(n.params.uri);
    });
    for (const n of [1, 2, 3, 4]) await observer.subscribeResource({ uri: uri(n) });

    const first = await stream(getOn(session), new AbortController());
    expect(isPriming(await first.reader.next())).toBe(true);
    await control.updated('test://local/r/1');
    const one = (await first.reader.next())!;
    expect(messageOf(one)).toMatchObject({
      method: 'notifications/resources/updated',
      params: { uri: uri(1) },
    });
    first.cut();
    await control.updated('test://local/r/2');
    await control.updated('test://local/r/3');
    await eventually(() => observed.includes(uri(3)), 'the gateway to relay the updates');

    const resumed = await stream(getOn(session, one.id), new AbortController());
    expect(await resumed.reader.next()).toEqual({ id: one.id, retry: expect.any(Number), data: '' });
    const missed = [await resumed.reader.next(), await resumed.reader.next()];
    expect(missed.map((e) => messageOf(e!))).toMatchObject([
      { params: { uri: uri(2) } },
      { params: { uri: uri(3) } },
    ]);
    await control.updated('test://local/r/4');
    expect(messageOf((await resumed.reader.next())!)).toMatchObject({ params: { uri: uri(4) } });
  });

  it('refuses a Last-Event-ID it cannot resume with 400 and a JSON-RPC error', async () => {
    const session = await open('2025-11-25');
    for (const id of ['garbage', 'p999-1', 'g1-999999']) {
      const res = await getOn(session, id);
      expect(res.status, id).toBe(400);
      expect(await res.json()).toMatchObject({
        jsonrpc: '2.0',
        id: null,
        error: { code: -32000, message: expect.stringMatching(/Last-Event-ID .* names no stream/) },
      });
    }
  });

  it('the official SDK v2 client gets the whole result of a call whose stream a proxy cuts mid-call', async () => {
    const proxy = await cuttingProxy(url);
    const client = new Client({ name: 'resuming', version: '1.0.0' });
    await client.connect(new StreamableHTTPClientTransport(new URL(proxy.url)));
    cleanup.add(() => client.close());
    const progress: number[] = [];
    const result = await client.callTool(
      { name: 'local__slow', arguments: { ms: 3_000, steps: 12 } },
      { onprogress: (p) => progress.push(p.progress), timeout: 20_000 },
    );
    expect(result.content).toEqual([{ type: 'text', text: 'slept 3000 ms' }]);
    expect(proxy.cuts).toBe(1);
    expect(proxy.resumptions.length).toBeGreaterThanOrEqual(1);
    // Progress from before and after the cut, each once and in order.
    expect(progress[0]).toBe(1);
    expect(progress.some((p) => p > 1)).toBe(true);
    expect(progress).toEqual([...new Set(progress)].sort((a, b) => a - b));
  });
});

/**
 * A reverse proxy to the gateway that destroys the client's connection of the first tools/call POST right
 * after forwarding a chunk with a progress notification (and drops its own leg to the gateway with it);
 * it records the Last-Event-ID of every GET that resumes a stream.
 */
async function cuttingProxy(target: string) {
  const state = { url: '', cuts: 0, resumptions: [] as string[] };
  const server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (chunk: Buffer) => chunks.push(chunk));
    req.on('end', () => {
      const body = Buffer.concat(chunks);
      const lastEventId = req.headers['last-event-id'];
      if (typeof lastEventId === 'string') state.resumptions.push(lastEventId);
      const cut = req.method === 'POST' && state.cuts === 0 && body.includes('"tools/call"');
      const forward = request(
        target,
        { method: req.method, headers: { ...req.headers, host: new URL(target).host } },
        (up) => {
          const { 'transfer-encoding': _t, connection: _c, ...headers } = up.headers;
          res.writeHead(up.statusCode ?? 502, headers);
          up.on('data', (chunk: Buffer) => {
            if (!cut || state.cuts === 0) res.write(chunk);
            if (cut && state.cuts === 0 && chunk.includes('notifications/progress')) {
              state.cuts += 1;
              up.destroy();
              // Once the chunk has left, so that the client holds an event id to resume from.
              res.write('', () => res.destroy());
            }
          });
          up.on('end', () => res.end());
          up.on('error', () => res.destroy());
        },
      );
      forward.on('error', () => res.destroy());
      res.on('close', () => forward.destroy());
      forward.end(body);
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  cleanup.add(() => new Promise((resolve) => server.close(resolve)));
  cleanup.add(() => server.closeAllConnections());
  state.url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/mcp`;
  return state;
}
