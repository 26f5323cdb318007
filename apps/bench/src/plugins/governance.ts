/** Section 3c: each governance plugin alone per tool call vs a bare gateway (README.md, section 3). */
import { readFile } from 'node:fs/promises';
import { loadavg } from 'node:os';
import { join } from 'node:path';
import type { Client } from '@modelcontextprotocol/client';
import { eventually } from '@switchyard/testkit';
import {
  children,
  counters,
  type Gateway,
  type Log,
  type PluginEntry,
  REQUEST_OPTIONS,
  type RunOptions,
  Scope,
  warningsOf,
} from '../harness.js';
import { callLoop, filler, measureCompared, oneCallEach } from '../measure.js';
import { comparedSection, int } from '../report/format.js';
import type { Sizes } from '../sizes.js';

/** The governance plugins measured, each alone on its own gateway, in the order of the table. */
const GOVERNANCE = ['secrets', 'pin', 'approve', 'access'] as const;
type GovernancePath = 'bare' | (typeof GOVERNANCE)[number];
const SERVER = 'a';
const TOOL = `${SERVER}__tool_0`;

/** The plugin entries of each gateway (the pin lock file lives in a scratch dir of this run). */
function governancePlugins(lockFile: string): Record<GovernancePath, PluginEntry[]> {
  const never = { tools: [`${SERVER}__*`], when: 'arguments.seq < 0' };
  return {
    bare: [],
    secrets: [['@switchyard/plugin-secrets', {}]],
    pin: [['@switchyard/plugin-pin', { lockFile }]],
    approve: [['@switchyard/plugin-approve', { rules: [never] }]],
    access: [['@switchyard/plugin-access', { default: 'allow', rules: [{ effect: 'deny', ...never }] }]],
  };
}

/** The tools the lock file pins for the server, once the gateway has written it (within 5 s). */
function pinnedTools(lockFile: string): Promise<string[]> {
  const pins = async () => {
    const lock = JSON.parse(await readFile(lockFile, 'utf8')) as {
      servers?: Record<string, { tools?: Record<string, string> }>;
    };
    const tools = Object.keys(lock.servers?.[SERVER]?.tools ?? {});
    return tools.length > 0 && tools;
  };
  // Not written yet (or mid-rename) reads as no pins: try again.
  return eventually(pins, `governance bench: pin to write its pins to ${lockFile}`, 5000);
}

/** c. Each governance plugin alone vs a bare gateway, one call at a time, per result size. */
export function runGovernanceBenchmark(
  config: Sizes['plugins']['governance'],
  log: Log,
  options: RunOptions = {},
) {
  const start = loadavg();
  return Scope.with(async (scope) => {
    const lockFile = join(await children.scratchDir('switchyard-bench-pin-'), 'switchyard.lock.json');
    const plugins = governancePlugins(lockFile);
    const up = await scope.upstream({ name: SERVER, resources: 0, tools: 1 });
    const stats = counters(up);
    const served = async () => (await stats()).calls;
    const calls = oneCallEach(served);
    const gateways = await scope.pluginGateways([up], plugins, options, 'governance-');
    const client = {} as Record<GovernancePath, Client>;
    const posts = {} as Record<GovernancePath, { posts: number; streamed: number }>;
    for (const [path, gateway] of Object.entries(gateways) as [GovernancePath, Gateway][]) {
      posts[path] = { posts: 0, streamed: 0 };
      client[path] = await scope.client(gateway.url, `bench-${path}`, {
        ...options,
        postCounter: posts[path],
      });
      // On the pin gateway this first listing is the trust on first use that writes the lock file.
      const listed = (await client[path].request({ method: 'tools/list', params: {} }, REQUEST_OPTIONS)) as {
        tools?: { name: string }[];
      };
      if (!listed.tools?.some((t) => t.name === TOOL)) {
        throw new Error(`governance bench: ${path}: tools/list did not list ${TOOL}`);
      }
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
      calls.totals.issued += 1;
      const [level] = await measureCompared({
        what: `governance ${size.resultBytes} B`,
        levels: [{ concurrency: 1, warmup: size.warmup, count: size.calls }],
        rounds: config.rounds,
        log,
        pairs: GOVERNANCE.map((path) => [path, 'bare'] as const),
        variants: (Object.keys(plugins) as GovernancePath[]).map((path) => ({
          name: path,
          loop: (count: number) =>
            callLoop(client[path], { tools: [TOOL], upstreamTools: ['tool_0'] }, text, count, 1).catch(
              (error: Error) => {
                throw new Error(`governance bench: ${path}: ${error.message}`);
              },
            ),
          cpu: { upstream: up.proc, gateway: gateways[path].proc },
        })),
        counters: {
          calls,
          // Timed calls the gateway answered as an SSE stream (the SDK client's count).
          streamed: {
            read: (variant) => posts[variant.name as GovernancePath].streamed,
            timed: true,
          },
        },
        after: (_run, moved) => ({ streamedCalls: options.rawClient ? undefined : moved.streamed }),
        note: (run) => (run.streamedCalls ? `, ${run.streamedCalls} answered as streams` : ''),
      });
      sizes.push({
        ...level!,
        resultBytes: size.resultBytes,
        measuredResultBytes: Buffer.byteLength(JSON.stringify(sample)),
      });
    }
    calls.totals.served = await served();
    const { bare: _, ...measured } = plugins;
    return {
      config,
      plugins: measured,
      sizes,
      upstreamCalls: calls.totals,
      pinnedTools: pinned,
      loadavg: { start, end: loadavg() },
      gatewayWarnings: warningsOf(gateways),
    };
  });
}

export function renderGovernance(gov: Awaited<ReturnType<typeof runGovernanceBenchmark>>): string[] {
  const measured = gov.sizes.map((s) => `${int.format(s.measuredResultBytes)} B`).join(', ');
  const load = (l: number[]) => l.map((x) => x.toFixed(2)).join(' ');
  const sizeLabel = (b: number) => (b >= 1024 * 1024 ? `${b / 1024 / 1024} MiB` : `${b / 1024} KiB`);
  return comparedSection(
    [
      '3c. Governance plugins per tool call — 1 testkit upstream echo tool; a bare gateway vs one gateway per ' +
        'plugin (secrets, pin, approve, access: configs in README, 3c), each alone, one call at a time; ' +
        `pin trusted on first use: ${gov.pinnedTools.join(', ')}`,
    ],
    `calls per round: ${gov.config.sizes.map((s) => `${s.warmup} + ${s.calls}`).join(', ')}; ` +
      `${gov.config.rounds} rounds, paths interleaved (order rotated each round); results of ${measured} ` +
      '(the echo holds the argument twice)',
    gov.sizes,
    {
      paths: ['bare', ...GOVERNANCE].map((path) => ({
        path,
        label: path === 'bare' ? 'bare gateway' : `gateway + ${path}`,
      })),
      first: { header: 'result', cell: (size) => sizeLabel(size.resultBytes) },
      columns: [
        [
          'streamed',
          'r',
          (run) => (run.streamedCalls === undefined ? 'n/a' : `${run.streamedCalls}/${run.count}`),
        ],
      ],
    },
    [
      '   streamed: timed calls the gateway answered as an SSE stream, not JSON (README, 3c).',
      `   checked: every answer is the unredacted echo; the upstream served ${int.format(gov.upstreamCalls.served)} ` +
        `tools/call for ${int.format(gov.upstreamCalls.issued)} issued (one per call on every path and round); ` +
        `load avg ${load(gov.loadavg.start)} at the start, ${load(gov.loadavg.end)} at the end.`,
    ],
  );
}
