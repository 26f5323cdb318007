import type { ChildProcess } from 'node:child_process';

/**
 * Every upstream process the gateway has spawned and not yet seen exit. No upstream may outlive the gateway
 * (DESIGN §11), however the gateway stops: the orderly close stops each one (`stopChild`), a forced exit
 * terminates them all first (`terminateChildren`), and any exit at all signals whatever is left.
 */
const live = new Set<ChildProcess>();
let exitHook = false;

const WINDOWS = process.platform === 'win32';
/** Each step of the stop sequence waits this long for the process to exit. */
export const STOP_STEP_MS = 1_000;

/** Spawn options that put the child in a process group of its own, so a signal reaches its children too. */
export const OWN_GROUP = { detached: !WINDOWS } as const;

/** Notes a spawned upstream process until it exits. */
export function trackChild(child: ChildProcess): void {
  if (child.exitCode !== null || child.signalCode !== null) return;
  live.add(child);
  child.once('exit', () => live.delete(child));
  if (!exitHook) {
    exitHook = true;
    // Synchronous on the way out: the last chance, whatever made the process exit.
    process.once('exit', () => {
      for (const c of live) signal(c, 'SIGTERM');
    });
  }
}

/** How many spawned upstream processes are still running. */
export function liveChildren(): number {
  return live.size;
}

/** Signals the child's whole process group (an `npx` wrapper and the server it started), or the child alone. */
function signal(child: ChildProcess, name: NodeJS.Signals): void {
  try {
    if (!WINDOWS && child.pid !== undefined) process.kill(-child.pid, name);
    else child.kill(name);
  } catch {
    // already gone
  }
}

function exited(child: ChildProcess): boolean {
  return child.exitCode !== null || child.signalCode !== null;
}

function waitExit(child: ChildProcess, ms: number): Promise<boolean> {
  if (exited(child)) return Promise.resolve(true);
  return new Promise((resolve) => {
    const timer = setTimeout(() => {
      child.off('exit', onExit);
      resolve(false);
    }, ms);
    timer.unref?.();
    const onExit = () => {
      clearTimeout(timer);
      resolve(true);
    };
    child.once('exit', onExit);
  });
}

/**
 * Stops one upstream process the way MCP's stdio lifecycle asks: stdin closed, then SIGTERM, then SIGKILL,
 * each after `stepMs` without an exit. Signals go to its process group, so helpers it started stop too.
 */
export async function stopChild(child: ChildProcess, stepMs = STOP_STEP_MS): Promise<void> {
  try {
    child.stdin?.end();
  } catch {
    // the pipe is already closed
  }
  if (!(await waitExit(child, stepMs))) {
    signal(child, 'SIGTERM');
    if (!(await waitExit(child, stepMs))) {
      signal(child, 'SIGKILL');
      await waitExit(child, stepMs);
    }
  }
  // The leader exited; anything it left in its group goes too.
  signal(child, 'SIGTERM');
}

/**
 * A forced exit's last step: SIGTERM to every upstream process, up to `graceMs` for them to exit, then
 * SIGKILL to the rest.
 */
export async function terminateChildren(graceMs = STOP_STEP_MS): Promise<void> {
  const children = [...live];
  for (const child of children) signal(child, 'SIGTERM');
  const all = await Promise.all(children.map((c) => waitExit(c, graceMs)));
  children.forEach((child, i) => {
    if (!all[i]) signal(child, 'SIGKILL');
  });
}
