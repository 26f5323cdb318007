/**
 * c. The governance plugins' cost per tool call: one testkit upstream with one echo tool (it answers with
 * its arguments twice, as `structuredContent` and as its text), a bare gateway vs one gateway per
 * governance plugin, each alone, one call at a time:
 * - `secrets`: `@switchyard/plugin-secrets` with its defaults (arguments and results scanned, redact);
 * - `pin`: `@switchyard/plugin-pin` with a lock file in a scratch dir, written by trust on first use when
 *   the bench lists the tools through that gateway before timing, so every call is judged against a pin;
 * - `approve`: `@switchyard/plugin-approve` with one rule whose glob matches the tool and whose CEL
 *   condition is evaluated on every call but is false: its cost on the calls it lets through (a held call
 *   costs a human's time, not CPU);
 * - `access`: `@switchyard/plugin-access`, default allow, one deny rule on the tool with a CEL `when`
 *   evaluated on every call (false).
 * The argument text is sized so that the result is about 1 KiB, then about 1 MiB. Interleaved rounds (the
 * order rotated by one path each round, so no path always goes first), median round by calls/s; every
 * answer is checked (the echo, unredacted: the filler holds no credential) and the upstream's `tools/call`
 * counter must move by one per call issued on every path.
 */
import { readFile, rm } from 'node:fs/promises';
import { loadavg } from 'node:os';
import { join } from 'node:path';
import type { Client } from '@modelcontextprotocol/client';
import {
  type BenchClient,
  closeAll,
  connectClient,
  type PostCounter,
  REQUEST_OPTIONS,
  type RunOptions,
} from '../client.js';
import { profiledAs, statsOf, upstreamCounters } from '../read-paths.js';
import { callCounter, callLoop, filler } from '../requests.js';
import { measureCompared } from '../rounds.js';
import {
  children,
  type GatewayOptions,
  ownUpstream,
  type PluginEntry,
  startGateways,
  Teardown,
  warningsOf,
} from '../services.js';
import type { Sizes } from '../sizes.js';

export type GovernanceConfig = Sizes['plugins']['governance'];

/** The governance plugins measured, each alone on its own gateway, in the order of the table. */
export const GOVERNANCE_PLUGINS = ['secrets', 'pin', 'approve', 'access'] as const;
export type GovernancePlugin = (typeof GOVERNANCE_PLUGINS)[number];
export type GovernancePath = 'bare' | GovernancePlugin;
const PATHS: readonly GovernancePath[] = ['bare', ...GOVERNANCE_PLUGINS];

export type GovernanceResult = Awaited<ReturnType<typeof runGovernanceBenchmark>>;

const SERVER = 'a';
const TOOL = `${SERVER}__tool_0`;
/** The one tool every call names, and the name the echo answers with. */
const CALLED = { tools: [TOOL], upstreamTools: ['tool_0'] };

/** The plugin entries of each gateway (the pin lock file lives in a scratch dir of this run). */
export function governancePlugins(lockFile: string): Record<GovernancePlugin, PluginEntry[]> {
  return {
    secrets: [['@switchyard/plugin-secrets', {}]],
    pin: [['@switchyard/plugin-pin', { lockFile }]],
    approve: [
      ['@switchyard/plugin-approve', { rules: [{ tools: [`${SERVER}__*`], when: 'arguments.seq < 0' }] }],
    ],
    access: [
      [
        '@switchyard/plugin-access',
        { default: 'allow', rules: [{ effect: 'deny', tools: [`${SERVER}__*`], when: 'arguments.seq < 0' }] },
      ],
    ],
  };
}

/** Lists the tools once through a gateway and checks that the echo tool is there. */
async function listOnce(client: Client, path: GovernancePath): Promise<void> {
  const listed = (await client.request({ method: 'tools/list', params: {} }, REQUEST_OPTIONS)) as {
    tools?: { name: string }[];
  };
  if (!listed.tools?.some((t) => t.name === TOOL)) {
    throw new Error(
      `governance bench: ${path}: tools/list did not list ${TOOL}: ${JSON.stringify(listed).slice(0, 200)}`,
    );
  }
}

/** The tools the lock file pins for server `a`, waiting up to 5 s for the gateway to write it. */
async function pinnedTools(lockFile: string): Promise<string[]> {
  const deadline = Date.now() + 5000;
  for (;;) {
    try {
      const lock = JSON.parse(await readFile(lockFile, 'utf8')) as {
        servers?: Record<string, { tools?: Record<string, string> }>;
      };
      const tools = Object.keys(lock.servers?.[SERVER]?.tools ?? {});
      if (tools.length > 0) return tools;
    } catch {
      // not written yet (or mid-rename): try again
    }
    if (Date.now() > deadline) {
      throw new Error(
        `governance bench: pin: listing the tools wrote no pins for server ${SERVER} to ${lockFile} within 5 s`,
      );
    }
    await new Promise((r) => setTimeout(r, 50));
  }
}

export async function runGovernanceBenchmark(
  config: GovernanceConfig,
  log: (message: string) => void,
  options: RunOptions = {},
) {
  const start = loadavg();
  const teardown = new Teardown();
  const clients: BenchClient[] = [];
  teardown.add(() => closeAll(clients));
  try {
    const lockDir = await children.scratchDir('switchyard-bench-pin-');
    teardown.add(() => rm(lockDir, { recursive: true, force: true }));
    const lockFile = join(lockDir, 'switchyard.lock.json');
    const plugins = governancePlugins(lockFile);
    const up = await ownUpstream({ name: SERVER, resources: 0, tools: 1 }, teardown);
    const stats = statsOf(up);
    const served = async () => (await upstreamCounters(stats)).calls;
    const calls = callCounter('governance bench:', served);
    const upstreamCalls = calls.totals;
    const gateways = await startGateways(
      up,
      Object.fromEntries(
        PATHS.map((path) => [
          path,
          profiledAs(options, `governance-${path}`, path === 'bare' ? [] : plugins[path]),
        ]),
      ) as Record<GovernancePath, GatewayOptions>,
      teardown,
    );

    const client = {} as Record<GovernancePath, Client>;
    const posts = {} as Record<GovernancePath, PostCounter>;
    for (const path of PATHS) {
      posts[path] = { posts: 0, streamed: 0 };
      const bench = await connectClient(gateways[path].url, `bench-${path}`, {
        ...options,
        postCounter: posts[path],
      });
      clients.push(bench);
      client[path] = bench.client;
      // On the pin gateway this first listing is the trust on first use that writes the lock file.
      await listOnce(bench.client, path);
    }
    const pinned = await pinnedTools(lockFile);
    log(`governance: pin wrote ${lockFile} pinning ${SERVER}: ${pinned.join(', ')}`);

    const sizes = [];
    for (const size of config.sizes) {
      const text = filler(Math.floor(size.resultBytes / 2) - 64);
      const sample = await client.bare.request({
        method: 'tools/call',
        params: { name: TOOL, arguments: { text, seq: 0 } },
      });
      const measuredResultBytes = Buffer.byteLength(JSON.stringify(sample));
      upstreamCalls.issued += 1;
      const [level] = await measureCompared({
        plan: {
          what: `governance ${size.resultBytes} B`,
          levels: [{ concurrency: 1, warmup: size.warmup, count: size.calls }],
          rounds: config.rounds,
        },
        log,
        pairs: GOVERNANCE_PLUGINS.map((path) => [path, 'bare'] as const),
        variants: PATHS.map((path) => ({
          name: path,
          loop: (count) =>
            callLoop(client[path], CALLED, text, count, 1).catch((error: Error) => {
              throw new Error(`governance bench: ${path}: ${error.message}`);
            }),
          cpu: { upstream: up.proc, gateway: gateways[path].proc },
        })),
        before: calls.before,
        beforeTimed: (variant) => posts[variant.name as GovernancePath].streamed,
        after: async (run, before, issued, streamedBefore) => {
          await calls.check(run, before, issued);
          const streamed = posts[run.path as GovernancePath].streamed - streamedBefore;
          return { streamedCalls: options.rawClient ? undefined : streamed };
        },
        note: (run) => (run.streamedCalls ? `, ${run.streamedCalls} answered as streams` : ''),
      });
      sizes.push({
        ...level!,
        resultBytes: size.resultBytes,
        measuredResultBytes,
      });
    }
    upstreamCalls.served = await served();
    return {
      config,
      plugins,
      sizes,
      upstreamCalls,
      pinnedTools: pinned,
      loadavg: { start, end: loadavg() },
      gatewayWarnings: warningsOf(gateways),
    };
  } finally {
    await teardown.run();
  }
}
