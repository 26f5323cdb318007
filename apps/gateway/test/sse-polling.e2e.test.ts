import { Client, StreamableHTTPClientTransport } from '@modelcontextprotocol/client';
import { ErrorCode } from '@switchyard/core';
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
import { Cleanup, eventually, rawPost, startGateway } from './support/harness.js';
import { type PollingUpstreamLog, pollingUpstream } from './support/polling-upstream.js';

// SSE polling (SEP-1699) through the CLI, with a real 2025 upstream on the official SDK that closes its
// response stream mid-call: the gateway follows it as a client (waits its `retry`, resumes with GET +
// Last-Event-ID, reads on to the answer) and, for clients that can resume (2025-11-25, primed), closes
// their stream as it resumes the upstream's, so they come back with Last-Event-ID for the answer. Older
// clients keep their stream and simply get the answer. An upstream that keeps closing without answering,
// or refuses to be resumed, costs that one call a clear error.

const shared = new Cleanup();
const cleanup = new Cleanup();
afterAll(() => shared.run());
afterEach(() => cleanup.run());

let url: string;
let upstream: PollingUpstreamLog;
let refusing: PollingUpstreamLog;
beforeAll(async () => {
  const polling = await pollingUpstream(shared, { retryMs: 200 });
  const refusal = await pollingUpstream(shared, { retryMs: 50, refuseResume: true });
  upstream = polling.log;
  refusing = refusal.log;
  const gw = await startGateway(shared, {
    listen: { http: { host: '127.0.0.1', port: 0, path: '/mcp' } },
    mcpServers: {
      up: { url: polling.url, timeoutMs: 10_000 },
      stuck: { url: polling.url, timeoutMs: 1_500 },
      refusing: { url: refusal.url, timeoutMs: 10_000 },
    },
  });
  url = gw.url;
}, 30_000);

/** Opens a legacy session by raw HTTP at `version`. */
const open = (version: string) => openRawSession(cleanup, url, version);

/** Every event of an SSE answer, until the gateway ends it. */
async function events(response: Response): Promise<SseEvent[]> {
  expect(response.headers.get('content-type')).toBe('text/event-stream');
  const reader = new SseReader(response);
  cleanup.add(() => reader.cancel());
  return reader.rest();
}

const call = (id: number, name: string, args: Json = {}, progressToken?: string) => ({
  id,
  method: 'tools/call',
  params: { name, arguments: args, ...(progressToken ? { _meta: { progressToken } } : {}) },
});
const answerTo = (id: number) => (e: SseEvent) => messageOf(e)?.id === id;
const progressOf = (e: SseEvent) => (messageOf(e)?.params as { progress?: number } | undefined)?.progress;
const POLLED = { content: [{ type: 'text', text: 'polled' }] };

/** An SDK v2 client on a 2025 session that records the Last-Event-ID of every stream it resumes. */
async function sdkClient(resumedFrom: string[]): Promise<Client> {
  const client = new Client({ name: 'polling-client', version: '1.0.0' });
  const transport = new StreamableHTTPClientTransport(new URL(url), {
    fetch: (input, init) => {
      const lastEventId = new Headers(init?.headers).get('last-event-id');
      if (lastEventId) resumedFrom.push(lastEventId);
      return fetch(input, init);
    },
  });
  await client.connect(transport);
  cleanup.add(() => client.close());
  return client;
}

describe('SSE polling (SEP-1699) through the gateway', () => {
  it('a 2025-11-25 client: primed stream closed mid-call, the answer on GET + Last-Event-ID', async () => {
    const session = await open('2025-11-25');
    const resumedBefore = upstream.resumptions.length;
    const first = await events(await postOn(session, call(7, 'up__poll', {}, 'tok')));
    // Priming first (an id, `retry`, empty data), and no answer.
    expect(first[0]).toEqual({ id: expect.any(String), retry: expect.any(Number), data: '' });
    expect(first.some(answerTo(7))).toBe(false);
    // Closed as the upstream closed its own, with the upstream's `retry` for the client to respect.
    expect(first.at(-1)).toEqual({ retry: 200, data: '' });
    const lastEventId = first.filter((e) => e.id !== undefined).at(-1)!.id!;

    const resumed = await events(await getOn(session, lastEventId));
    expect(resumed[0]).toEqual({ id: lastEventId, retry: expect.any(Number), data: '' });
    expect(messageOf(resumed.at(-1)!)).toEqual({ jsonrpc: '2.0', id: 7, result: POLLED });
    // Progress from before and after the upstream's close, each once, in order, across both connections.
    expect([...first, ...resumed].map(progressOf).filter((p) => p !== undefined)).toEqual([1, 2]);
    // The gateway resumed the upstream's stream as a client, from the upstream's own event id.
    expect(upstream.resumptions.length).toBeGreaterThan(resumedBefore);
  });

  it('the official SDK v2 client resumes the closed stream by itself and gets the result', async () => {
    const resumedFrom: string[] = [];
    const client = await sdkClient(resumedFrom);
    const progress: number[] = [];
    const result = await client.callTool(
      { name: 'up__poll', arguments: { ms: 50 } },
      { onprogress: (p) => progress.push(p.progress), timeout: 20_000 },
    );
    expect(result).toMatchObject(POLLED);
    expect(progress).toEqual([1, 2]);
    expect(resumedFrom.length).toBeGreaterThanOrEqual(1);
  });

  it('an older client that cannot resume (2025-06-18) keeps its stream and gets the answer', async () => {
    const session = await open('2025-06-18');
    const resumedBefore = upstream.resumptions.length;
    const answer = await rawPost(
      url,
      JSON.stringify({ jsonrpc: '2.0', ...call(3, 'up__poll') }),
      session.headers,
    );
    expect(answer.status).toBe(200);
    expect(answer.json).toEqual({ jsonrpc: '2.0', id: 3, result: POLLED });
    expect(upstream.resumptions.length).toBeGreaterThan(resumedBefore);
  });

  it('an upstream that keeps closing without answering ends in upstream_timeout; other calls go on', async () => {
    const resumedFrom: string[] = [];
    const client = await sdkClient(resumedFrom);
    const stuck = client.callTool({ name: 'stuck__poll_forever', arguments: {} }, { timeout: 20_000 });
    const failure = stuck.then(
      () => undefined,
      (error: unknown) => error,
    );
    // Meanwhile the same upstream (on both of the gateway's sessions) and the client keep working.
    await expect(client.callTool({ name: 'stuck__echo', arguments: { text: 'a' } })).resolves.toMatchObject({
      content: [{ type: 'text', text: 'a' }],
    });
    await expect(client.callTool({ name: 'up__echo', arguments: { text: 'b' } })).resolves.toMatchObject({
      content: [{ type: 'text', text: 'b' }],
    });
    expect(await failure).toMatchObject({
      code: ErrorCode.UpstreamTimeout,
      data: { reason: 'upstream_timeout', upstream: 'stuck' },
    });
    // The upstream was resumed more than once, then told the call is over.
    expect(upstream.resumptions.length).toBeGreaterThan(1);
    // The cancellation goes out on its own request, which may land after the client has its answer.
    await eventually(() => upstream.cancelled.length >= 1, 'notifications/cancelled upstream');
    await expect(client.callTool({ name: 'stuck__echo', arguments: { text: 'c' } })).resolves.toMatchObject({
      content: [{ type: 'text', text: 'c' }],
    });
  });

  it('an upstream that refuses to be resumed fails that call at once with upstream_unavailable', async () => {
    const client = await sdkClient([]);
    const refused = await client
      .callTool({ name: 'refusing__poll', arguments: {} }, { timeout: 20_000 })
      .then(
        () => undefined,
        (error: unknown) => error,
      );
    expect(refused).toMatchObject({
      code: ErrorCode.UpstreamUnavailable,
      message: expect.stringMatching(/refused to resume it \(HTTP 405\)/),
      data: { reason: 'upstream_unavailable', upstream: 'refusing' },
    });
    expect(refusing.resumptions).toHaveLength(1);
    await expect(
      client.callTool({ name: 'refusing__echo', arguments: { text: 'still here' } }),
    ).resolves.toMatchObject({
      content: [{ type: 'text', text: 'still here' }],
    });
  });
});
