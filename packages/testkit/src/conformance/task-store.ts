import { randomUUID } from 'node:crypto';
import type { CallToolResult, InputRequest } from '@modelcontextprotocol/server';

/** The Tasks extension's identifier (SEP-2663), under `capabilities.extensions` in the 2026-07-28 era. */
export const TASKS_EXTENSION_ID = 'io.modelcontextprotocol/tasks';
/** `_meta` key associating 2025-11-25 messages with a task. */
export const RELATED_TASK_META_KEY = 'io.modelcontextprotocol/related-task';

export type TaskStatus = 'working' | 'input_required' | 'completed' | 'failed' | 'cancelled';

/** A JSON-RPC error a task ended with (status `failed`). */
export interface TaskError {
  code: number;
  message: string;
  data?: unknown;
}

const TERMINAL: ReadonlySet<TaskStatus> = new Set(['completed', 'failed', 'cancelled']);
/** How long a task is kept after it was created, unless the requestor asked for less. */
const DEFAULT_TTL_MS = 5 * 60_000;
const POLL_INTERVAL_MS = 100;

interface PendingInput {
  readonly request: InputRequest;
  /** Handed to a 2025 client on a `tasks/result` stream and not answered yet. */
  sent: boolean;
  resolve(response: Record<string, unknown>): void;
}

/**
 * One task of the fixture: a tool call running in the background, in either wire era. It waits for client
 * input through keyed input requests (answered by `tasks/update` in the 2026-07-28 era, or by the client's
 * responses to the requests a 2025 `tasks/result` stream carries), and ends completed (a tool result, an
 * `isError` one too), failed (a JSON-RPC error) or cancelled.
 */
export class FixtureTask {
  readonly taskId = randomUUID();
  readonly createdAt = new Date().toISOString();
  readonly ttlMs: number;
  readonly pollIntervalMs = POLL_INTERVAL_MS;
  /** The era the task was created in: 2025 tasks map a tool error to `failed`, as that revision says. */
  readonly era: 'legacy' | 'modern';
  status: TaskStatus = 'working';
  statusMessage: string | undefined;
  lastUpdatedAt = this.createdAt;
  result: CallToolResult | undefined;
  error: TaskError | undefined;
  /** Input requests not answered yet, by key (each key is used once in the task's lifetime). */
  readonly pending = new Map<string, PendingInput>();
  readonly #abort = new AbortController();
  readonly #watchers = new Set<() => void>();
  readonly #listeners = new Set<(task: FixtureTask) => void>();
  #keys = 0;

  constructor(era: 'legacy' | 'modern', ttlMs: number) {
    this.era = era;
    this.ttlMs = ttlMs;
  }

  /** Aborted when the task is cancelled: the job stops. */
  get signal(): AbortSignal {
    return this.#abort.signal;
  }

  get terminal(): boolean {
    return TERMINAL.has(this.status);
  }

  /** Called on every status change (the 2025 `notifications/tasks/status`). */
  onStatus(listener: (task: FixtureTask) => void): void {
    this.#listeners.add(listener);
  }

  /** The job needs the client to answer `request`: the task is `input_required` until every ask is answered. */
  ask(request: InputRequest): Promise<Record<string, unknown>> {
    if (this.terminal) return Promise.reject(new Error('the task has ended'));
    return new Promise((resolve) => {
      this.pending.set(`input-${++this.#keys}`, { request, sent: false, resolve });
      this.#set('input_required');
    });
  }

  /**
   * Delivers responses to outstanding input requests; keys that are not outstanding (never issued,
   * already answered) are ignored. The task works again once nothing is outstanding.
   */
  answer(responses: Readonly<Record<string, unknown>> | undefined): void {
    for (const [key, response] of Object.entries(responses ?? {})) {
      const pending = this.pending.get(key);
      if (pending === undefined || typeof response !== 'object' || response === null) continue;
      this.pending.delete(key);
      pending.resolve(response as Record<string, unknown>);
    }
    if (this.status === 'input_required' && this.pending.size === 0) this.#set('working');
    else this.#wake();
  }

  /** Ends the task with the job's outcome (a cancelled task stays cancelled). */
  settle(outcome: { result: CallToolResult } | { error: TaskError }): void {
    if (this.terminal) return;
    if ('result' in outcome) this.result = outcome.result;
    else this.error = outcome.error;
    this.pending.clear();
    this.#set(
      'result' in outcome ? 'completed' : 'failed',
      'error' in outcome ? outcome.error.message : undefined,
    );
  }

  cancel(): void {
    if (this.terminal) return;
    this.pending.clear();
    this.#set('cancelled', 'The task was cancelled by request.');
    this.#abort.abort(new Error('task cancelled'));
  }

  /** Resolves at the task's next change (status, or its outstanding input), or when `signal` aborts. */
  changed(signal: AbortSignal): Promise<void> {
    return new Promise((resolve) => {
      const done = () => {
        this.#watchers.delete(done);
        signal.removeEventListener('abort', done);
        resolve();
      };
      this.#watchers.add(done);
      signal.addEventListener('abort', done, { once: true });
    });
  }

  #set(status: TaskStatus, message?: string): void {
    const changed = status !== this.status;
    this.status = status;
    this.statusMessage = message;
    this.lastUpdatedAt = new Date().toISOString();
    this.#wake();
    if (changed) for (const listener of this.#listeners) listener(this);
  }

  #wake(): void {
    for (const watcher of [...this.#watchers]) watcher();
  }
}

/**
 * The tasks of one fixture, shared by every instance (a 2026-07-28 HTTP request gets a fresh instance, so a
 * task outlives the request that created it). Tasks are dropped once their TTL has passed.
 */
export class TaskStore {
  readonly #tasks = new Map<string, FixtureTask>();

  /** Starts `job` as a task; its outcome (a tool result, or a thrown JSON-RPC error) ends the task. */
  create(
    era: 'legacy' | 'modern',
    job: (task: FixtureTask) => Promise<CallToolResult>,
    requestedTtlMs?: unknown,
  ): FixtureTask {
    const ttl =
      typeof requestedTtlMs === 'number' && requestedTtlMs > 0
        ? Math.min(Math.floor(requestedTtlMs), DEFAULT_TTL_MS)
        : DEFAULT_TTL_MS;
    const task = new FixtureTask(era, ttl);
    this.#tasks.set(task.taskId, task);
    setTimeout(() => this.#tasks.delete(task.taskId), ttl).unref();
    // The task exists before the job's first await: a tasks/get right after creation resolves.
    void Promise.resolve()
      .then(() => job(task))
      .then(
        (result) => task.settle({ result }),
        (error: unknown) => {
          if (!task.signal.aborted) task.settle({ error: jsonRpcError(error) });
        },
      );
    return task;
  }

  get(taskId: unknown): FixtureTask | undefined {
    return typeof taskId === 'string' ? this.#tasks.get(taskId) : undefined;
  }

  /** Every live task, oldest first. */
  all(): FixtureTask[] {
    return [...this.#tasks.values()];
  }
}

/** The `Task` of the 2025-11-25 utility: `ttl`/`pollInterval`, and a tool error counts as `failed`. */
export function legacyTask(task: FixtureTask): Record<string, unknown> {
  const failedTool = task.status === 'completed' && task.result?.isError === true;
  return {
    taskId: task.taskId,
    status: failedTool ? 'failed' : task.status,
    ...(task.statusMessage === undefined ? {} : { statusMessage: task.statusMessage }),
    createdAt: task.createdAt,
    lastUpdatedAt: task.lastUpdatedAt,
    ttl: task.ttlMs,
    pollInterval: task.pollIntervalMs,
  };
}

/** The `Task` of the 2026-07-28 extension (`ttlMs`/`pollIntervalMs`); detailed: with its result, error or input requests. */
export function modernTask(task: FixtureTask, detailed: boolean): Record<string, unknown> {
  const base: Record<string, unknown> = {
    taskId: task.taskId,
    status: task.status,
    ...(task.statusMessage === undefined ? {} : { statusMessage: task.statusMessage }),
    createdAt: task.createdAt,
    lastUpdatedAt: task.lastUpdatedAt,
    ttlMs: task.ttlMs,
    pollIntervalMs: task.pollIntervalMs,
  };
  if (!detailed) return base;
  if (task.status === 'completed') base.result = task.result;
  if (task.status === 'failed') base.error = task.error;
  if (task.status === 'input_required') {
    base.inputRequests = Object.fromEntries([...task.pending].map(([key, p]) => [key, p.request]));
  }
  return base;
}

function jsonRpcError(error: unknown): TaskError {
  const e = error as { code?: unknown; message?: unknown; data?: unknown };
  return {
    code: typeof e?.code === 'number' ? e.code : -32603,
    message: typeof e?.message === 'string' ? e.message : String(error),
    ...(e?.data === undefined ? {} : { data: e.data }),
  };
}
