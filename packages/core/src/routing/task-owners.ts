import type { TaskBinding } from './task-ids.js';

/** A task the gateway handed out, as it knows it. */
export interface OwnedTask {
  readonly binding: TaskBinding;
  /** The id the caller knows it by. */
  readonly exposedId: string;
  /** A task the gateway holds itself (see {@link TaskBinding.local}): its finished state. */
  readonly held?: HeldTask;
}

/** The finished state of a task the gateway holds itself. */
export interface HeldTask {
  readonly result: Record<string, unknown>;
  readonly createdAt: string;
  readonly ttlMs: number;
}

/** How many tasks are remembered at most (the oldest are forgotten first). */
const MAX_TASKS = 10_000;
/** How long a task with no (or an unlimited) TTL is remembered. */
const MAX_KEEP_MS = 24 * 60 * 60_000;

/**
 * The tasks this gateway instance handed out, by upstream and the upstream's own task id: whose each is
 * (a `tasks/list` shows a caller only its own; a `notifications/tasks/status` reaches only its creator),
 * and the results of the tasks the gateway holds itself. Routing never needs it (a sealed id carries its
 * route), so it is bounded and per instance: a task this instance never saw is listed and notified to
 * nobody, which is the safe side.
 */
export class TaskOwners {
  readonly #tasks = new Map<string, OwnedTask & { expiresAt: number }>();
  readonly #now: () => number;

  constructor(now: () => number = Date.now) {
    this.#now = now;
  }

  get size(): number {
    return this.#tasks.size;
  }

  /** Remembers a task handed out now; `ttlMs` is its time to live (null or absent: unlimited). */
  add(task: OwnedTask, ttlMs: number | null | undefined): void {
    const now = this.#now();
    const keep = typeof ttlMs === 'number' && ttlMs >= 0 ? Math.min(ttlMs, MAX_KEEP_MS) : MAX_KEEP_MS;
    const key = keyOf(task.binding.upstream, task.binding.taskId);
    this.#tasks.delete(key);
    this.#tasks.set(key, { ...task, expiresAt: now + keep });
    this.#sweep(now);
  }

  /** The task an upstream's own id names, when this instance handed it out and still remembers it. */
  owner(upstream: string, taskId: unknown): OwnedTask | undefined {
    if (typeof taskId !== 'string') return undefined;
    const key = keyOf(upstream, taskId);
    const task = this.#tasks.get(key);
    if (task === undefined) return undefined;
    if (task.expiresAt <= this.#now()) {
      this.#tasks.delete(key);
      return undefined;
    }
    return task;
  }

  /** The tasks `identity` created that this instance still remembers, oldest first. */
  ownedBy(identity: string): OwnedTask[] {
    const now = this.#now();
    const owned: OwnedTask[] = [];
    for (const task of this.#tasks.values()) {
      if (task.binding.identity === identity && task.expiresAt > now) owned.push(task);
    }
    return owned;
  }

  /** Forgets the tasks of upstreams that are no longer configured. */
  retain(upstreams: ReadonlySet<string>): void {
    for (const [key, task] of this.#tasks) {
      if (!upstreams.has(task.binding.upstream)) this.#tasks.delete(key);
    }
  }

  #sweep(now: number): void {
    for (const [key, task] of this.#tasks) {
      if (this.#tasks.size <= MAX_TASKS && task.expiresAt > now) break;
      this.#tasks.delete(key);
    }
  }
}

function keyOf(upstream: string, taskId: string): string {
  return `${upstream}\u0000${taskId}`;
}
