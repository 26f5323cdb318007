import { Client, StreamableHTTPClientTransport } from '@modelcontextprotocol/client';
import { rssMiB } from '@switchyard/testkit';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Cleanup, eventually } from './support/harness.js';
import {
  BAD,
  type BadName,
  callTool,
  echoed,
  expectUnharmed,
  type Json,
  outcome,
  startWildGateway,
  textOf,
  type WildGateway,
} from './support/wild.js';

// DESIGN §11 through the real gateway: one bad answer of an upstream costs at most the request it
// spoiled. One gateway fronts four misbehaving testkit upstreams — sl (stdio, 2025), sm (stdio, modern),
// hl (HTTP, 2025), hm (HTTP, modern), every shared misbehave mode at once — and a healthy `good`. Each
// test checks the spoiled request's exact outcome, then that the upstream and `good` still answer, that
// the upstream saw one handshake and that the gateway never reconnected it (see support/wild.ts).
// The listing bullets (cursors, tool names, list_changed storms) are in wild-lists.e2e.test.ts.

const shared = new Cleanup();
afterAll(() => shared.run());
let fx: WildGateway;
beforeAll(async () => {
  fx = await startWildGateway(shared);
}, 30_000);

const MIB = 1024 * 1024;
const MODERN: BadName[] = ['sm', 'hm'];
const LEGACY: BadName[] = ['sl', 'hl'];
const HTTP: BadName[] = ['hl', 'hm'];

describe('upstreams in the wild: answers', () => {
  it('takes a modern result without resultType as complete (sm, hm), for clients of both eras', async () => {
    for (const client of [fx.legacy, fx.modern]) {
      const era = client.getProtocolEra();
      for (const name of MODERN) {
        const args = { text: `${era} via ${name}` };
        const echo = await callTool(client, `${name}__echo`, args);
        expect(echo, `echo on ${name} (${era} client)`).toMatchObject({ result: echoed('echo', args) });
        const read = await outcome(
          client.request({ method: 'resources/read', params: { uri: `${name}+test://${name}/r/2` } }),
        );
        expect(read, `read on ${name} (${era} client)`).toMatchObject({
          result: { contents: [{ uri: `${name}+test://${name}/r/2`, text: 'resource 2' }] },
        });
      }
      const tools = (await client.listTools()).tools.map((t) => t.name);
      expect(tools).toEqual(expect.arrayContaining(['sm__echo', 'sm__huge', 'hm__echo', 'hm__huge']));
    }
    // Said once per connection, and only of the upstreams that do it.
    const told = fx.gw
      .stderr()
      .split('\n')
      .filter((line) => line.includes('requests without resultType; taking such results as complete'));
    expect(told.map((line) => /\[switchyard:upstream:(\w+)\]/.exec(line)?.[1]).sort()).toEqual(['hm', 'sm']);
    await expectUnharmed(fx, MODERN);
  });

  it('answers a result that fits no schema with -32603 upstream_invalid_result, or forwards it unchanged', async () => {
    // A 2025-era result is relayed as it came (the gateway reads only what it routes on; the client
    // validates); the SDK validates a 2026-07-28 one, and the gateway names the upstream that sent it.
    for (const name of LEGACY) {
      expect(await callTool(fx.legacy, `${name}__invalid_result`), `invalid_result on ${name}`).toEqual({
        result: { content: 'not-an-array' },
      });
    }
    for (const name of MODERN) {
      expect(await callTool(fx.legacy, `${name}__invalid_result`), `invalid_result on ${name}`).toMatchObject(
        {
          error: {
            code: -32603,
            message: expect.stringContaining(`Upstream '${name}' answered tools/call with an invalid result`),
            data: { reason: 'upstream_invalid_result', upstream: name, method: 'tools/call' },
          },
        },
      );
    }
    // A result that is no object at all is never forwarded, from either era, to either era.
    for (const client of [fx.legacy, fx.modern]) {
      for (const name of BAD) {
        expect(await callTool(client, `${name}__non_object_result`), `non_object_result on ${name}`).toEqual({
          error: {
            code: -32603,
            message: expect.stringContaining('(the result is not an object)'),
            data: { reason: 'upstream_invalid_result', upstream: name, method: 'tools/call' },
          },
        });
      }
    }
    await expectUnharmed(fx, BAD);
  });

  it('fails a result over limits.maxResultBytes with result_too_large, memory bounded', async () => {
    const pid = fx.gw.pid;
    const start = rssMiB(pid);
    let peak = start ?? 0;
    const sample = setInterval(() => {
      peak = Math.max(peak, rssMiB(pid) ?? 0);
    }, 10);
    try {
      // `huge` answers 40 MiB (twice over stdio: duplicate-ids), over the default limit of 32 MiB.
      for (const name of BAD) {
        const huge = await callTool(fx.legacy, `${name}__huge`);
        expect(huge, `huge on ${name}`).toMatchObject({
          error: {
            code: -32008,
            message: expect.stringContaining(`Upstream '${name}' answered with`),
            data: { reason: 'result_too_large', upstream: name, limit: 32 * MIB, bytes: expect.any(Number) },
          },
        });
        // Over stdio the whole line is counted as it passes; over HTTP the stream is dropped past the limit.
        const { bytes } = (huge as { error: { data: { bytes: number } } }).error.data;
        expect(bytes, `bytes counted of ${name}'s answer`).toBeGreaterThan(
          name[0] === 's' ? 40 * MIB : 32 * MIB,
        );
      }
    } finally {
      clearInterval(sample);
    }
    // Discarded as they arrive: the gateway never held the four answers (160 MiB, 240 with the duplicates).
    if (start !== undefined)
      expect(peak - start, `peak RSS ${peak} MiB, ${start} MiB before`).toBeLessThan(160);
    await expectUnharmed(fx, BAD);
    // 240 MiB through pipes and sockets: ~10 s on a quiet 2-core box, 20–30 s on a loaded one.
  }, 90_000);

  it('answers server-to-client requests the caller cannot serve with an error at once', async () => {
    // The legacy client declared no capabilities; `ask` reports what came back, or that nothing did
    // within 15 s. (The modern era has no server-to-client requests: ask needs a 2025-era upstream.)
    for (const name of LEGACY) {
      expect(textOf(await callTool(fx.legacy, `${name}__ask`, { method: 'sampling/createMessage' }))).toBe(
        "error -32601: The client did not declare the 'sampling' capability, so Switchyard cannot ask it for sampling/createMessage.",
      );
    }
    // All at once, from both clients: over stdio nothing says which call a request belongs to while
    // calls of two sessions are in flight, and that is refused at once too.
    const asks: Json[] = [
      { method: 'sampling/createMessage' },
      { method: 'elicitation/create' },
      { method: 'roots/list' },
      { method: 'x/custom' },
      { method: 'sampling/createMessage', unrelated: true },
      { method: 'x/custom', unrelated: true },
    ];
    const answers = await Promise.all(
      LEGACY.flatMap((name) =>
        [
          ...asks.map((args) => ({ client: fx.legacy, args })),
          { client: fx.modern, args: { method: 'sampling/createMessage' } },
        ].map(async ({ client, args }) => ({
          asked: `${name} ${client.getProtocolEra()} ${JSON.stringify(args)}`,
          text: textOf(await callTool(client, `${name}__ask`, args)),
        })),
      ),
    );
    for (const { asked, text } of answers) expect(text, asked).toMatch(/^error -?\d+: \S/);
    await expectUnharmed(fx, LEGACY);
  });

  it("fails an upstream's request at once when the client answers it with a malformed response", async () => {
    // Found from outside: `result: "x"`, `result: null`, an error without a numeric code… each got HTTP 202
    // and was dropped by the SDK, and the upstream waited out its timeout. Now the client hears 400 and the
    // upstream an error at once. A client whose transport spoils each answer to roots/list in one way:
    const spoils: ((id: unknown) => Json)[] = [
      (id) => ({ jsonrpc: '2.0', id, result: 'x' }),
      (id) => ({ jsonrpc: '2.0', id, result: [1, 2] }),
      (id) => ({ jsonrpc: '2.0', id, error: { code: 'bad', message: 'm' } }),
      (id) => ({ jsonrpc: '2.0', id, result: {}, error: { code: 1, message: 'both' } }),
    ];
    const refused: number[] = [];
    let asked = 0;
    for (const spoil of spoils) {
      const client = new Client({ name: 'wild-spoiler', version: '1.0.0' }, { capabilities: { roots: {} } });
      client.setRequestHandler('roots/list', () => ({ roots: [] }));
      const transport = new StreamableHTTPClientTransport(new URL(fx.gw.url), {
        fetch: async (input, init) => {
          const response = await fetch(input, init);
          // The POST carrying the (spoilt) answer: a message without a method.
          if (typeof init?.body === 'string' && !('method' in (JSON.parse(init.body) as Json)))
            refused.push(response.status);
          return response;
        },
      });
      const send = transport.send.bind(transport);
      transport.send = (message, options) => {
        const m = message as Json;
        const spoilt = 'result' in m && Array.isArray((m.result as Json).roots) ? spoil(m.id) : m;
        return send(spoilt as never, options);
      };
      await client.connect(transport);
      try {
        for (const name of LEGACY) {
          const text = textOf(await callTool(client, `${name}__ask`, { method: 'roots/list' }));
          expect(text, `${name}: ${JSON.stringify(spoil(7))}`).toMatch(
            /^error -32603: .*The client answered with an invalid response: it (needs|has) /,
          );
          // The answer POST's own 400 may come back after the call it failed: awaited before the close.
          asked += 1;
          await eventually(() => refused.length === asked, `the refusal of spoilt answer ${asked}`);
        }
      } finally {
        await client.close();
      }
    }
    expect(refused).toEqual(Array(spoils.length * LEGACY.length).fill(400));
    await expectUnharmed(fx, LEGACY);
  });

  it('answers an HTTP 500 error page with -32009 upstream_error (data.status), the connection kept', async () => {
    for (const client of [fx.legacy, fx.modern]) {
      for (const name of HTTP) {
        expect(await callTool(client, `${name}__http_500`), `http_500 on ${name}`).toEqual({
          error: {
            code: -32009,
            message: expect.stringContaining(`Upstream '${name}' failed this request: HTTP 500`),
            data: { reason: 'upstream_error', upstream: name, status: 500 },
          },
        });
      }
    }
    await expectUnharmed(fx, HTTP);
  });

  it("passes an upstream's 429 Retry-After on as data.retryAfterMs of -32009 upstream_error", async () => {
    for (const client of [fx.legacy, fx.modern]) {
      for (const name of HTTP) {
        expect(await callTool(client, `${name}__http_429`), `http_429 on ${name}`).toEqual({
          error: {
            code: -32009,
            message: expect.stringContaining(
              `Upstream '${name}' failed this request: HTTP 429 Too Many Requests: Too Many Requests. The upstream asks to retry after 7000 ms.`,
            ),
            data: { reason: 'upstream_error', upstream: name, status: 429, retryAfterMs: 7000 },
          },
        });
      }
    }
    await expectUnharmed(fx, HTTP);
  });

  // Last: the rate limit lets a warning through again 10 s after the first ones (at connect), and this
  // test waits for that line.
  it('drops non-JSON stdout lines, stray and duplicate responses and malformed notifications, logged rate-limited', async () => {
    // Every answer of each bad upstream comes framed by noise, a response to an unknown id, a duplicate
    // and malformed notifications: 20 concurrent calls to each are each answered with their own result.
    const calls = BAD.flatMap((name) =>
      Array.from({ length: 20 }, async (_, i) => {
        const args = { text: `${name} call ${i}` };
        expect(await callTool(fx.legacy, `${name}__echo`, args), `${name} call ${i}`).toEqual({
          result: echoed('echo', args),
        });
      }),
    );
    await Promise.all(calls);

    const lines = () => fx.gw.stderr().split('\n');
    const warned = (name: string, what: string) =>
      lines().filter((line) => line.includes(` WARN  [switchyard:upstream:${name}] ${what}`));
    const NOISE = 'dropped a stdout line that is not JSON-RPC';
    const STRAY = 'dropped a response to no request of ours';
    const MALFORMED = 'dropped a malformed notification';
    for (const name of BAD) {
      for (const what of [...(name[0] === 's' ? [NOISE] : []), STRAY, MALFORMED]) {
        expect(warned(name, what).length, `${name}: ${what}`).toBeGreaterThan(0);
      }
    }
    // The next line of a kind, once its 10 s are over, says how many were left out meanwhile.
    const deadline = Date.now() + 25_000;
    const suppressed = (name: string) => warned(name, STRAY).find((line) => /suppressed=\d+/.test(line));
    while (BAD.some((name) => suppressed(name) === undefined) && Date.now() < deadline) {
      await Promise.all(BAD.map((name) => callTool(fx.legacy, `${name}__echo`)));
      await new Promise((resolve) => setTimeout(resolve, 200));
    }
    for (const name of BAD)
      expect(suppressed(name), `${name}: a line with suppressed=`).toMatch(/suppressed=[1-9]/);

    // At most one line per kind (a notification kind is its method) and upstream every 10 s.
    const most = 1 + Math.floor((Date.now() - fx.startedAt) / 10_000);
    for (const name of BAD) {
      expect(warned(name, NOISE).length, `${name}: ${NOISE}`).toBeLessThanOrEqual(most);
      expect(warned(name, STRAY).length, `${name}: ${STRAY}`).toBeLessThanOrEqual(most);
      const byMethod = new Map<string, number>();
      for (const line of warned(name, MALFORMED)) {
        const method = /method="([^"]+)"/.exec(line)?.[1] ?? '?';
        byMethod.set(method, (byMethod.get(method) ?? 0) + 1);
      }
      expect([...byMethod.keys()].sort(), `${name}: malformed notification kinds`).toEqual([
        'notifications/message',
        'notifications/progress',
        'notifications/resources/updated',
        'notifications/tools/list_changed',
      ]);
      for (const [method, count] of byMethod) {
        expect(count, `${name}: ${MALFORMED} ${method}`).toBeLessThanOrEqual(most);
      }
    }
    await expectUnharmed(fx, BAD);
  }, 40_000);
});
