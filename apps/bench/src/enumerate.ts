/**
 * Enumeration benchmark, one engine for every list kind (`resources/list` in section 2, `tools/list` in
 * section 4): walking the list to the end with explicit cursors, each of K upstreams alone (directly) vs
 * all K merged through the gateway (one downstream page = the next page of every upstream, fetched in
 * parallel by the gateway).
 *
 * Two scenarios share this code and differ only in `latencyMs`: CPU-bound upstreams (0 ms: every upstream
 * answers as fast as its CPU allows, so K upstreams on C cores are bounded by their summed CPU), and
 * I/O-bound upstreams (each page answered after a fixed delay, like a remote server), where the design
 * property shows: round trips = the longest upstream's pages, fan-out concurrent.
 */
import type { Client } from '@modelcontextprotocol/client';
import { type BenchClient, closeAll, connectClient, type RunOptions } from './client.js';
import {
  type CpuSplit,
  type EnumerateResult,
  type EnumerateRun,
  summarizeEnumeration,
} from './enumerate-result.js';
import {
  checkDirect,
  checkGateway,
  type ExpectedEnumeration,
  expectedEnumeration,
  LIST_KINDS,
  type Walk,
  walk,
} from './lists.js';
import { cpuSampler, roundOrder } from './rounds.js';
import { allStarted, type Gateway, startGateway, startUpstream, type Upstream } from './services.js';
import type { Sizes } from './sizes.js';
import { msSince } from './stats.js';

export type EnumerateConfig = Sizes['enumerate'][number];

export type EnumerateScenario = 'cpu-bound' | 'io-bound';

/** The scenario a config measures: CPU-bound without upstream latency, I/O-bound with it. */
export function scenarioOf(config: EnumerateConfig): EnumerateScenario {
  return config.latencyMs > 0 ? 'io-bound' : 'cpu-bound';
}

/** Human label of a config's scenario (table headings, targets, progress lines). */
export function scenarioLabel(config: EnumerateConfig): string {
  return config.latencyMs > 0
    ? `I/O-bound upstreams (${config.latencyMs} ms per page)`
    : 'CPU-bound upstreams (0 ms latency)';
}

/** The `--cpu-prof` subdirectory of a config's gateway: `enumerate-<scenario>` or `tools-list-<scenario>`. */
export function profileDirOf(config: EnumerateConfig): string {
  return `${config.list === 'resources' ? 'enumerate' : `${config.list}-list`}-${scenarioOf(config)}`;
}

/** CPU time (ms) used by the gateway, the upstreams and this process between the sample and the call. */
function cpuSplitSampler(gateway: Gateway, upstreams: Upstream[]): () => () => CpuSplit {
  const sample = cpuSampler({ gateway: gateway.proc, upstreams: upstreams.map((u) => u.proc) });
  // µs per 1,000 "requests" is ms in all.
  return () => {
    const since = sample();
    return () => since(1000) as CpuSplit;
  };
}

/** Checks a gateway walk; a failure carries the gateway's last WARN/ERROR lines (why an upstream was left out). */
function checkGatewayWalk(w: Walk, expected: ExpectedEnumeration, gateway: Gateway): void {
  try {
    checkGateway(w, expected);
  } catch (error) {
    const said = gateway.proc.tail().filter((line) => /\b(WARN|ERROR)\b/.test(line));
    const tail = said.length > 0 ? `\n  the gateway logged:\n    ${said.slice(-5).join('\n    ')}` : '';
    throw new Error(`${(error as Error).message}${tail}`);
  }
}

export async function runEnumerateBenchmark(
  config: EnumerateConfig,
  log: (message: string) => void,
  options: RunOptions = {},
): Promise<EnumerateResult> {
  const kind = LIST_KINDS[config.list];
  const label = scenarioLabel(config);
  const tag = `${kind.method}, ${scenarioOf(config)}`;
  const names = Array.from({ length: config.upstreams }, (_, i) => `u${i}`);
  const expected = expectedEnumeration(kind, names, config.itemsPerUpstream, config.pageSize);
  let upstreams: Upstream[] = [];
  let gateway: Gateway | undefined;
  const clients: BenchClient[] = [];
  try {
    upstreams = await allStarted(
      names.map((name) =>
        startUpstream(kind.upstream(name, config.itemsPerUpstream, config.pageSize, config.latencyMs)),
      ),
    );
    gateway = await startGateway(upstreams, options);
    log(`${tag}: ${upstreams.length} upstreams (${label}), gateway ${gateway.url}`);
    const direct: Client[] = [];
    for (const u of upstreams) {
      const c = await connectClient(u.url, `bench-direct-${u.name}`, options);
      clients.push(c);
      direct.push(c.client);
    }
    const viaGatewayConn = await connectClient(gateway.url, 'bench-gateway', options);
    clients.push(viaGatewayConn);
    const viaGateway = viaGatewayConn.client;

    // Warm-up: one full, checked pass each way (JIT, connection pools, upstream sessions).
    for (const [i, c] of direct.entries()) checkDirect(await walk(c, kind), names[i]!, expected);
    checkGatewayWalk(await walk(viaGateway, kind), expected, gateway);

    const sampleCpu = cpuSplitSampler(gateway, upstreams);
    const runs: EnumerateRun[] = [];
    for (let run = 0; run < config.runs; run++) {
      const entry: Partial<EnumerateRun> = { run };
      const measureDirect = async (): Promise<void> => {
        const directMs: number[] = [];
        for (const [i, c] of direct.entries()) {
          const w = await walk(c, kind);
          checkDirect(w, names[i]!, expected);
          directMs.push(w.ms);
        }
        const slowest = directMs.indexOf(Math.max(...directMs));
        entry.directMs = directMs;
        entry.slowestDirectMs = directMs[slowest]!;
        entry.slowestUpstream = names[slowest]!;
        const cpu = sampleCpu();
        const start = process.hrtime.bigint();
        const all = await Promise.all(direct.map((c) => walk(c, kind)));
        entry.directConcurrentMs = msSince(start);
        entry.directConcurrentCpuMs = cpu();
        for (const [i, w] of all.entries()) checkDirect(w, names[i]!, expected);
      };
      const measureGateway = async (): Promise<void> => {
        const cpu = sampleCpu();
        const w = await walk(viaGateway, kind);
        entry.gatewayWalkCpuMs = cpu();
        checkGatewayWalk(w, expected, gateway!);
        entry.gatewayMs = w.ms;
        entry.gatewayPages = w.pages;
      };
      // Alternate which side goes first.
      for (const measure of roundOrder([measureDirect, measureGateway], run, 'mirror')) await measure();
      const done = entry as EnumerateRun;
      runs.push(done);
      log(
        `${tag} run ${run + 1}/${config.runs}: slowest single ${done.slowestDirectMs.toFixed(1)} ms ` +
          `(${done.slowestUpstream}), all direct concurrently ${done.directConcurrentMs.toFixed(1)} ms, ` +
          `gateway ${done.gatewayMs.toFixed(1)} ms (${done.gatewayPages} pages)`,
      );
    }
    return summarizeEnumeration({
      config,
      method: kind.method,
      scenario: scenarioOf(config),
      label,
      expectedTotal: expected.exposed.size,
      expectedPages: expected.directPages,
      runs,
      gatewayWarnings: Object.fromEntries(gateway.proc.warnings),
    });
  } finally {
    await closeAll(clients);
    await gateway?.proc.stop();
    await Promise.allSettled(upstreams.map((u) => u.proc.stop()));
  }
}
