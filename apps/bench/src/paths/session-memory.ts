/**
 * Memory per idle legacy session on one gateway, measured from outside the process (no hook in it):
 * K 2025-11-25 sessions opened by plain POSTs (`initialize` + `notifications/initialized`, 8 at a time),
 * left idle. RSS (/proc) is read before and after, once it has settled (what an operator sees, garbage
 * included); the live V8 heap comes from heap snapshots (each after a full GC) with the sessions open and
 * after their `DELETE`s.
 */
import { Agent } from 'node:http';
import { closeSessions, openSessions, postJson } from '@switchyard/testkit/mcp';
import { rssMiB } from '@switchyard/testkit/process';
import type { Gateway } from '../services.js';
import { takeHeapSnapshot } from './heap-snapshot.js';
import type { SessionMemoryResult } from './model.js';

const MIB = 1024 * 1024;

/** RSS (bytes) once two readings 100 ms apart agree within 0.5 % (at most `maxMs`); the last reading otherwise. */
async function settledRss(pid: number | undefined, maxMs = 3_000): Promise<number> {
  const deadline = Date.now() + maxMs;
  let last = (rssMiB(pid) ?? Number.NaN) * MIB;
  for (;;) {
    await new Promise((resolve) => setTimeout(resolve, 100));
    const now = (rssMiB(pid) ?? Number.NaN) * MIB;
    if (Math.abs(now - last) <= last * 0.005 || Date.now() > deadline) return now;
    last = now;
  }
}

/**
 * Measures `sessions` idle legacy sessions on `gateway`, which must run with `heapSnapshotFlags(dir)`
 * (heap figures) or without them (`dir` undefined: RSS only).
 */
export async function measureSessionMemory(
  gateway: Gateway,
  sessions: number,
  dir: string | undefined,
  log: (message: string) => void,
): Promise<SessionMemoryResult> {
  const agent = new Agent({ keepAlive: true, maxSockets: 8 });
  const deleteStatuses: Record<string, number> = {};
  try {
    // Warm the session code paths (and the agent's sockets) so the first measured session pays no JIT.
    await closeSessions(await openSessions(gateway.url, 16, { agent, clientName: 'bench-paths-idle' }));
    const pid = gateway.proc.pid;
    const rssBeforeBytes = await settledRss(pid);
    const open = await openSessions(gateway.url, sessions, { agent, clientName: 'bench-paths-idle' });
    const rssAfterBytes = await settledRss(pid);
    log(
      `paths memory: ${sessions} idle legacy sessions, RSS ${(rssBeforeBytes / MIB).toFixed(1)} → ` +
        `${(rssAfterBytes / MIB).toFixed(1)} MiB`,
    );
    const result: SessionMemoryResult = {
      sessions,
      method: dir
        ? 'RSS settled (no forced GC) before/after opening; live heap from heap snapshots (full GC) with the sessions open and after their DELETEs'
        : 'RSS settled (no forced GC) before/after opening',
      rssBeforeBytes,
      rssAfterBytes,
      rssPerSessionBytes: (rssAfterBytes - rssBeforeBytes) / sessions,
      deleteStatuses,
    };
    const roundTrip = () => postJson(new URL(gateway.url), agent, { jsonrpc: '2.0', id: 1, method: 'ping' });
    if (dir) {
      const heapWith = await takeHeapSnapshot(gateway.proc, dir, roundTrip);
      Object.assign(deleteStatuses, await closeSessions(open));
      const heapWithout = await takeHeapSnapshot(gateway.proc, dir, roundTrip);
      result.heapWithSessionsBytes = heapWith;
      result.heapAfterDeleteBytes = heapWithout;
      result.heapPerSessionBytes = (heapWith - heapWithout) / sessions;
    } else {
      Object.assign(deleteStatuses, await closeSessions(open));
    }
    return result;
  } finally {
    agent.destroy();
  }
}
