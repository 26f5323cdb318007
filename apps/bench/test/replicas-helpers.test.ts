import { describe, expect, it } from 'vitest';
import { Scope } from '../src/harness.js';
import { comparedLevel } from '../src/measure.js';
import type { ReadPathRun } from '../src/read-paths.js';
import { keyShape, parseInfo } from '../src/replicas/redis-probe.js';

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
    gatewayRssMiB: undefined,
    redisCommandsPerRead: undefined,
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

describe('Scope', () => {
  it('runs every step once, even when one fails, and forgets them', async () => {
    const ran: string[] = [];
    const teardown = new Scope();
    teardown.add(() => ran.push('a'));
    teardown.add(() => Promise.reject(new Error('b failed')));
    teardown.add(async () => ran.push('c'));
    await teardown.close();
    await teardown.close();
    expect(ran.sort()).toEqual(['a', 'c']);
  });

  it('guard stops what a failed start had started, then rethrows', async () => {
    const stopped: string[] = [];
    const failed = new Scope().guard(async (t) => {
      t.add(() => stopped.push('redis'));
      throw new Error('gateway did not start');
    });
    await expect(failed).rejects.toThrow('gateway did not start');
    expect(stopped).toEqual(['redis']);
    const teardown = new Scope();
    const started = teardown.guard(async (t) => {
      t.add(() => stopped.push('kept'));
      return 42;
    });
    await expect(started).resolves.toBe(42);
    expect(stopped).toEqual(['redis']); // a start that succeeded keeps its steps for later
  });
});

describe('parseInfo', () => {
  it('reads the field:value lines of an INFO reply, skipping headers and blank lines', () => {
    const info =
      '# Memory\r\nused_memory:1034888\r\nused_memory_human:1010.63K\r\n\r\n# Server\r\nredis_version:7.0.15\r\n';
    expect(parseInfo(info)).toEqual({
      used_memory: '1034888',
      used_memory_human: '1010.63K',
      redis_version: '7.0.15',
    });
  });

  it('keeps colons inside values', () => {
    expect(parseInfo('executable:/usr/bin/redis-server\nconfig_file:\nmaster_host:a:b\n')).toMatchObject({
      config_file: '',
      master_host: 'a:b',
    });
  });
});

describe('keyShape', () => {
  it('masks ids and numbers so keys of one kind count together', () => {
    expect(keyShape('switchyard:session:3f9a2b4c-1d2e-4f50-9a8b-0c1d2e3f4a5b')).toBe('switchyard:session:*');
    expect(keyShape('switchyard:rl:client:deadbeefcafe')).toBe('switchyard:rl:client:*');
    expect(keyShape('bench:cache:a+test://a/r/17')).toBe('bench:cache:a+test://a/r/*');
    expect(keyShape('bench:plain')).toBe('bench:plain');
    expect(keyShape('bench:sessions:session:uClGJtLku3wNjUIwIIKmg')).toBe('bench:sessions:session:*');
    expect(keyShape('bench:sessions:session:En2ltEYz-ktB_TwltvA-qg:subs')).toBe(
      'bench:sessions:session:*:subs',
    );
  });
});
