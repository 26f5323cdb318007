import { readdirSync, readFileSync } from 'node:fs';
import { startTestkitHttp as startTestkit } from '@switchyard/testkit/mcp';
import type { ManagedProcess } from '@switchyard/testkit/process';
import type { Cleanup } from './harness.js';

// The process tree under a gateway, read from /proc (Linux only): which processes it started, whether
// they still run, and a last-resort kill of their process groups after a test.

export const LINUX = process.platform === 'linux';

export interface ProcStat {
  pid: number;
  /** The process state letter: R, S, D, T, Z (zombie) … */
  state: string;
  ppid: number;
  pgrp: number;
  /** Clock ticks after boot when it started: with the pid, who it is (pids get reused). */
  start: number;
}

/** One /proc/<pid>/stat, or undefined when the process is gone. */
export function procStat(pid: number): ProcStat | undefined {
  let stat: string;
  try {
    stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
  } catch {
    return undefined;
  }
  // "pid (comm) state ppid pgrp …"; comm may hold spaces and parentheses, so read after the last ')'.
  const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
  return {
    pid,
    state: fields[0]!,
    ppid: Number(fields[1]),
    pgrp: Number(fields[2]),
    start: Number(fields[19]),
  };
}

/** Running: it exists and is no zombie (an exited process nobody reaps runs nothing any more). */
export function running(pid: number): boolean {
  const stat = procStat(pid);
  return stat !== undefined && stat.state !== 'Z';
}

/** The process seen earlier still runs (the same one: a pid may be reused once it is gone). */
export function stillRunning(seen: ProcStat): boolean {
  const now = procStat(seen.pid);
  return now !== undefined && now.state !== 'Z' && now.start === seen.start;
}

/** Its command line, arguments joined by spaces ('' once it is gone). */
export function cmdline(pid: number): string {
  try {
    return readFileSync(`/proc/${pid}/cmdline`, 'utf8').split('\0').join(' ').trim();
  } catch {
    return '';
  }
}

/** Every running process below `root` (children, grandchildren …), found by following ppid links. */
export function descendants(root: number): ProcStat[] {
  const children = new Map<number, ProcStat[]>();
  for (const entry of readdirSync('/proc')) {
    if (!/^\d+$/.test(entry)) continue;
    const stat = procStat(Number(entry));
    if (!stat || stat.state === 'Z') continue;
    children.set(stat.ppid, [...(children.get(stat.ppid) ?? []), stat]);
  }
  const found: ProcStat[] = [];
  const queue = [root];
  while (queue.length > 0) {
    for (const child of children.get(queue.shift()!) ?? []) {
      found.push(child);
      queue.push(child.pid);
    }
  }
  return found;
}

/**
 * The safety net for processes a test saw: SIGKILL to each one still running (the same process: same pid
 * and start time) and to its process group, except the group of this test process itself (a gateway
 * spawned without a group of its own shares it). A pid or group that is gone is left alone: by now it may
 * be someone else's.
 */
export function killAll(stats: Iterable<ProcStat>): void {
  const ownGroup = procStat(process.pid)?.pgrp;
  const kill = (target: number) => {
    try {
      process.kill(target, 'SIGKILL');
    } catch {
      // already gone
    }
  };
  for (const seen of stats) {
    const now = procStat(seen.pid);
    if (!now || now.start !== seen.start) continue;
    if (now.pgrp !== ownGroup && now.pgrp > 1) kill(-now.pgrp);
    kill(now.pid);
  }
}

/**
 * A testkit CLI serving Streamable HTTP in a process of its own (`--http`, plus `args`): resolves with the
 * URLs it prints once listening. Stopped by `cleanup`.
 */
export async function startTestkitHttp(
  cleanup: Cleanup,
  args: string[],
): Promise<{ proc: ManagedProcess; url: string; controlUrl: string }> {
  const { proc, url, controlUrl } = await startTestkit({ args });
  cleanup.add(() => proc.stop());
  return { proc, url, controlUrl: controlUrl! };
}

/**
 * Every running process, anywhere, whose environment holds `name=value`: how a test finds what it started
 * even after the parent died and the process was adopted elsewhere.
 */
export function withEnv(name: string, value: string): ProcStat[] {
  const wanted = `${name}=${value}`;
  const found: ProcStat[] = [];
  for (const entry of readdirSync('/proc')) {
    if (!/^\d+$/.test(entry)) continue;
    let environ: string;
    try {
      environ = readFileSync(`/proc/${entry}/environ`, 'utf8');
    } catch {
      continue; // gone meanwhile, or not ours
    }
    if (!environ.split('\0').includes(wanted)) continue;
    const stat = procStat(Number(entry));
    if (stat && stat.state !== 'Z') found.push(stat);
  }
  return found;
}
