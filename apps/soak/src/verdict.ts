/**
 * The pass/fail judgement of a run: no request left without an answer, no wrong answer, errors only on the
 * upstream under fault (and within its window plus grace), merged listings leaving out only that upstream,
 * every subscription restored after every fault, no modern listen stream dropped, sessions and
 * subscriptions released at the end, and the gateway's RSS flat after warm-up.
 */
import type { StepRecord } from './chaos.js';
import type { FaultTimeline } from './faults.js';
import { ALL, type FailureRecord, type Ledger } from './ledger.js';
import type { RssFigures } from './rss.js';

export interface ErrorBreakdown {
  /** `target reason` → count. */
  expected: Record<string, number>;
  unexpected: Record<string, number>;
  /** First few unexpected failures in full. */
  samples: (FailureRecord & { atS: number })[];
}

export interface Check {
  name: string;
  ok: boolean;
  detail: string;
  /** Reported, but not part of the exit code (beyond what the soak is specified to gate on). */
  advisory?: boolean;
}

export interface VerdictInput {
  ledger: Ledger;
  timeline: FaultTimeline;
  steps: StepRecord[];
  rss: RssFigures | undefined;
  connectFailures: number;
  listenDrops: number;
  /** `/admin/status` after every client closed (undefined if it could not be read). */
  afterClose?: { sessions: number; subscriptions: number };
  /** Connections the gateway made per upstream (from its log). */
  connects: ReadonlyMap<string, number>;
  /** The misbehaving upstream (never under fault). */
  wild?: string;
  runStart: number;
}

export function breakdown(input: VerdictInput): ErrorBreakdown {
  const out: ErrorBreakdown = { expected: {}, unexpected: {}, samples: [] };
  for (const f of input.ledger.failures) {
    if (f.kind !== 'error') continue;
    const expected = f.target !== ALL && input.timeline.affected(f.target, f.start, f.end);
    const key = `${f.target} ${f.method} ${f.reason}`;
    const bucket = expected ? out.expected : out.unexpected;
    bucket[key] = (bucket[key] ?? 0) + 1;
    if (!expected && out.samples.length < 10)
      out.samples.push({ ...f, atS: (f.start - input.runStart) / 1000 });
  }
  return out;
}

/** Merged listings that left out an upstream which was not under fault then. */
export function healthyLeftOut(input: VerdictInput): number {
  return input.ledger.partials.filter((p) =>
    p.unavailable.some((name) => !input.timeline.affected(name, p.start, p.end)),
  ).length;
}

/** Slack over the expected connections per upstream before a reconnect storm is reported. */
const RECONNECT_SLACK = 2;

/**
 * Connections the gateway made to each upstream beyond what the faults explain: one at start (or when
 * a reload added it), one after each restart and each reload that changed its entry.
 */
export function extraConnects(input: VerdictInput): Record<string, { made: number; expected: number }> {
  const expected = new Map<string, number>();
  const bump = (name: string) => expected.set(name, (expected.get(name) ?? 0) + 1);
  for (const [name] of input.connects) if (!input.steps.some((s) => s.label.endsWith(`+${name}`))) bump(name);
  for (const s of input.steps) {
    if (
      s.upstream &&
      (s.kind === 'kill' || s.label.startsWith('reload ~') || s.label.startsWith('reload +'))
    ) {
      bump(s.upstream);
    }
  }
  const out: Record<string, { made: number; expected: number }> = {};
  for (const [name, made] of input.connects) {
    const want = expected.get(name) ?? 0;
    if (made > want + RECONNECT_SLACK) out[name] = { made, expected: want };
  }
  return out;
}

export function judge(input: VerdictInput, errors: ErrorBreakdown): Check[] {
  const { ledger, steps, rss } = input;
  const sum = (r: Record<string, number>) => Object.values(r).reduce((a, b) => a + b, 0);
  const unexpected = sum(errors.unexpected);
  const leftOut = healthyLeftOut(input);
  const restores = steps.filter((s) => s.restore);
  const notRestored = restores.filter((s) => s.restore?.restoredMs === undefined).length;
  const stepProblems = steps.flatMap((s) => s.problems);
  const checks: Check[] = [
    {
      name: 'every request answered',
      ok: ledger.total.lost === 0 && ledger.total.broken === 0 && ledger.inFlight === 0,
      detail: `lost ${ledger.total.lost}, broken ${ledger.total.broken}, still in flight ${ledger.inFlight}`,
    },
    { name: 'no wrong answers', ok: ledger.total.wrong === 0, detail: `${ledger.total.wrong} wrong` },
    {
      name: 'errors only on the affected upstream',
      ok: unexpected === 0 && leftOut === 0,
      detail: `${unexpected} errors outside a fault window of their upstream; ${leftOut} merged listings left out a healthy upstream`,
    },
    {
      name: 'sessions opened',
      ok: input.connectFailures === 0,
      detail: `${input.connectFailures} failed connects`,
    },
    {
      name: 'subscriptions restored after each fault',
      ok: notRestored === 0 && restores.length > 0,
      detail: `${restores.length - notRestored}/${restores.length} restored`,
    },
    {
      name: 'fault steps completed',
      ok: stepProblems.length === 0 && steps.length > 0,
      detail: stepProblems.length ? stepProblems.join('; ') : `${steps.length} steps, no problem`,
    },
    { name: 'no listen stream dropped', ok: input.listenDrops === 0, detail: `${input.listenDrops} dropped` },
    {
      name: 'sessions and subscriptions released',
      ok:
        input.afterClose !== undefined &&
        input.afterClose.sessions <= 1 &&
        input.afterClose.subscriptions === 0,
      detail: input.afterClose
        ? `after close: ${input.afterClose.sessions} sessions (≤ 1: the modern clients' shared one), ${input.afterClose.subscriptions} subscriptions`
        : '/admin/status unreadable after close',
    },
  ];
  if (input.wild !== undefined) {
    const made = input.connects.get(input.wild) ?? 0;
    const tally = ledger.byTarget.get(input.wild);
    checks.push({
      name: 'the misbehaving upstream kept its one connection',
      ok: made === 1,
      detail: `${input.wild}: ${made} connection${made === 1 ? '' : 's'} (0 reconnects wanted); ${tally?.ok ?? 0} requests answered right through its noise, ${tally?.spoiled ?? 0} it spoiled answered with the promised error`,
    });
  }
  const storms = Object.entries(extraConnects(input));
  checks.push({
    name: 'no reconnect storm',
    advisory: true,
    ok: storms.length === 0,
    detail: storms.length
      ? storms.map(([n, c]) => `${n}: ${c.made} connections, ${c.expected} explained by faults`).join('; ')
      : 'every upstream connection explained by a fault',
  });
  if (rss) {
    checks.push({
      name: 'gateway RSS flat after warm-up',
      ok: rss.endMedianMiB <= rss.boundMiB,
      detail: `median of the last quarter ${rss.endMedianMiB.toFixed(1)} MiB vs median of 20–50% ${rss.warmupMedianMiB.toFixed(1)} MiB (bound ${rss.boundMiB.toFixed(1)})`,
    });
  } else {
    checks.push({ name: 'gateway RSS flat after warm-up', ok: false, detail: 'no RSS samples' });
  }
  return checks;
}
