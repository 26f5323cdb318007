import { describe, expect, it } from 'vitest';
import type { ReadPathRun } from '../src/read-paths.js';
import { comparedLevel } from '../src/rounds.js';
import { Teardown } from '../src/services.js';

function run(path: string, round: number, rps: number, p50: number, p99: number): ReadPathRun {
  return {
    path,
    round,
    concurrency: 1,
    wallMs: 1000,
    rps,
    cpuUsPerRead: { client: 0 },
    readsIssued: 10,
    upstreamReads: 0,
    upstreamSubscribes: 0,
    upstreamUnsubscribes: 0,
    count: 10,
    mean: p50,
    p50,
    p90: p99,
    p99,
    max: p99,
  };
}

describe('comparedLevel', () => {
  it("keeps each path's median round by req/s and compares the named pairs with it, and round by round", () => {
    const runs = [
      run('one', 0, 100, 1, 5),
      run('one', 1, 300, 3, 9),
      run('one', 2, 200, 2, 7), // median of one
      run('two', 0, 150, 1.5, 6), // median of two
      run('two', 1, 50, 4, 20),
      run('two', 2, 400, 0.5, 2),
    ];
    const level = comparedLevel(16, runs, [['two', 'one']]);
    expect(level.concurrency).toBe(16);
    expect(level.medians.one?.round).toBe(2);
    expect(level.medians.two?.round).toBe(0);
    expect(level.comparisons).toEqual([
      {
        path: 'two',
        baseline: 'one',
        throughputRatio: 0.75,
        addedP50Ms: -0.5,
        addedP99Ms: -1,
        // per round 1.5, 0.17, 2: the median
        pairedThroughputRatio: 1.5,
      },
    ]);
    expect(level.rounds).toBe(runs);
  });
});

describe('Teardown', () => {
  it('runs every step once, even when one fails, and forgets them', async () => {
    const ran: string[] = [];
    const teardown = new Teardown();
    teardown.add(() => ran.push('a'));
    teardown.add(() => Promise.reject(new Error('b failed')));
    teardown.add(async () => ran.push('c'));
    await teardown.run();
    await teardown.run();
    expect(ran.sort()).toEqual(['a', 'c']);
  });

  it('guard stops what a failed start had started, then rethrows', async () => {
    const stopped: string[] = [];
    const failed = new Teardown().guard(async (t) => {
      t.add(() => stopped.push('redis'));
      throw new Error('gateway did not start');
    });
    await expect(failed).rejects.toThrow('gateway did not start');
    expect(stopped).toEqual(['redis']);
    const teardown = new Teardown();
    const started = teardown.guard(async (t) => {
      t.add(() => stopped.push('kept'));
      return 42;
    });
    await expect(started).resolves.toBe(42);
    expect(stopped).toEqual(['redis']); // a start that succeeded keeps its steps for later
  });
});
