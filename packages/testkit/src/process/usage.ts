import { readFileSync } from 'node:fs';

/** Kernel clock ticks per second (`getconf CLK_TCK`), 100 on every Linux this runs on. */
const CLOCK_TICKS_PER_SECOND = 100;

/**
 * CPU time (user + system, ms) process `pid` has used so far, from /proc/PID/stat (Linux; 10 ms
 * resolution); undefined elsewhere or once the process is gone.
 */
export function cpuTimeMs(pid: number | undefined): number | undefined {
  if (pid === undefined || process.platform !== 'linux') return undefined;
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    // Fields after the ")" closing the command name: state is field 3, utime 14, stime 15.
    const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
    const ticks = Number(fields[11]) + Number(fields[12]);
    return Number.isFinite(ticks) ? (ticks * 1000) / CLOCK_TICKS_PER_SECOND : undefined;
  } catch {
    return undefined;
  }
}

/** Resident set size (MiB) of process `pid`, from /proc/PID/status (Linux); undefined elsewhere or once gone. */
export function rssMiB(pid: number | undefined): number | undefined {
  if (pid === undefined || process.platform !== 'linux') return undefined;
  try {
    const kb = /^VmRSS:\s+(\d+) kB/m.exec(readFileSync(`/proc/${pid}/status`, 'utf8'))?.[1];
    return kb === undefined ? undefined : Number(kb) / 1024;
  } catch {
    return undefined;
  }
}
