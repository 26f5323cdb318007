import { randomUUID } from 'node:crypto';
import type { DownstreamClient, RequestContext } from '../context.js';
import { eraOf } from '../downstream/era.js';
import { GatewayError } from '../errors.js';
import { isRecord } from '../payload.js';
import type { TaskIdSeal } from '../routing/task-ids.js';
import type { HeldTask, TaskOwners } from '../routing/task-owners.js';
import { SealedTooLarge } from '../sealed-box.js';
import type { UpstreamConnection } from '../upstream/connection.js';
import { restoreTaskResult } from '../upstream/task-results.js';
import { exposeToolResult } from './content.js';
import type { TaskOnlyTools } from './task-only-tools.js';
import { awaitedResult, continueAwaited } from './task-outcome.js';
import { legacyTaskOf, modernTaskOf, TASKS_EXTENSION_ID } from './task-wire.js';
import { taskEra } from './tasks-capability.js';
import type { UpstreamCaller } from './upstream-caller.js';

/** How long the gateway keeps a task it holds itself (a 2026-07-28 upstream answered at once). */
export const HELD_TASK_TTL_MS = 10 * 60_000;

/** What a task-aware call needs: where ids are sealed, and where handed-out tasks are remembered. */
export interface TaskIssuer {
  seal: TaskIdSeal;
  owners: TaskOwners;
}

/** What a task-aware tool call also needs: the tools 2025-11-25 upstreams run only as tasks. */
export interface TaskCallDeps extends TaskIssuer {
  taskOnly: TaskOnlyTools;
}

/**
 * A `tools/call` caller that lets tasks through (DESIGN §4b, "no capability lost"): a task the upstream
 * creates gets an exposed id bound to the upstream, the caller and the tool ({@link TaskIdSeal}).
 * - 2025-11-25 client, 2025-11-25 upstream: the call goes as the client made it (`params.task` included
 *   when the upstream runs tool calls as tasks) and the `CreateTaskResult`'s task id is exposed.
 * - 2026-07-28 client, 2026-07-28 upstream: the client's own capabilities tell the upstream whether it
 *   takes tasks (SEP-2663, the server decides); a `resultType: "task"` answer's id is exposed.
 * - 2025-11-25 client, 2026-07-28 upstream: a task-augmented call declares the Tasks extension upstream
 *   on the client's behalf; the upstream's task comes back as a 2025-11-25 `CreateTaskResult`, and an
 *   answer it gave at once becomes a finished task the gateway holds, as the client asked for a task.
 * - 2026-07-28 client, 2025-11-25 upstream, a tool it runs only as a task (`taskSupport: "required"`, which
 *   a 2026-07-28 client cannot negotiate): the gateway makes the call task-augmented. A client that
 *   declares the Tasks extension gets the task (`resultType: "task"`); for one that does not, the gateway
 *   waits for the task's result and answers the call with it ({@link awaitedResult}).
 * A 2026-07-28 client's legacy `task` param is dropped (SEP-2663: servers ignore it).
 */
export function taskAwareToolCaller(deps: TaskCallDeps, call: UpstreamCaller): UpstreamCaller {
  const issuer: TaskIssuer = deps;
  return async (ctx, upstream, params) => {
    const legacyClient = eraOf(ctx) === 'legacy';
    const wantsTask = legacyClient && isRecord(params.task);
    const { task: requested, ...plain } = params;
    if (
      !legacyClient &&
      taskEra(upstream) === 'legacy' &&
      deps.taskOnly.has(upstream.name, toolOf(ctx).exposed)
    ) {
      return taskForModernClient(issuer, call, ctx, upstream, plain);
    }
    if (upstream.era !== 'modern') {
      const result = await call(ctx, upstream, wantsTask && taskEra(upstream) === 'legacy' ? params : plain);
      const task = result.task;
      if (!isRecord(task) || typeof task.taskId !== 'string') return result;
      const exposed = issue(issuer, ctx, upstream, task.taskId, task.ttl);
      return { ...result, task: { ...task, taskId: exposed } };
    }
    const caller = legacyClient ? withTasksDeclared(ctx, wantsTask) : ctx;
    const result = restoreTaskResult(await call(caller, upstream, plain));
    if (result.resultType === 'task' && typeof result.taskId === 'string') {
      const exposed = issue(issuer, caller, upstream, result.taskId, result.ttlMs);
      return legacyClient ? { task: legacyTaskOf(result, exposed) } : { ...result, taskId: exposed };
    }
    if (!wantsTask || result.resultType === 'input_required') return result;
    return hold(issuer, ctx, upstream, exposeToolResult(upstream, result), requested);
  };
}

/**
 * A 2026-07-28 client's call of a tool its 2025-11-25 upstream runs only as a task: made task-augmented;
 * the task's id is sealed and handed out as a 2026-07-28 `CreateTaskResult` when the request declares the
 * Tasks extension, else the gateway waits for its result. A retry (`requestState`) of a call that was
 * waiting answers what the task asked.
 */
async function taskForModernClient(
  issuer: TaskIssuer,
  call: UpstreamCaller,
  ctx: RequestContext,
  upstream: UpstreamConnection,
  plain: Record<string, unknown>,
): Promise<Record<string, unknown>> {
  const declared = declaresTasks(ctx.client);
  if (!declared && ctx.client?.requestState !== undefined) return continueAwaited(ctx, upstream, call);
  const created = await call(ctx, upstream, { ...plain, task: {} });
  const task = created.task;
  if (!isRecord(task) || typeof task.taskId !== 'string') return created;
  if (!declared) return awaitedResult(ctx, upstream, task.taskId, call);
  const exposed = issue(issuer, ctx, upstream, task.taskId, task.ttl);
  return { resultType: 'task', ...modernTaskOf(task, exposed) };
}

/** Whether a request declares the Tasks extension (a 2026-07-28 client takes tasks on that request). */
function declaresTasks(client: DownstreamClient | undefined): boolean {
  const extensions = client?.capabilities?.extensions;
  return isRecord(extensions) && isRecord(extensions[TASKS_EXTENSION_ID]);
}

/** Seals the id of a task `ctx`'s call created on `upstream`, and remembers whose it is. */
function issue(
  { seal, owners }: TaskIssuer,
  ctx: RequestContext,
  upstream: UpstreamConnection,
  taskId: string,
  ttl: unknown,
): string {
  const binding = {
    upstream: upstream.name,
    identity: ctx.identity.id,
    clientEra: eraOf(ctx),
    tool: toolOf(ctx),
    taskId,
  } as const;
  let exposedId: string;
  try {
    exposedId = seal.seal(binding);
  } catch (error) {
    if (!(error instanceof SealedTooLarge)) throw error;
    // An id too long to hand out would be one nobody could use: the call fails here, clearly.
    throw GatewayError.upstreamInvalidResult(
      upstream.name,
      'tools/call',
      `its task id is ${taskId.length} characters long, too long to hand out (${error.message})`,
    );
  }
  owners.add({ binding, exposedId }, typeof ttl === 'number' ? ttl : null);
  return exposedId;
}

/** A finished task the gateway holds for a 2025-11-25 client whose task-augmented call was answered at once. */
function hold(
  { seal, owners }: TaskIssuer,
  ctx: RequestContext,
  upstream: UpstreamConnection,
  result: Record<string, unknown>,
  requested: unknown,
): Record<string, unknown> {
  const wanted = isRecord(requested) && typeof requested.ttl === 'number' ? requested.ttl : HELD_TASK_TTL_MS;
  const held: HeldTask = {
    result,
    createdAt: new Date().toISOString(),
    ttlMs: Math.max(0, Math.min(wanted, HELD_TASK_TTL_MS)),
  };
  const binding = {
    upstream: upstream.name,
    identity: ctx.identity.id,
    clientEra: 'legacy',
    tool: toolOf(ctx),
    taskId: `held-${randomUUID()}`,
    local: true,
  } as const;
  const exposedId = seal.seal(binding);
  owners.add({ binding, exposedId, held }, held.ttlMs);
  return { task: heldTask(held, exposedId) };
}

/** A held task as a 2025-11-25 `Task`. */
export function heldTask(held: HeldTask, taskId: string): Record<string, unknown> {
  return {
    taskId,
    status: held.result.isError === true ? 'failed' : 'completed',
    createdAt: held.createdAt,
    lastUpdatedAt: held.createdAt,
    ttl: held.ttlMs,
  };
}

function toolOf(ctx: RequestContext): { exposed: string; name: string } {
  const target = ctx.target;
  const exposed = target?.exposed ?? String(ctx.params.name);
  return { exposed, name: target?.name ?? exposed };
}

/**
 * A 2025-11-25 client's call as a 2026-07-28 upstream should see it: the Tasks extension declared in the
 * client's capabilities exactly when the client asked for a task (a 2025 client knows nothing of it).
 */
function withTasksDeclared(ctx: RequestContext, declared: boolean): RequestContext {
  const client = ctx.client;
  const capabilities = (client?.capabilities ?? {}) as Record<string, unknown>;
  const extensions = isRecord(capabilities.extensions) ? capabilities.extensions : {};
  if (TASKS_EXTENSION_ID in extensions === declared) return ctx;
  const { [TASKS_EXTENSION_ID]: _dropped, ...others } = extensions;
  const next = declared ? { ...others, [TASKS_EXTENSION_ID]: {} } : others;
  const view: DownstreamClient = {
    era: 'legacy',
    ...client,
    capabilities: { ...capabilities, extensions: next },
  };
  return { ...ctx, client: view };
}
