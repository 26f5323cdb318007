import type { ServerCapabilities } from '@modelcontextprotocol/client';
import { isRecord } from '../payload.js';
import type { UpstreamConnection } from '../upstream/connection.js';
import { TASKS_EXTENSION_ID } from './task-wire.js';

/** The 2025-11-25 `tasks` capability of a server, when it declares one. */
function legacyTasks(capabilities: ServerCapabilities | undefined): Record<string, unknown> | undefined {
  const tasks = (capabilities as Record<string, unknown> | undefined)?.tasks;
  return isRecord(tasks) ? tasks : undefined;
}

/** Whether a server declares task-augmented `tools/call` (2025-11-25: `tasks.requests.tools.call`). */
export function declaresToolTasks(capabilities: ServerCapabilities | undefined): boolean {
  const requests = legacyTasks(capabilities)?.requests;
  return isRecord(requests) && isRecord(requests.tools) && requests.tools.call !== undefined;
}

/** Whether a server declares `tasks/list` (2025-11-25: `tasks.list`). */
export function declaresTaskList(capabilities: ServerCapabilities | undefined): boolean {
  return legacyTasks(capabilities)?.list !== undefined;
}

/** Whether a server declares the Tasks extension (SEP-2663, 2026-07-28). */
export function declaresTasksExtension(capabilities: ServerCapabilities | undefined): boolean {
  return isRecord(capabilities?.extensions?.[TASKS_EXTENSION_ID]);
}

/**
 * How an upstream runs tool calls as tasks, as it last connected: `legacy` (the 2025-11-25 utility),
 * `modern` (the 2026-07-28 extension), or undefined (not at all). Each era's declaration counts only on a
 * connection of that era; while the upstream is down, the declaration it made tells.
 */
export function taskEra(upstream: UpstreamConnection): 'legacy' | 'modern' | undefined {
  const known = upstream.knownCapabilities;
  const modern = upstream.era === undefined ? !declaresToolTasks(known) : upstream.era === 'modern';
  if (modern) return declaresTasksExtension(known) ? 'modern' : undefined;
  return declaresToolTasks(known) ? 'legacy' : undefined;
}

/**
 * What the gateway declares about tasks to a client of `era`, from what its upstreams declared when they
 * last connected; nothing when none runs tool calls as tasks. Either era's tasks are bridged to the other's
 * clients: a 2026-07-28 client is told of the Tasks extension, a 2025-11-25 client gets the `tasks`
 * capability, with `list` when every 2025-11-25 such upstream lists its tasks (the gateway lists the ones
 * it bridged onto 2026-07-28 upstreams, whose extension has no `tasks/list`) and `cancel` when every one
 * cancels them; the tools a client may call as tasks say so themselves (`execution.taskSupport`).
 */
export function tasksCapabilities(
  upstreams: readonly UpstreamConnection[],
  era: 'legacy' | 'modern',
): Record<string, unknown> | undefined {
  const offering = upstreams.filter((u) => taskEra(u) !== undefined);
  if (offering.length === 0) return undefined;
  if (era === 'modern') return { extensions: { [TASKS_EXTENSION_ID]: {} } };
  const legacy = offering.map((u) =>
    taskEra(u) === 'legacy' ? legacyTasks(u.knownCapabilities) : undefined,
  );
  const tasks: Record<string, unknown> = { requests: { tools: { call: {} } } };
  // The gateway lists a 2026-07-28 upstream's tasks itself (the ones it bridged).
  if (legacy.every((t) => t === undefined || t.list !== undefined)) tasks.list = {};
  // A 2026-07-28 upstream always takes tasks/cancel.
  if (legacy.every((t) => t === undefined || t.cancel !== undefined)) tasks.cancel = {};
  return { tasks };
}

/**
 * A listed tool as a 2025-11-25 client may use it: `execution.taskSupport` is kept where the upstream
 * runs tool calls as tasks (a 2026-07-28 upstream decides per call, so its tools are `optional` unless
 * they say more), and dropped elsewhere, so no client tries to run as a task what cannot be one. A tool
 * that says `forbidden` keeps saying so (true everywhere), so the list is the upstream's own.
 */
export function toolForLegacyClient(
  upstream: UpstreamConnection,
  tool: Record<string, unknown>,
): Record<string, unknown> {
  const execution = isRecord(tool.execution) ? tool.execution : undefined;
  const declared = execution?.taskSupport;
  if (declared === 'forbidden') return tool;
  const tasks = taskEra(upstream);
  const support = tasks === 'legacy' ? declared : tasks === 'modern' ? (declared ?? 'optional') : undefined;
  if (support === declared) return tool;
  const { taskSupport: _dropped, ...rest } = execution ?? {};
  const next: Record<string, unknown> = support === undefined ? rest : { ...rest, taskSupport: support };
  const copy = { ...tool };
  if (Object.keys(next).length > 0) copy.execution = next;
  else delete copy.execution;
  return copy;
}

/**
 * A listed tool as a 2026-07-28 client may use it: a 2025-11-25 upstream's `taskSupport: "required"` is
 * left out, as the gateway runs such a tool as a task upstream for any 2026-07-28 client (it hands out the
 * task when the request declares the Tasks extension, else waits for its result); that era has no
 * tool-level negotiation (SEP-2663: the server decides per call). Everything else is the upstream's own.
 */
export function toolForModernClient(
  upstream: UpstreamConnection,
  tool: Record<string, unknown>,
): Record<string, unknown> {
  const execution = isRecord(tool.execution) ? tool.execution : undefined;
  if (execution?.taskSupport !== 'required' || taskEra(upstream) !== 'legacy') return tool;
  const { taskSupport: _dropped, ...rest } = execution;
  const copy = { ...tool };
  if (Object.keys(rest).length > 0) copy.execution = rest;
  else delete copy.execution;
  return copy;
}
