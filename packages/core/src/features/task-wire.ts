import { isRecord, withoutMetaKey } from '../payload.js';

/** The Tasks extension's identifier (SEP-2663, 2026-07-28), under `extensions` in capabilities. */
export const TASKS_EXTENSION_ID = 'io.modelcontextprotocol/tasks';
/** `_meta` key relating 2025-11-25 messages (a `tasks/result` answer, a task's requests) to their task. */
export const RELATED_TASK_META_KEY = 'io.modelcontextprotocol/related-task';

export type TaskStatus = 'working' | 'input_required' | 'completed' | 'failed' | 'cancelled';

const TERMINAL: ReadonlySet<unknown> = new Set(['completed', 'failed', 'cancelled']);

export function isTerminal(status: unknown): boolean {
  return TERMINAL.has(status);
}

/**
 * A 2026-07-28 task (`tasks/get`'s `DetailedTask`, or a `CreateTaskResult` without its `resultType`) as a
 * 2025-11-25 `Task`: `ttlMs`/`pollIntervalMs` become `ttl`/`pollInterval`, the inlined result, error and
 * input requests are left out (a 2025 client reads them with `tasks/result`), and a tool result with
 * `isError` is `failed`, as the 2025-11-25 revision reports it.
 */
export function legacyTaskOf(task: Record<string, unknown>, taskId: string): Record<string, unknown> {
  const toolError = task.status === 'completed' && isRecord(task.result) && task.result.isError === true;
  const legacy: Record<string, unknown> = {
    taskId,
    status: toolError ? 'failed' : task.status,
    createdAt: task.createdAt,
    lastUpdatedAt: task.lastUpdatedAt,
    ttl: task.ttlMs ?? null,
  };
  if (typeof task.statusMessage === 'string') legacy.statusMessage = task.statusMessage;
  if (typeof task.pollIntervalMs === 'number') legacy.pollInterval = task.pollIntervalMs;
  return legacy;
}

/**
 * A 2025-11-25 `Task` as a 2026-07-28 one (without its result: `tasks/get` inlines that): `ttl` and
 * `pollInterval` become `ttlMs` and `pollIntervalMs`.
 */
export function modernTaskOf(task: Record<string, unknown>, taskId: string): Record<string, unknown> {
  const modern: Record<string, unknown> = {
    taskId,
    status: task.status,
    createdAt: task.createdAt,
    lastUpdatedAt: task.lastUpdatedAt,
    ttlMs: task.ttl ?? null,
  };
  if (typeof task.statusMessage === 'string') modern.statusMessage = task.statusMessage;
  if (typeof task.pollInterval === 'number') modern.pollIntervalMs = task.pollInterval;
  return modern;
}

/** The suggested wait before polling a task again, bounded so a gateway loop neither spins nor stalls. */
export function pollDelayMs(task: Record<string, unknown>, field: 'pollIntervalMs' | 'pollInterval'): number {
  const hint = task[field];
  return typeof hint === 'number' && Number.isFinite(hint) ? Math.min(Math.max(hint, 50), 5_000) : 500;
}

/** `result` with its `_meta` relating it to task `taskId` (what 2025-11-25 `tasks/result` answers carry). */
export function relatedTo(result: Record<string, unknown>, taskId: string): Record<string, unknown> {
  const meta = isRecord(result._meta) ? result._meta : {};
  return { ...result, _meta: { ...meta, [RELATED_TASK_META_KEY]: { taskId } } };
}

/** `result` without the related-task `_meta` a 2025-11-25 `tasks/result` answer carries (the upstream's id). */
export function unrelated(result: Record<string, unknown>): Record<string, unknown> {
  return withoutMetaKey(result, RELATED_TASK_META_KEY);
}

/** `params` whose related-task `_meta` (if any) names `taskId` instead. */
export function withRelatedTask(params: Record<string, unknown>, taskId: string): Record<string, unknown> {
  if (!isRecord(params._meta) || !isRecord(params._meta[RELATED_TASK_META_KEY])) return params;
  return { ...params, _meta: { ...params._meta, [RELATED_TASK_META_KEY]: { taskId } } };
}
