/**
 * One cell of the matrix, measured with the bench's rounds (rounds.ts): per round, the direct side (when
 * there is one), the middles in front of the same upstream (the floor proxy; HAProxy for HTTP upstreams)
 * and the gateway, the order mirrored every other round; each a warm-up loop, then a timed loop with the
 * bench's and the middle process's CPU read around it. The median round of each side is kept (matrix.ts).
 */
import type { RequestClient } from '@switchyard/testkit/mcp';
import type { ManagedProcess } from '@switchyard/testkit/process';
import { methodLoop, type Targets } from '../requests.js';
import { measureRounds } from '../rounds.js';
import { cellKey, compareCell } from './matrix.js';
import type { PathCell, PathResult, PathSide, PathsConfig } from './model.js';

/** A side of a cell: the client that drives it and what it addresses. */
export interface Side {
  client: RequestClient;
  targets: Targets;
}

/** A side with a process in the middle whose CPU is read around each timed loop (gateway, floor, HAProxy). */
export interface MiddleSide extends Side {
  proc: ManagedProcess;
}

/** The sides in the order of a cell's first round. */
const SIDES: readonly PathSide[] = ['direct', 'floor', 'haproxy', 'gateway'];

export async function measureCell(options: {
  cell: PathCell;
  config: Pick<PathsConfig, 'warmup' | 'count' | 'rounds' | 'payloadBytes'>;
  text: string;
  sides: Partial<Record<PathSide, Side | MiddleSide>> & { gateway: MiddleSide };
  noDirect?: string;
  log: (message: string) => void;
}): Promise<PathResult> {
  const { cell, config, sides } = options;
  const [runs] = await measureRounds({
    plan: {
      what: `paths ${cellKey(cell)}`,
      levels: [{ concurrency: cell.concurrency, warmup: config.warmup, count: config.count }],
      rounds: config.rounds,
      order: 'mirror',
    },
    log: options.log,
    variants: SIDES.flatMap((name) => {
      const side = sides[name];
      if (!side) return [];
      const loop = (count: number, concurrency: number) =>
        methodLoop(side.client, cell.method, side.targets, {
          count,
          concurrency,
          minChars: config.payloadBytes,
          text: options.text,
        });
      return [{ name, loop, cpu: 'proc' in side ? { [name]: side.proc } : {} }];
    }),
    note: (run) => {
      const us = run.cpuUsPerRead[run.path];
      return us === undefined ? '' : ` ${run.path} cpu ${(us / 1000).toFixed(3)} ms/req`;
    },
  });
  return compareCell(cell, runs!, options.noDirect);
}
