/**
 * What the run prints: one progress line per interval on stderr, and the closing summary on stdout
 * (RSS, request totals by upstream, errors split by whether their upstream was under fault, each fault
 * step with its subscription restore time, the checks), optionally the same figures as JSON.
 */
import type { StepRecord } from './chaos.js';
import type { Ledger, Tally } from './ledger.js';
import type { RssFigures } from './rss.js';
import type { Check, ErrorBreakdown } from './verdict.js';

export interface ProgressSource {
  elapsedS: number;
  rssMiB: number | undefined;
  ledger: Ledger;
  sessions: number;
  updates: number;
  fault: string | undefined;
}

export class ProgressLine {
  #lastTotal = 0;
  #lastAt = 0;

  render(p: ProgressSource): string {
    const t = p.ledger.total;
    const all = t.ok + t.spoiled + t.error + t.wrong + t.lost + t.broken;
    const rate = p.elapsedS > this.#lastAt ? (all - this.#lastTotal) / (p.elapsedS - this.#lastAt) : 0;
    this.#lastTotal = all;
    this.#lastAt = p.elapsedS;
    const rss = p.rssMiB === undefined ? '?' : p.rssMiB.toFixed(1);
    return (
      `[soak] t=${String(Math.round(p.elapsedS)).padStart(4)}s rss=${rss}MiB ` +
      `ok=${t.ok} err=${t.error} wrong=${t.wrong} lost=${t.lost} broken=${t.broken} ` +
      `inflight=${p.ledger.inFlight} rate=${rate.toFixed(0)}/s sessions=${p.sessions} updates=${p.updates} ` +
      `fault=${p.fault ?? '-'}`
    );
  }
}

export interface Summary {
  durationS: number;
  sessions: number;
  opened: { legacy: number; modern: number };
  upstreams: string[];
  rss: RssFigures | undefined;
  soakRssMiB: number;
  totals: Tally;
  byTarget: Record<string, Tally>;
  errors: ErrorBreakdown;
  partialListings: number;
  updates: number;
  /** Background updates the upstreams emitted (each reaches every session subscribed to it). */
  pulses: number;
  listenDrops: number;
  steps: StepRecord[];
  gatewayWarnings: Record<string, number>;
  connects: Record<string, number>;
  checks: Check[];
  passed: boolean;
}

const pad = (s: string | number, n: number) => String(s).padStart(n);

function tallyRow(name: string, t: Tally): string {
  return `  ${name.padEnd(8)}${pad(t.ok, 9)}${pad(t.spoiled, 9)}${pad(t.error, 8)}${pad(t.wrong, 7)}${pad(t.lost, 6)}${pad(t.broken, 8)}`;
}

function restoreStats(steps: StepRecord[]): string {
  const times = steps
    .map((s) => s.restore?.restoredMs)
    .filter((x): x is number => x !== undefined)
    .sort((a, b) => a - b);
  if (times.length === 0) return 'none measured';
  const median = times[Math.floor(times.length / 2)]!;
  return `${times.length} restores: min ${times[0]} ms, median ${median} ms, max ${times.at(-1)} ms`;
}

export function renderSummary(s: Summary): string {
  const lines: string[] = [];
  const t = s.totals;
  const all = t.ok + t.spoiled + t.error + t.wrong + t.lost + t.broken;
  lines.push(
    `Switchyard soak: ${s.durationS} s, ${s.sessions} concurrent sessions (half legacy 2025-11-25, half modern 2026-07-28); ` +
      `sessions opened: ${s.opened.legacy} legacy + ${s.opened.modern} modern; upstreams ${s.upstreams.join(', ')}`,
  );
  lines.push('');
  if (s.rss) {
    const r = s.rss;
    lines.push(
      `Gateway RSS (MiB): at warm-up (20%) ${r.atWarmupMiB.toFixed(1)}, at end ${r.atEndMiB.toFixed(1)}, ` +
        `max after warm-up ${r.maxAfterWarmupMiB.toFixed(1)}; median 20–50% ${r.warmupMedianMiB.toFixed(1)} → ` +
        `median last 25% ${r.endMedianMiB.toFixed(1)} (bound: + max(50%, 40 MiB) = ${r.boundMiB.toFixed(1)}); ` +
        `${r.samples} samples. Soak client RSS at end: ${s.soakRssMiB.toFixed(1)} MiB`,
    );
  }
  lines.push('');
  lines.push(
    `Requests: ${all} (${(all / s.durationS).toFixed(0)}/s): ok ${t.ok}, spoiled as promised ${t.spoiled}, ` +
      `error ${t.error}, wrong ${t.wrong}, lost ${t.lost}, broken ${t.broken}`,
  );
  lines.push(
    `  target       ok  spoiled   error  wrong  lost  broken   (* = merged listing / listen over all upstreams)`,
  );
  for (const [name, tally] of Object.entries(s.byTarget).sort()) lines.push(tallyRow(name, tally));
  const sum = (r: Record<string, number>) => Object.values(r).reduce((a, b) => a + b, 0);
  lines.push('');
  lines.push(`Errors while their upstream was under fault (expected): ${sum(s.errors.expected)}`);
  for (const [k, n] of Object.entries(s.errors.expected).sort()) lines.push(`  ${pad(n, 6)}  ${k}`);
  lines.push(`Errors on unaffected upstreams: ${sum(s.errors.unexpected)}`);
  for (const [k, n] of Object.entries(s.errors.unexpected).sort()) lines.push(`  ${pad(n, 6)}  ${k}`);
  for (const f of s.errors.samples) {
    lines.push(`    at ${f.atS.toFixed(1)} s (${f.era}, ${f.end - f.start} ms): ${f.message.slice(0, 160)}`);
  }
  lines.push(`Merged listings that left an upstream out (_meta): ${s.partialListings}`);
  lines.push('');
  lines.push(
    `Faults (${s.steps.length} steps); restore = upstream back → every subscribed session had an update:`,
  );
  for (const step of s.steps) {
    const restore = step.restore
      ? step.restore.restoredMs === undefined
        ? `NOT restored (${step.restore.received}/${step.restore.sessions})`
        : `restored in ${step.restore.restoredMs} ms (${step.restore.sessions} sessions)`
      : step.reload
        ? `applied in ${step.reload.appliedMs ?? '?'} ms`
        : '';
    const problems = step.problems.length ? `  PROBLEMS: ${step.problems.join('; ')}` : '';
    lines.push(
      `  ${pad(step.at.toFixed(1), 6)} s  ${step.label.padEnd(38)} ${pad(step.durationMs ?? '?', 6)} ms  ${restore}${problems}`,
    );
  }
  lines.push(`  subscription restore: ${restoreStats(s.steps)}`);
  lines.push(
    `Updates: ${s.pulses} background updates emitted by upstreams (plus the restore checks' bursts); ` +
      `${s.updates} notifications received by sessions; modern listen streams dropped: ${s.listenDrops}`,
  );
  const warnings = Object.entries(s.gatewayWarnings).sort((a, b) => b[1] - a[1]);
  lines.push('');
  lines.push(`Gateway WARN/ERROR log lines by kind (${warnings.length} kinds):`);
  for (const [k, n] of warnings.slice(0, 25)) lines.push(`  ${pad(n, 6)}  ${k.slice(0, 200)}`);
  const connects = Object.entries(s.connects).map(([n, c]) => `${n} ${c}`);
  lines.push(`Connections the gateway made per upstream (log): ${connects.join(', ')}`);
  lines.push('');
  lines.push('Checks (WARN = reported, not part of the exit code):');
  for (const c of s.checks) {
    lines.push(`  ${c.ok ? 'PASS' : c.advisory ? 'WARN' : 'FAIL'}  ${c.name}: ${c.detail}`);
  }
  const warned = s.checks.filter((c) => !c.ok && c.advisory).length;
  lines.push(
    `${s.passed ? 'SOAK PASSED' : 'SOAK FAILED'}${warned ? ` (${warned} warning${warned > 1 ? 's' : ''})` : ''}`,
  );
  return lines.join('\n');
}
