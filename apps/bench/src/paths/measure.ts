/**
 * One cell of the matrix, measured: per round, the direct side (when there is one) and the gateway side,
 * alternating which goes first; each a warm-up loop, then a timed loop with the bench's and the gateway's
 * CPU read around it. The median round of each side is kept (matrix.ts).
 */

import type { RequestClient } from '@switchyard/testkit/mcp';
import { cpuTimeMs, type ManagedProcess } from '@switchyard/testkit/process';
import { summarize } from '../stats.js';
import { pathLoop, type Targets } from './loops.js';
import { cellKey, compareCell } from './matrix.js';
import type { PathCell, PathResult, PathRun, PathsConfig } from './model.js';

/** A side of a cell: the client that drives it and what it addresses. */
export interface Side {
  client: RequestClient;
  targets: Targets;
}

/** A side with a process in the middle whose CPU is read around each timed loop (gateway, floor). */
export interface MiddleSide extends Side {
  proc: ManagedProcess;
}

/** CPU ms per request of the gateway between two /proc readings, or undefined when one is missing. */
export function perRequestMs(before: number | undefined, after: number | undefined, requests: number) {
  return before === undefined || after === undefined || requests <= 0
    ? undefined
    : (after - before) / requests;
}

export async function measureCell(options: {
  cell: PathCell;
  config: Pick<PathsConfig, 'warmup' | 'count' | 'rounds' | 'payloadBytes'>;
  text: string;
  direct?: Side;
  /** The floor proxy in front of the same upstream, when the cell has a direct side. */
  floor?: MiddleSide;
  gateway: MiddleSide;
  noDirect?: string;
  log: (message: string) => void;
}): Promise<PathResult> {
  const { cell, config } = options;
  const loop = (side: Side, count: number) =>
    pathLoop(side.client, cell.method, side.targets, {
      count,
      concurrency: cell.concurrency,
      minChars: config.payloadBytes,
      text: options.text,
    });
  const rounds: PathRun[] = [];
  for (let round = 0; round < config.rounds; round++) {
    const order: PathRun['side'][] =
      round % 2 === 0 ? ['direct', 'floor', 'gateway'] : ['gateway', 'floor', 'direct'];
    for (const sideName of order) {
      const side = options[sideName];
      if (!side) continue;
      const middle = 'proc' in side ? side.proc : undefined;
      await loop(side, config.warmup);
      const client = process.cpuUsage();
      const before = middle && cpuTimeMs(middle.pid);
      const { latencies, wallMs } = await loop(side, config.count);
      const after = middle && cpuTimeMs(middle.pid);
      const used = process.cpuUsage(client);
      const middleCpuMs = perRequestMs(before, after, config.count);
      const run: PathRun = {
        side: sideName,
        round,
        wallMs,
        rps: (config.count / wallMs) * 1000,
        clientCpuMs: (used.user + used.system) / 1000 / config.count,
        ...(sideName === 'gateway' ? { gatewayCpuMs: middleCpuMs } : {}),
        ...(sideName === 'floor' ? { floorCpuMs: middleCpuMs } : {}),
        ...summarize(latencies),
      };
      rounds.push(run);
      options.log(
        `paths ${cellKey(cell)} round ${round + 1}/${config.rounds} ${sideName.padEnd(7)} ` +
          `${run.rps.toFixed(0)} req/s p50 ${run.p50.toFixed(3)} ms p99 ${run.p99.toFixed(3)} ms` +
          (middleCpuMs === undefined ? '' : ` ${sideName} cpu ${middleCpuMs.toFixed(3)} ms/req`),
      );
    }
  }
  return compareCell(cell, rounds, options.noDirect);
}
