import type { PluginGateway, RequestContext, TaskRoute } from '@switchyard/core';
import type { Decision } from './policy.js';
import { type MayRead, type Screened, withholdResources } from './withhold.js';

/**
 * A `tasks/list` page without the tasks of tools the caller may not call (now): each task is decided as
 * a `tools/call` of the tool that created it, like `tasks/get` on it would be.
 */
export function screenTaskList(
  ctx: RequestContext,
  result: Record<string, unknown>,
  gateway: PluginGateway,
  decide: (route: TaskRoute) => Decision,
): Screened {
  if (!Array.isArray(result.tasks)) return { result, withheld: 0 };
  const kept = result.tasks.filter((task: unknown) => {
    const id = (task as { taskId?: unknown } | null)?.taskId;
    const route = typeof id === 'string' ? gateway.task(id, ctx.identity.id) : undefined;
    return route !== undefined && decide(route).effect === 'allow';
  });
  const withheld = result.tasks.length - kept.length;
  return withheld === 0 ? { result, withheld } : { result: { ...result, tasks: kept }, withheld };
}

/** A 2026-07-28 `tasks/get` answer whose inlined tool result is screened like the tool call's own. */
export function screenTaskResult(result: Record<string, unknown>, mayRead: MayRead): Screened {
  const inner = result.result;
  if (typeof inner !== 'object' || inner === null || Array.isArray(inner)) return { result, withheld: 0 };
  const screened = withholdResources('tools/call', inner as Record<string, unknown>, mayRead);
  return screened.withheld === 0
    ? { result, withheld: 0 }
    : { result: { ...result, result: screened.result }, withheld: screened.withheld };
}
