/**
 * The fault schedule: one fault at a time, in a fixed cycle over the upstreams — SIGKILL then restart,
 * SIGSTOP then SIGCONT (longer than the gateway's per-call timeout, so calls to it time out), and config
 * reloads. After each fault the upstream must be connected again and its subscriptions restored (updates
 * reach every subscribed session again); each step is recorded in the fault timeline.
 */
import type { FaultKind, FaultTimeline } from './faults.js';
import { type RunningGateway, waitForStatus } from './gateway.js';
import type { ConfigReloads, ReloadOutcome, ReloadVariant } from './reload.js';
import { checkRestored, type RestoreResult } from './restore.js';
import type { SoakSession } from './session.js';
import type { SoakUpstream } from './upstreams.js';

const KILL_HOLD_MS = 3_000;
const STOP_HOLD_MS = 7_000;
const GAP_MS = 2_000;
const READY_BOUND_MS = 30_000;
const RESTORE_BOUND_MS = 30_000;
/** No new step starts with less than this left: the run ends with every upstream back. */
const STEP_BUDGET_MS = 15_000;

export interface StepRecord {
  label: string;
  kind: FaultKind;
  upstream?: string;
  /** Seconds since the start of the run. */
  at: number;
  /** How long the fault lasted, from injection to the upstream being back (ms). */
  durationMs?: number;
  restore?: RestoreResult;
  reload?: ReloadOutcome;
  problems: string[];
}

export interface ChaosDeps {
  base: readonly SoakUpstream[];
  gateway: RunningGateway;
  reloads: ConfigReloads;
  timeline: FaultTimeline;
  sessions: () => Iterable<SoakSession>;
  /** The upstreams traffic may target (the spare joins once connected and leaves before removal). */
  targets: string[];
  spare: SoakUpstream;
  runStart: number;
}

type Step = { kind: 'kill' | 'stop'; upstream: number } | { kind: 'reload'; variant: ReloadVariant };

/** One cycle; `upstream` indexes `base` (alpha, beta, gamma, delta). */
const CYCLE: Step[] = [
  { kind: 'kill', upstream: 0 },
  { kind: 'stop', upstream: 1 },
  { kind: 'reload', variant: 'add' },
  { kind: 'kill', upstream: 3 },
  { kind: 'reload', variant: 'change' },
  { kind: 'stop', upstream: 2 },
  { kind: 'reload', variant: 'remove' },
  { kind: 'kill', upstream: 1 },
  { kind: 'stop', upstream: 3 },
  { kind: 'reload', variant: 'limits' },
  { kind: 'kill', upstream: 2 },
  { kind: 'stop', upstream: 0 },
];

export class Chaos {
  readonly steps: StepRecord[] = [];
  #stopping = false;
  readonly #deps: ChaosDeps;

  constructor(deps: ChaosDeps) {
    this.#deps = deps;
  }

  stop(): void {
    this.#stopping = true;
  }

  /** Runs steps until `endAt` (none starts too close to it), with a quiet gap between steps. */
  async run(endAt: number): Promise<void> {
    for (let n = 0; !this.#stopping && Date.now() + STEP_BUDGET_MS < endAt; n++) {
      const step = CYCLE[n % CYCLE.length]!;
      // The reconnecting change walks the upstreams cycle by cycle.
      const changeTarget = this.#deps.base[(2 + Math.floor(n / CYCLE.length)) % this.#deps.base.length]!;
      const record =
        step.kind === 'reload'
          ? await this.#reload(step.variant, changeTarget)
          : await this.#fault(step.kind, this.#deps.base[step.upstream]!);
      this.steps.push(record);
      await sleep(GAP_MS);
    }
  }

  async #fault(kind: 'kill' | 'stop', upstream: SoakUpstream): Promise<StepRecord> {
    const label = `${kind === 'kill' ? 'SIGKILL+restart' : 'SIGSTOP+SIGCONT'} ${upstream.name} (${upstream.transport})`;
    const record = this.#record(label, kind, upstream.name);
    const window = this.#deps.timeline.begin(kind, label, upstream.name);
    try {
      if (kind === 'kill') {
        await upstream.kill();
        await sleep(KILL_HOLD_MS);
        await upstream.restart();
      } else {
        upstream.pause();
        await sleep(STOP_HOLD_MS);
        upstream.resume();
      }
      await this.#recover(upstream, record, label, Date.now());
    } catch (error) {
      upstream.ensureRunning();
      record.problems.push(`step failed: ${error instanceof Error ? error.message : String(error)}`);
    } finally {
      this.#deps.timeline.end(window);
      record.durationMs = (window.end ?? Date.now()) - window.start;
    }
    return record;
  }

  async #reload(variant: ReloadVariant, target: SoakUpstream): Promise<StepRecord> {
    const { reloads, spare, targets, timeline } = this.#deps;
    const { label, upstream } = reloads.describe(variant, target);
    const record = this.#record(label, 'reload', upstream);
    // Removing the spare: traffic stops targeting it first (requests already on their way may still fail).
    if (variant === 'remove') remove(targets, spare.name);
    const window = timeline.begin('reload', label, upstream);
    try {
      const since = Date.now();
      record.reload = await reloads.apply(variant, target);
      if (record.reload.outcome !== 'applied') {
        record.problems.push(
          `reload not applied: ${record.reload.outcome ?? 'no record'} ${record.reload.error ?? ''}`,
        );
      }
      if (variant === 'add') {
        if (await this.#ready(spare, record)) targets.push(spare.name);
      } else if (variant === 'change') {
        await this.#recover(target, record, label, since);
      }
    } catch (error) {
      record.problems.push(`step failed: ${error instanceof Error ? error.message : String(error)}`);
    } finally {
      timeline.end(window);
      record.durationMs = (window.end ?? Date.now()) - window.start;
    }
    return record;
  }

  /** The upstream is connected again and updates from it reach every subscribed session again. */
  async #recover(upstream: SoakUpstream, record: StepRecord, label: string, since: number): Promise<void> {
    await this.#ready(upstream, record);
    record.restore = await checkRestored(upstream, label, this.#deps.sessions, since, RESTORE_BOUND_MS);
    if (record.restore.restoredMs === undefined) {
      record.problems.push(
        `subscriptions not restored within ${RESTORE_BOUND_MS / 1000} s: ` +
          `${record.restore.received}/${record.restore.sessions} sessions had an update` +
          ` (waiting: ${record.restore.missing.join(', ')})`,
      );
    }
  }

  async #ready(upstream: SoakUpstream, record: StepRecord): Promise<boolean> {
    const ms = await waitForStatus(
      this.#deps.gateway,
      (s) => s.upstreams.some((u) => u.name === upstream.name && u.state === 'ready'),
      READY_BOUND_MS,
    );
    if (ms === undefined)
      record.problems.push(`${upstream.name} not connected within ${READY_BOUND_MS / 1000} s`);
    return ms !== undefined;
  }

  #record(label: string, kind: FaultKind, upstream: string | undefined): StepRecord {
    const at = Math.round((Date.now() - this.#deps.runStart) / 100) / 10;
    return { label, kind, upstream, at, problems: [] };
  }
}

function remove(list: string[], item: string): void {
  const at = list.indexOf(item);
  if (at >= 0) list.splice(at, 1);
}

function sleep(ms: number): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, ms));
}
