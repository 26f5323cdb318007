/**
 * What one enumeration scenario produced: every run, the medians over runs, the CPU split of a walk, and
 * the floors (the lower bounds the gateway walk cannot beat on this box) to read the ratio against.
 */
import { availableParallelism } from 'node:os';
import type { EnumerateConfig, EnumerateScenario } from './enumerate.js';
import type { ListName } from './lists.js';
import { median } from './stats.js';

export interface EnumerateRun {
  run: number;
  /** Each upstream enumerated alone, one after the other (ms, index = upstream). */
  directMs: number[];
  slowestDirectMs: number;
  slowestUpstream: string;
  /** Reference: the client walking all K upstreams itself, concurrently (ms). */
  directConcurrentMs: number;
  gatewayMs: number;
  gatewayPages: number;
  /** CPU time (ms, user + system) during the gateway walk: the gateway, all upstreams, this client. */
  gatewayWalkCpuMs: CpuSplit;
  /** CPU time (ms) during the concurrent direct walk of all upstreams: upstreams and this client. */
  directConcurrentCpuMs: CpuSplit;
}

export interface CpuSplit {
  gateway?: number;
  upstreams?: number;
  client: number;
}

/**
 * Lower bounds (and one estimate) of the gateway walk's wall time on this box, whatever the gateway does,
 * to read the ratio against. A ratio target below `cpu.ratio` is out of reach here.
 */
export interface EnumerateFloors {
  /**
   * The upstreams' own summed CPU time during the gateway walk (median over runs) spread over every core:
   * `upstreamsCpuMs ÷ cores` ms, and that ÷ the slowest single upstream's wall time. Ignores the gateway's
   * and the client's CPU, so the real floor is higher. Undefined where /proc is unavailable.
   */
  cpu?: { upstreamsCpuMs: number; cores: number; ms: number; ratio: number };
  /** Sequential round trips × upstream latency: `expectedPages × latencyMs` (ms), and ÷ slowest single. */
  latency: { ms: number; ratio: number };
  /**
   * Estimate (not a strict bound) when upstreams have latency: `latency.ms + cpu.ms`. The fan-out runs in
   * lock step: every round, all K upstreams get their request at once, wait the latency, then build their
   * pages at the same time, so their CPU cannot hide behind the wait. Gateway and client CPU come on top.
   */
  lockStep?: { ms: number; ratio: number };
}

export interface EnumerateResult {
  /** The list enumerated (`config.list`): resources (section 2) or tools (section 4). */
  list: ListName;
  method: string;
  scenario: EnumerateScenario;
  label: string;
  config: EnumerateConfig;
  expectedTotal: number;
  expectedPages: number;
  /** Median over runs of the slowest single upstream's direct enumeration time. */
  slowestSingleMs: number;
  gatewayMs: number;
  directConcurrentMs: number;
  /** Median over runs of the K upstreams enumerated directly, one after another (the sum of `directMs`). */
  directSequentialMs: number;
  /** gatewayMs ÷ slowestSingleMs. */
  ratio: number;
  /** gatewayMs ÷ directSequentialMs. */
  ratioVsSequential: number;
  /** gatewayMs ÷ directConcurrentMs. */
  ratioVsConcurrent: number;
  /** Downstream round trips (pages) of one gateway enumeration. */
  gatewayPages: number;
  /** Pages of one direct enumeration of a single upstream. */
  directPages: number;
  /** Per-field medians over runs of the CPU split of the gateway walk and the concurrent direct walk. */
  cpuMs: { gatewayWalk: CpuSplit; directConcurrent: CpuSplit };
  floors: EnumerateFloors;
  runs: EnumerateRun[];
  /** Warning kinds the gateway logged while measuring (digits masked) → count. */
  gatewayWarnings: Record<string, number>;
}

function medianSplit(splits: CpuSplit[]): CpuSplit {
  const field = (key: keyof CpuSplit): number | undefined => {
    const values = splits.map((s) => s[key]);
    return values.every((v) => v !== undefined) ? median(values as number[]) : undefined;
  };
  return { gateway: field('gateway'), upstreams: field('upstreams'), client: field('client') ?? Number.NaN };
}

/** The medians over `runs` and the floors, as one scenario's result. */
export function summarizeEnumeration(options: {
  config: EnumerateConfig;
  method: string;
  scenario: EnumerateScenario;
  label: string;
  expectedTotal: number;
  expectedPages: number;
  runs: EnumerateRun[];
  gatewayWarnings: Record<string, number>;
}): EnumerateResult {
  const { config, runs, expectedPages } = options;
  const slowestSingleMs = median(runs.map((r) => r.slowestDirectMs));
  const gatewayMs = median(runs.map((r) => r.gatewayMs));
  const directConcurrentMs = median(runs.map((r) => r.directConcurrentMs));
  const directSequentialMs = median(runs.map((r) => r.directMs.reduce((sum, ms) => sum + ms, 0)));
  const gatewayWalk = medianSplit(runs.map((r) => r.gatewayWalkCpuMs));
  const cores = availableParallelism();
  const latencyFloorMs = expectedPages * config.latencyMs;
  const cpuFloorMs = gatewayWalk.upstreams === undefined ? undefined : gatewayWalk.upstreams / cores;
  return {
    list: config.list,
    method: options.method,
    scenario: options.scenario,
    label: options.label,
    config,
    expectedTotal: options.expectedTotal,
    expectedPages,
    slowestSingleMs,
    gatewayMs,
    directConcurrentMs,
    directSequentialMs,
    ratio: gatewayMs / slowestSingleMs,
    ratioVsSequential: gatewayMs / directSequentialMs,
    ratioVsConcurrent: gatewayMs / directConcurrentMs,
    gatewayPages: runs[0]?.gatewayPages ?? 0,
    directPages: expectedPages,
    cpuMs: {
      gatewayWalk,
      directConcurrent: medianSplit(runs.map((r) => r.directConcurrentCpuMs)),
    },
    floors: {
      cpu:
        gatewayWalk.upstreams === undefined || cpuFloorMs === undefined
          ? undefined
          : {
              upstreamsCpuMs: gatewayWalk.upstreams,
              cores,
              ms: cpuFloorMs,
              ratio: cpuFloorMs / slowestSingleMs,
            },
      latency: { ms: latencyFloorMs, ratio: latencyFloorMs / slowestSingleMs },
      lockStep:
        cpuFloorMs === undefined || config.latencyMs === 0
          ? undefined
          : {
              ms: latencyFloorMs + cpuFloorMs,
              ratio: (latencyFloorMs + cpuFloorMs) / slowestSingleMs,
            },
    },
    runs,
    gatewayWarnings: options.gatewayWarnings,
  };
}
