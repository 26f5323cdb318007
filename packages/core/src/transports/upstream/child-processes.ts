import type { ChildProcess } from 'node:child_process';
import { readdirSync, readFileSync } from 'node:fs';

/**
 * Every upstream process the gateway has spawned, with its process group, until the whole group is gone.
 * No upstream may outlive the gateway (DESIGN §11), however the gateway stops: the orderly close stops
 * each one (`stopChild`), a forced exit terminates them all first (`terminateChildren`), an exit that
 * cannot wait kills them (`killChildren`), and any exit at all signals whatever is left. Groups matter: an `npx` wrapper exits and leaves the server it started,
 * or a server leaves a helper behind; signalling the group reaches them.
 */
const live = new Set<ChildProcess>();
let exitHook = false;

const WINDOWS = process.platform === 'win32';
/** Each step of the stop sequence waits this long for the process to exit. */
export const STOP_STEP_MS = 1_000;
/**
 * The step once the gateway process itself is exiting: an MCP client that closes the gateway signals it
 * soon after closing its stdin (the SDK kills a probe process 1 s after stdin end and SIGTERM), so its
 * upstreams must be stopped within that.
 */
export const EXITING_STEP_MS = 200;
let currentStepMs = STOP_STEP_MS;

/** The gateway process is exiting: every upstream stop, those under way included, takes short steps. */
export function exiting(): void {
  currentStepMs = EXITING_STEP_MS;
}
const POLL_MS = 50;

/** Spawn options that put the child in a process group of its own, so a signal reaches its children too. */
export const OWN_GROUP = { detached: !WINDOWS } as const;

/** Notes a spawned upstream process until it and its group are gone. */
export function trackChild(child: ChildProcess): void {
  if (child.pid === undefined) return;
  live.add(child);
  child.once('exit', () => {
    if (!running(child)) live.delete(child);
  });
  if (!exitHook) {
    exitHook = true;
    // Synchronous on the way out: the last chance, whatever made the process exit.
    process.once('exit', () => {
      for (const c of live) signal(c, 'SIGTERM');
    });
  }
}

/** How many spawned upstream processes (or what their groups left behind) are still running. */
export function liveChildren(): number {
  for (const child of live) if (!running(child)) live.delete(child);
  return live.size;
}

/** Signals the child's whole process group, or the child alone where there are no groups. */
function signal(child: ChildProcess, name: NodeJS.Signals): void {
  try {
    if (!WINDOWS && child.pid !== undefined) process.kill(-child.pid, name);
    else child.kill(name);
  } catch {
    // already gone
  }
}

/** Whether the child, or anything left in its process group, still runs. */
function running(child: ChildProcess): boolean {
  if (WINDOWS || child.pid === undefined) return child.exitCode === null && child.signalCode === null;
  try {
    process.kill(-child.pid, 0);
  } catch (error) {
    return (error as NodeJS.ErrnoException).code === 'EPERM';
  }
  return process.platform === 'linux' ? groupRunsOnLinux(child.pid) : true;
}

/**
 * Whether a process of group `pgid` runs, zombies aside: a killed grandchild whose new parent does not
 * reap it (a container's PID 1 may not) stays a zombie for ever, and runs nothing.
 */
function groupRunsOnLinux(pgid: number): boolean {
  let entries: string[];
  try {
    entries = readdirSync('/proc');
  } catch {
    return true;
  }
  for (const entry of entries) {
    if (!/^\d+$/.test(entry)) continue;
    let stat: string;
    try {
      stat = readFileSync(`/proc/${entry}/stat`, 'utf8');
    } catch {
      continue; // gone meanwhile
    }
    // "pid (comm) state ppid pgrp …"; comm may hold spaces and parentheses, so read after the last ')'.
    const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
    if (Number(fields[2]) === pgid && fields[0] !== 'Z') return true;
  }
  return false;
}

/** Waits up to `ms` (read as it waits: `exiting()` shortens it) for the child and its group to be gone. */
async function gone(child: ChildProcess, ms: number | (() => number)): Promise<boolean> {
  const started = Date.now();
  const limit = typeof ms === 'number' ? () => ms : ms;
  while (running(child)) {
    if (Date.now() - started >= limit()) return false;
    // A held timer: the wait is bounded by `ms`, and a CLI with nothing else open (`switchyard check` of
    // stdio servers) must not see its event loop run dry, and exit silently, in the middle of it.
    await new Promise((resolve) => setTimeout(resolve, POLL_MS));
  }
  live.delete(child);
  return true;
}

/**
 * Stops one upstream process the way MCP's stdio lifecycle asks: stdin closed, then SIGTERM, then SIGKILL,
 * each after `stepMs` while the process or anything in its group still runs.
 */
export async function stopChild(child: ChildProcess, stepMs?: number): Promise<void> {
  const step = () => stepMs ?? currentStepMs;
  try {
    child.stdin?.end();
  } catch {
    // the pipe is already closed
  }
  if (await gone(child, step)) return;
  signal(child, 'SIGTERM');
  if (await gone(child, step)) return;
  signal(child, 'SIGKILL');
  await gone(child, step);
}

/**
 * A forced exit's last step: SIGTERM to every upstream process group, up to `graceMs` for them to be gone,
 * then SIGKILL to the rest.
 */
export async function terminateChildren(graceMs = STOP_STEP_MS): Promise<void> {
  const children = [...live];
  for (const child of children) signal(child, 'SIGTERM');
  const done = await Promise.all(children.map((c) => gone(c, graceMs)));
  children.forEach((child, i) => {
    if (!done[i]) signal(child, 'SIGKILL');
  });
}

/**
 * The exit that cannot wait (a third signal): SIGKILL to every upstream process group, synchronously.
 * What is left of the stop sequence would outlive the gateway, and SIGTERM alone does not stop a server
 * that ignores it.
 */
export function killChildren(): void {
  for (const child of live) signal(child, 'SIGKILL');
}
