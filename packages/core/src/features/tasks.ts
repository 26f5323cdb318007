import type { RequestContext, RequestTarget } from '../context.js';
import { eraOf } from '../downstream/era.js';
import { ErrorCode, GatewayError } from '../errors.js';
import type { ListKind, MergedListing } from '../listing/merged.js';
import { isRecord } from '../payload.js';
import type { TaskBinding } from '../routing/task-ids.js';
import type { HeldTask } from '../routing/task-owners.js';
import type { UpstreamConnection } from '../upstream/connection.js';
import { originOf } from '../upstream/origin.js';
import type { UpstreamPool } from '../upstream/pool.js';
import { exposeToolResult } from './content.js';
import type { Feature } from './feature.js';
import { heldTask, type TaskIssuer } from './task-calls.js';
import { bridgedResult, legacyResult, type TaskRoute } from './task-outcome.js';
import {
  isTerminal,
  legacyTaskOf,
  modernTaskOf,
  relatedTo,
  TASKS_EXTENSION_ID,
  unrelated,
} from './task-wire.js';
import { declaresTaskList, taskEra } from './tasks-capability.js';
import type { UpstreamCaller } from './upstream-caller.js';

export interface TasksDeps extends TaskIssuer {
  pool: UpstreamPool;
  listing: MergedListing;
  call: UpstreamCaller;
}

const TASK_METHODS = new Set(['tasks/get', 'tasks/result', 'tasks/cancel', 'tasks/update']);

/**
 * Tasks (the 2025-11-25 utility and the 2026-07-28 Tasks extension, SEP-2663): every method on a task is
 * routed by its exposed id, which names the upstream, the caller and the tool ({@link TaskIssuer}); an id
 * another caller created, or that this gateway never handed out, is "not found" alike (-32602). Each
 * client gets its own era's methods and shapes: `tasks/get`, `tasks/result`, `tasks/list` (merged over
 * the upstreams that list tasks, the caller's own only) and `tasks/cancel` for a 2025-11-25 client;
 * `tasks/get` (result inlined), `tasks/update` and `tasks/cancel` for a 2026-07-28 client that declares
 * the extension (-32021 otherwise). Tasks are bridged between the eras: a 2025-11-25 client's on a
 * 2026-07-28 upstream, and a 2026-07-28 client's on a 2025-11-25 upstream (no `tasks/update` there).
 */
export function tasksFeature(deps: TasksDeps): Feature {
  const { pool, listing, call, seal, owners } = deps;

  const served = (method: string): void => {
    if (pool.ordered.some((u) => taskEra(u) !== undefined)) return;
    throw new GatewayError(
      ErrorCode.MethodNotFound,
      `Method not found: ${method}. No upstream of this gateway runs tool calls as tasks.`,
    );
  };

  const route = (ctx: RequestContext): TaskRoute => {
    const exposed = ctx.params.taskId;
    if (typeof exposed !== 'string' || exposed.length === 0) {
      throw GatewayError.invalidParams(
        `${ctx.method} needs params.taskId: the task id a tools/call answered with.`,
      );
    }
    const binding = seal.open(exposed, ctx.identity.id);
    const upstream = binding && pool.get(binding.upstream);
    if (!binding || !upstream) throw taskNotFound(exposed);
    if (binding.clientEra !== eraOf(ctx)) {
      throw GatewayError.invalidParams(
        `Task ${exposed} was created by a ${revision(binding.clientEra)} client; use it with that protocol revision.`,
        { reason: 'task_not_found', taskId: exposed },
      );
    }
    ctx.target ??= toolTarget(binding);
    return { binding, upstream, exposed };
  };

  /** Sends one tasks request upstream; a 2026-07-28 upstream is told the caller takes tasks. */
  const send = (
    ctx: RequestContext,
    upstream: UpstreamConnection,
    method: string,
    params: Record<string, unknown>,
  ) =>
    upstream.request(method, params, {
      signal: ctx.signal,
      origin: originOf(ctx),
      envelope: { 'io.modelcontextprotocol/clientCapabilities': declaringTasks(ctx) },
    });

  const modernOnly = (ctx: RequestContext): void => {
    if (eraOf(ctx) === 'legacy') throw notInRevision(ctx.method, '2025-11-25');
    const extensions = ctx.client?.capabilities?.extensions;
    if (!isRecord(extensions) || !isRecord(extensions[TASKS_EXTENSION_ID])) throw missingExtension();
  };
  const legacyOnly = (ctx: RequestContext): void => {
    if (eraOf(ctx) === 'modern') throw notInRevision(ctx.method, '2026-07-28');
  };
  const gate = (ctx: RequestContext): void => (eraOf(ctx) === 'modern' ? modernOnly(ctx) : undefined);

  const get = async (ctx: RequestContext) => {
    served(ctx.method);
    gate(ctx);
    const taskRoute = route(ctx);
    const { binding, upstream, exposed } = taskRoute;
    if (binding.local) return heldTask(held(binding, exposed), exposed);
    const task = await send(ctx, upstream, 'tasks/get', { taskId: binding.taskId });
    if (upstream.era !== 'modern' && binding.clientEra === 'modern') return detailed(ctx, taskRoute, task);
    if (upstream.era !== 'modern') return { ...task, taskId: exposed };
    if (binding.clientEra === 'legacy') return legacyTaskOf(task, exposed);
    return isRecord(task.result)
      ? { ...task, taskId: exposed, result: exposeToolResult(upstream, task.result) }
      : { ...task, taskId: exposed };
  };

  const result = async (ctx: RequestContext) => {
    served(ctx.method);
    legacyOnly(ctx);
    const taskRoute = route(ctx);
    const { binding, upstream, exposed } = taskRoute;
    if (binding.local) return relatedTo(held(binding, exposed).result, exposed);
    const poll = (taskId: string) => send(ctx, upstream, 'tasks/get', { taskId });
    if (upstream.era === 'modern') {
      const update = (inputResponses: Record<string, unknown>) =>
        send(ctx, upstream, 'tasks/update', { taskId: binding.taskId, inputResponses });
      return bridgedResult(ctx, taskRoute, () => poll(binding.taskId), update);
    }
    return legacyResult(ctx, taskRoute, poll, call);
  };

  const cancel = async (ctx: RequestContext) => {
    served(ctx.method);
    gate(ctx);
    const { binding, upstream, exposed } = route(ctx);
    const taskId = binding.taskId;
    if (binding.local) {
      const { status } = heldTask(held(binding, exposed), exposed);
      throw GatewayError.invalidParams(`Cannot cancel task ${exposed}: it is already ${String(status)}.`);
    }
    if (upstream.era !== 'modern' && binding.clientEra === 'modern') {
      await send(ctx, upstream, 'tasks/cancel', { taskId });
      return {}; // the extension's acknowledgement
    }
    if (upstream.era !== 'modern')
      return { ...(await send(ctx, upstream, 'tasks/cancel', { taskId })), taskId: exposed };
    if (binding.clientEra === 'modern') return send(ctx, upstream, 'tasks/cancel', { taskId });
    // A 2025-11-25 client: a task that ended cannot be cancelled, and the answer is the task as it is now.
    const before = await send(ctx, upstream, 'tasks/get', { taskId });
    if (isTerminal(before.status)) {
      throw GatewayError.invalidParams(
        `Cannot cancel task ${exposed}: it is already ${String(before.status)}.`,
      );
    }
    await send(ctx, upstream, 'tasks/cancel', { taskId });
    return legacyTaskOf(await send(ctx, upstream, 'tasks/get', { taskId }), exposed);
  };

  const update = async (ctx: RequestContext) => {
    served(ctx.method);
    modernOnly(ctx);
    const { binding, upstream, exposed } = route(ctx);
    if (upstream.era !== 'modern') throw inputNotDeliverable(exposed);
    // The SDK hands a request's `inputResponses` over apart from its params (as on a multi round-trip retry).
    const inputResponses = ctx.params.inputResponses ?? ctx.client?.inputResponses;
    if (!isRecord(inputResponses)) {
      throw GatewayError.invalidParams(
        'tasks/update needs params.inputResponses: {<input request key>: <response>}.',
      );
    }
    return send(ctx, upstream, 'tasks/update', { taskId: binding.taskId, inputResponses });
  };

  /**
   * A 2026-07-28 client's task on a 2025-11-25 upstream as the extension's `tasks/get` answers it: an ended
   * task's outcome is read with `tasks/result` and inlined (a tool result, `isError` included, is
   * `completed`; a JSON-RPC error is `failed`), without the upstream's related-task `_meta`.
   */
  const detailed = async (
    ctx: RequestContext,
    { binding, upstream, exposed }: TaskRoute,
    task: Record<string, unknown>,
  ): Promise<Record<string, unknown>> => {
    const modern = modernTaskOf(task, exposed);
    if (task.status === 'input_required') return { ...modern, inputRequests: {} };
    if (task.status !== 'completed' && task.status !== 'failed') return modern;
    try {
      const result = await send(ctx, upstream, 'tasks/result', { taskId: binding.taskId });
      return { ...modern, status: 'completed', result: exposeToolResult(upstream, unrelated(result)) };
    } catch (error) {
      const e = GatewayError.fromUnknown(error);
      // The gateway's own failures (unavailable, timed out) and a task the upstream forgot stay errors.
      if (e.data?.upstream === undefined || e.reason !== undefined || e.code === ErrorCode.InvalidParams)
        throw e;
      const failure = { code: e.code, message: e.message, ...(e.data === undefined ? {} : { data: e.data }) };
      const seen = JSON.parse(JSON.stringify(failure).replaceAll(binding.taskId, exposed)) as unknown;
      return { ...modern, status: 'failed', error: seen };
    }
  };

  /**
   * The caller's tasks no upstream lists: those the gateway holds itself, and those bridged onto 2026-07-28
   * upstreams (the extension has no `tasks/list`), each as it is now; one its upstream no longer knows, or
   * cannot answer for, is left out. Only what this instance handed out is known (`task-owners.ts`).
   */
  const gatewayListed = async (ctx: RequestContext): Promise<Record<string, unknown>[]> => {
    const tasks = owners.ownedBy(ctx.identity.id).filter(({ binding, held }) => {
      if (binding.clientEra !== 'legacy' || !visibleAt(ctx, binding)) return false;
      return held !== undefined || pool.get(binding.upstream)?.era === 'modern';
    });
    const settled = await Promise.allSettled(
      tasks.map(async ({ binding, exposedId, held }) => {
        if (held) return heldTask(held, exposedId);
        const upstream = pool.require(binding.upstream);
        return legacyTaskOf(await send(ctx, upstream, 'tasks/get', { taskId: binding.taskId }), exposedId);
      }),
    );
    return settled.flatMap((outcome) => (outcome.status === 'fulfilled' ? [outcome.value] : []));
  };

  const list = async (ctx: RequestContext) => {
    served(ctx.method);
    legacyOnly(ctx);
    // Per request: an upstream lists every task of the gateway's connection, the caller sees its own.
    const kind: ListKind = {
      method: 'tasks/list',
      field: 'tasks',
      cursorKind: 'k',
      feature: declaresTaskList,
      expose(upstream, item) {
        const owned = owners.owner(upstream.name, item.taskId);
        if (owned?.binding.identity !== ctx.identity.id || owned.binding.clientEra !== 'legacy')
          return undefined;
        if (!visibleAt(ctx, owned.binding)) return undefined;
        return { ...item, taskId: owned.exposedId };
      },
    };
    const first = ctx.params.cursor === undefined || ctx.params.cursor === null;
    const [page, own] = await Promise.all([listing.list(kind, ctx), first ? gatewayListed(ctx) : []]);
    return own.length === 0 ? page : { ...page, tasks: [...(page.tasks as unknown[]), ...own] };
  };

  /** A task the gateway holds itself (kept by the instance that created it, for its TTL). */
  const held = (binding: TaskBinding, exposed: string): HeldTask => {
    const owned = owners.owner(binding.upstream, binding.taskId);
    if (!owned?.held) throw taskNotFound(exposed);
    return owned.held;
  };

  /**
   * An upstream's error about a task, as its caller may see it: one the upstream answers a task id with
   * alone (`tasks/get`, `tasks/result`, `tasks/cancel`: invalid params) is that it no longer knows the task
   * (it restarted), the gateway's own `task_not_found`; and no error shows the upstream's own task id,
   * which the sealed id exists to keep from the caller.
   */
  const asSeen =
    (handler: (ctx: RequestContext) => Promise<Record<string, unknown>>) => async (ctx: RequestContext) => {
      try {
        return await handler(ctx);
      } catch (error) {
        const e = GatewayError.fromUnknown(error);
        const exposed = ctx.params.taskId;
        const binding =
          typeof exposed === 'string' && e.data?.upstream !== undefined
            ? seal.open(exposed, ctx.identity.id)
            : undefined;
        if (!binding || typeof exposed !== 'string') throw e;
        if (e.code === ErrorCode.InvalidParams && ctx.method !== 'tasks/update') throw taskNotFound(exposed);
        const hide = (text: string) => text.replaceAll(binding.taskId, exposed);
        const data =
          e.data === undefined ? undefined : (JSON.parse(hide(JSON.stringify(e.data))) as typeof e.data);
        throw new GatewayError(e.code, hide(e.message), data);
      }
    };

  return {
    handlers: {
      'tasks/get': asSeen(get),
      'tasks/result': asSeen(result),
      'tasks/list': list,
      'tasks/cancel': asSeen(cancel),
      'tasks/update': asSeen(update),
    },
    target(ctx): RequestTarget | undefined {
      if (!TASK_METHODS.has(ctx.method)) return undefined;
      const binding = seal.open(ctx.params.taskId, ctx.identity.id);
      return binding && toolTarget(binding);
    },
  };
}

/** A task's methods are routed, and judged, as the tool call that created it. */
function toolTarget(binding: TaskBinding): RequestTarget {
  return { kind: 'tool', upstream: binding.upstream, name: binding.tool.name, exposed: binding.tool.exposed };
}

function revision(era: 'legacy' | 'modern'): string {
  return era === 'legacy' ? '2025-11-25' : '2026-07-28';
}

/** The caller's capabilities with the Tasks extension declared (it uses tasks, whatever its era). */
function declaringTasks(ctx: RequestContext): Record<string, unknown> {
  const capabilities = (ctx.client?.capabilities ?? {}) as Record<string, unknown>;
  const extensions = isRecord(capabilities.extensions) ? capabilities.extensions : {};
  return { ...capabilities, extensions: { ...extensions, [TASKS_EXTENSION_ID]: {} } };
}

export function taskNotFound(taskId: string): GatewayError {
  return GatewayError.invalidParams(
    `Task not found: ${taskId}. Use a task id a tools/call of this client answered with (tasks expire after their ttl).`,
    { reason: 'task_not_found', taskId },
  );
}

/** `tasks/update` of a task on a 2025-11-25 upstream, which takes a task's input only as its own requests. */
function inputNotDeliverable(taskId: string): GatewayError {
  return GatewayError.invalidParams(
    `Task ${taskId} runs on a 2025-11-25 upstream, which asks for a task's input with requests of its own that only a waiting call can answer; tasks/update cannot deliver input to it. Call the tool without declaring the ${TASKS_EXTENSION_ID} extension: the gateway then waits for the task and puts its questions to you as an input-required result.`,
    { reason: 'task_input_unsupported', taskId },
  );
}

function missingExtension(): GatewayError {
  return new GatewayError(
    ErrorCode.MissingRequiredClientCapability,
    `Missing required client capability: declare the ${TASKS_EXTENSION_ID} extension (in the request's client capabilities) to use tasks.`,
    { requiredCapabilities: { extensions: { [TASKS_EXTENSION_ID]: {} } } },
  );
}

function notInRevision(method: string, era: string): GatewayError {
  return new GatewayError(
    ErrorCode.MethodNotFound,
    `Method not found: ${method} is not part of tasks in protocol revision ${era}.`,
  );
}

/**
 * Whether the caller's endpoint shows the tool that created a task: a virtual server lists no task of a
 * tool it hides, as its `tasks/get` of one is "not found" (DESIGN §13).
 */
function visibleAt(ctx: RequestContext, binding: TaskBinding): boolean {
  const view = ctx.view;
  return view === undefined || view.whole || view.tool(binding.tool.exposed, binding.upstream);
}
