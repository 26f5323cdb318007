import { join } from 'node:path';
import { Client, StreamableHTTPClientTransport } from '@modelcontextprotocol/client';
import { rssMiB } from '@switchyard/testkit';
import fc from 'fast-check';
import { afterEach, expect, it } from 'vitest';
import { adminCase, httpVariant, MODERN_META, messageCase } from './fuzz/inputs.js';
import { preview, Tally, type Verdict } from './fuzz/verdict.js';
import { HttpWire, runAdmin, runFramed, StdioWire, WsWire } from './fuzz/wires.js';
import { Cleanup, eventually, httpUpstream, tempDir, writeConfig } from './support/harness.js';
import { rawHttp } from './support/raw-wire.js';
import { spawnStdioGateway } from './support/stdio.js';

// The bad-input sweep (DESIGN §9): seeded, reproducible fast-check runs against one real gateway process
// serving HTTP (legacy sessions and stateless 2026-07-28), WebSocket, stdio and its admin listener, with
// the plugins that look client input up (pin, approve, access with a CEL `when`, secrets, cache) and a
// testkit upstream that counts what it receives. For every input: an HTTP status under 500 and a JSON-RPC
// error or result, every request answered, nothing hangs, the process lives. Afterwards the upstream saw
// no garbage, a valid request is answered on every wire, and memory settles.
//
// SWITCHYARD_FUZZ_CASES (default 3,000) and SWITCHYARD_FUZZ_SEED (default: random, printed) set the run;
// `pnpm fuzz --cases 100000 --seed 42` runs this file with them.

const cleanup = new Cleanup();
afterEach(() => cleanup.run());

const CASES = Number(process.env.SWITCHYARD_FUZZ_CASES ?? 3_000);
const SEED = Number(process.env.SWITCHYARD_FUZZ_SEED ?? Math.floor(Math.random() * 2 ** 31));
/** SWITCHYARD_FUZZ_KEEP_GOING=1: run every case and report every problem, instead of stopping at the first. */
const KEEP_GOING = process.env.SWITCHYARD_FUZZ_KEEP_GOING === '1';
/** `limits.maxWsFrameBytes` (the default, `maxBodyBytes`): a bigger frame closes with 1009. */
const MAX_FRAME_BYTES = 4 * 1024 * 1024;

/** The methods a testkit upstream may legitimately receive from the gateway. */
const UPSTREAM_METHODS = new Set([
  'initialize',
  'ping',
  'server/discover',
  'tools/list',
  'tools/call',
  'prompts/list',
  'prompts/get',
  'resources/list',
  'resources/templates/list',
  'resources/read',
  'resources/subscribe',
  'resources/unsubscribe',
  'completion/complete',
  'logging/setLevel',
  'subscriptions/listen',
]);

it(
  `answers ${CASES} mutated requests on every wire with a 4xx or a JSON-RPC answer, and keeps serving`,
  async () => {
    const started = performance.now();
    const docs = await httpUpstream(cleanup, {
      name: 'docs',
      resources: 3,
      templates: 1,
      tools: 2,
      prompts: 2,
      completions: ['1', '2'],
      behaviorTools: true,
      modern: true,
    });
    const dir = await tempDir(cleanup);
    const config = await writeConfig(cleanup, {
      listen: {
        stdio: true,
        http: { host: '127.0.0.1', port: 0, path: '/mcp' },
        ws: { host: '127.0.0.1', port: 0, path: '/mcp' },
        admin: { host: '127.0.0.1', port: 0 },
      },
      clients: {
        'fuzz-admin': { token: 'fuzz-admin', groups: ['admins'] },
        'fuzz-user': { token: 'fuzz-user' },
      },
      anonymous: 'anon',
      limits: { sessions: 100_000 },
      mcpServers: { docs: { url: docs.url, timeoutMs: 3_000 } },
      plugins: [
        ['@switchyard/plugin-pin', { lockFile: join(dir, 'switchyard.lock.json') }],
        [
          '@switchyard/plugin-approve',
          { timeoutMs: 500, rules: [{ tools: ['docs__tool_1'], by: ['admins'] }] },
        ],
        [
          '@switchyard/plugin-access',
          {
            default: 'allow',
            rules: [
              { effect: 'deny', tools: ['docs__*'], when: 'has(arguments.deny) && arguments.deny == true' },
            ],
          },
        ],
        ['@switchyard/plugin-secrets', {}],
        ['@switchyard/plugin-cache', {}],
      ],
    });
    // Answers on stdout can be several MiB (a huge argument echoed): keep whole lines.
    const gw = spawnStdioGateway(cleanup, config, [], { keepChars: 64 * 1024 * 1024 });
    const http = (await gw.waitForLine(/listening on (http:\/\/\S+\/mcp)/, { timeoutMs: 20_000 }))[1]!;
    const wsUrl = (await gw.waitForLine(/listening on (ws:\/\/\S+)/))[1]!;
    const admin = (await gw.waitForLine(/admin listening on (http:\/\/\S+)/))[1]!;
    const status = async () => {
      const answer = await rawHttp(admin, {
        method: 'GET',
        target: '/admin/status',
        headers: { authorization: 'Bearer fuzz-admin' },
      });
      expect(answer.status).toBe(200);
      return JSON.parse(answer.body) as { sessions: { total: number } };
    };

    const legacy = new HttpWire(http, 'legacy');
    const modern = new HttpWire(http, 'modern');
    const ws = new WsWire(wsUrl);
    const stdio = new StdioWire(gw);
    await Promise.all([legacy.start(), modern.start(), ws.start(), stdio.start()]);
    cleanup.add(() => ws.close());
    // Warm up with valid traffic (the modern endpoint keeps one session per identity), then take the
    // baseline the sweep is measured against.
    await Promise.all([
      valid(http),
      valid(http),
      ...[undefined, 'fuzz-admin', 'fuzz-user'].map((t) => modernList(http, t)),
    ]);
    const baseline = { rss: rssMiB(gw.pid), sessions: (await status()).sessions.total };

    const tally = new Tally();
    const share = (part: number) => Math.max(1, Math.round(CASES * part));
    const streams: { name: string; runs: number; check: () => Promise<fc.RunDetails<unknown>> }[] = [];
    const stream = <T>(
      name: string,
      runs: number,
      arbitrary: fc.Arbitrary<T>,
      run: (input: T) => Promise<Verdict>,
    ) => {
      const seed = SEED + streams.length;
      streams.push({
        name,
        runs,
        check: () =>
          fc.check(
            fc.asyncProperty(arbitrary, async (input) => {
              const began = performance.now();
              const verdict = await Promise.race([run(input), gw.crashed]);
              tally.add(name, verdict, performance.now() - began);
              if (verdict.problem !== undefined && !KEEP_GOING) throw new Error(verdict.problem);
            }),
            { seed, numRuns: runs, endOnFailure: true },
          ) as Promise<fc.RunDetails<unknown>>,
      });
    };
    stream('legacy', share(0.25), fc.tuple(messageCase, httpVariant), ([c, v]) => legacy.run(c, v));
    stream('modern', share(0.25), fc.tuple(messageCase, httpVariant), ([c, v]) => modern.run(c, v));
    stream('ws', share(0.2), fc.tuple(messageCase, fc.boolean()), ([c, m]) =>
      ws.run(c, m ? 'modern' : 'legacy', MAX_FRAME_BYTES),
    );
    stream('stdio', share(0.15), messageCase, (c) => runFramed(stdio, c, 'legacy', true));
    stream('admin', share(0.15), adminCase, (c) => runAdmin(admin, c));
    console.info(
      `fuzz: seed ${SEED}, ${CASES} cases (${streams.map((s) => `${s.name} ${s.runs}`).join(', ')})`,
    );

    const results = await Promise.all(streams.map((s) => s.check()));
    const sweepMs = performance.now() - started;
    const failures = results.flatMap((details, i) => {
      if (!details.failed) return [];
      const s = streams[i]!;
      return [
        `${s.name} (stream seed ${details.seed}, path "${details.counterexamplePath}", after ${details.numRuns} runs; ` +
          `replay the sweep: pnpm fuzz --seed ${SEED} --cases ${CASES}): ` +
          `${preview(details.errorInstance instanceof Error ? details.errorInstance.message : details.errorInstance, 600)}\n` +
          `  case: ${preview(details.counterexample, 600)}`,
      ];
    });

    // Still serving on every wire, and the process never died.
    expect(gw.running()).toBe(true);
    await valid(http);
    await modernList(http);
    const ping = (await runFramed(stdio, { base: 0, mutations: [], text: undefined }, 'legacy', true))
      .problem;
    expect(ping).toBeUndefined();
    expect(
      (await ws.run({ base: 0, mutations: [], text: undefined }, 'legacy', MAX_FRAME_BYTES)).problem,
    ).toBeUndefined();
    await legacy.close();
    await modern.close();

    // The upstream saw only methods and names the gateway routes (its counters are keyed by what arrived).
    const seen = docs.server.stats;
    const strange = [
      ...Object.keys(seen.requests).filter((m) => !UPSTREAM_METHODS.has(m)),
      ...Object.keys(seen.toolCalls).filter(
        (t) => !/^(tool_\d|echo|fail|throw|link|elicit|sample|roots|log|slow)$/.test(t),
      ),
      ...Object.keys(seen.promptGets).filter((p) => !/^prompt_\d$/.test(p)),
    ];

    // Memory settles: the sessions the sweep opened are gone again, and RSS stays bounded.
    const sessions = await eventually(async () => {
      const total = (await status()).sessions.total;
      return total <= baseline.sessions ? total : undefined;
    }, 'the sessions to go back to the baseline');
    const rss = rssMiB(gw.pid);

    console.info(
      [
        `fuzz: seed ${SEED}: ${tally.cases} cases in ${(sweepMs / 1000).toFixed(1)} s; ` +
          `outcomes ${JSON.stringify(tally.summary())}; mean ms per case ${JSON.stringify(tally.meanMs())}; ` +
          `sessions opened by cases ${legacy.opened + modern.opened}; ` +
          `WebSocket closes ${JSON.stringify(Object.fromEntries(ws.closes))}; ` +
          `sessions ${baseline.sessions} → ${sessions}; RSS ${baseline.rss?.toFixed(0)} → ${rss?.toFixed(0)} MiB`,
        ...tally.lines(),
        ...tally.problems.slice(0, 40).map((p) => `problem: ${preview(p, 3_000)}`),
      ].join('\n'),
    );
    expect(failures, failures.join('\n')).toEqual([]);
    expect(tally.problems.slice(0, 40), `${tally.problems.length} problems`).toEqual([]);
    expect(strange).toEqual([]);
    if (baseline.rss !== undefined && rss !== undefined) expect(rss - baseline.rss).toBeLessThan(256);
  },
  // Generous for a slow machine; `pnpm fuzz --cases N` scales it.
  Math.max(180_000, CASES * 60),
);

/** A valid session through the official SDK client: a tool call and a read answered as they should be. */
async function valid(url: string): Promise<void> {
  const client = new Client({ name: 'fuzz-check', version: '1.0.0' });
  const transport = new StreamableHTTPClientTransport(new URL(url));
  await client.connect(transport);
  try {
    const call = await client.callTool({ name: 'docs__echo', arguments: { text: 'still here' } });
    expect(JSON.stringify(call.content)).toContain('still here');
    const read = await client.readResource({ uri: 'docs+test://docs/r/0' });
    expect(read.contents[0]).toMatchObject({ text: 'resource 0' });
  } finally {
    await transport.terminateSession().catch(() => {});
    await client.close();
  }
}

/** A 2026-07-28 `tools/list` as `token`'s client (anonymous without one). */
async function modernList(url: string, token?: string): Promise<void> {
  const answer = await rawHttp(url, {
    target: new URL(url).pathname,
    headers: {
      'content-type': 'application/json',
      accept: 'application/json, text/event-stream',
      'mcp-protocol-version': '2026-07-28',
      'mcp-method': 'tools/list',
      ...(token ? { authorization: `Bearer ${token}` } : {}),
    },
    body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'tools/list', params: { _meta: MODERN_META } }),
  });
  expect(answer.status).toBe(200);
}
