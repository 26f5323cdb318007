import { CANCELLATION, cancellationOf, signalOf } from '../cancellation.js';
import type { DownstreamClient, RequestContext } from '../context.js';
import { ErrorCode, GatewayError } from '../errors.js';
import { askClient } from '../interaction/fulfil.js';
import { isRecord } from '../payload.js';
import type { TaskBinding } from '../routing/task-ids.js';
import type { UpstreamConnection } from '../upstream/connection.js';
import { Deadline } from '../upstream/deadline.js';
import { originOf } from '../upstream/origin.js';
import { exposeToolResult } from './content.js';
import { isTerminal, pollDelayMs, relatedTo, withRelatedTask } from './task-wire.js';
import type { UpstreamCaller } from './upstream-caller.js';

/** A task as routed: what its exposed id stands for, its upstream, and the id the client knows. */
export interface TaskRoute {
  binding: TaskBinding;
  upstream: UpstreamConnection;
  exposed: string;
}

type Poll = (taskId: string) => Promise<Record<string, unknown>>;

/**
 * `tasks/result` of a 2025-11-25 task on a 2025-11-25 upstream: polled with `tasks/get` until it ends or
 * needs input, then asked for its result (which also carries the upstream's requests for input to this
 * client, with the task id exposed). A wait the upstream does not finish within its timeout goes back to
 * polling, so a long task never ties up one upstream request.
 */
export async function legacyResult(
  ctx: RequestContext,
  { binding, upstream, exposed }: TaskRoute,
  poll: Poll,
  call: UpstreamCaller,
): Promise<Record<string, unknown>> {
  const result = await untilResult(relaying(ctx, exposed), upstream, binding.taskId, poll, call);
  return relatedTo(exposeToolResult(upstream, result), exposed);
}

/**
 * The `tools/call` of a 2026-07-28 client that did not declare the Tasks extension, for a tool a 2025-11-25
 * upstream runs only as a task (task `taskId`, just created): the gateway waits for the task's result and
 * answers the call with it, within the call's timeout (the upstream's `timeoutMs`). What the task asks the
 * client becomes the call's input-required result, which the client's retry continues (the pending
 * `tasks/result` is a suspended call, see interaction/). A call given up, or out of time, cancels the task.
 */
export async function awaitedResult(
  ctx: RequestContext,
  upstream: UpstreamConnection,
  taskId: string,
  call: UpstreamCaller,
): Promise<Record<string, unknown>> {
  const timeoutMs = upstream.config.timeoutMs;
  const deadline = new Deadline(timeoutMs);
  const bounded = deadline.follow(cancellationOf(ctx));
  const waiting: RequestContext = {
    ...ctx,
    method: 'tasks/result',
    signal: signalOf(bounded),
    [CANCELLATION]: bounded,
  } as RequestContext;
  const poll: Poll = (id) =>
    upstream.request('tasks/get', { taskId: id }, { signal: bounded, origin: originOf(ctx) });
  try {
    return await untilResult(waiting, upstream, taskId, poll, call);
  } catch (error) {
    if (!bounded.aborted) throw error;
    // Nobody waits for the task any more: it stops upstream too (best effort, on its own time).
    upstream.request('tasks/cancel', { taskId }).catch(() => {});
    if (deadline.expired) throw GatewayError.upstreamTimeout(upstream.name, 'tools/call', timeoutMs);
    throw error;
  } finally {
    deadline.finish();
  }
}

/** The continuation of {@link awaitedResult}: the client's retry answers what the task asked. */
export function continueAwaited(
  ctx: RequestContext,
  upstream: UpstreamConnection,
  call: UpstreamCaller,
): Promise<Record<string, unknown>> {
  return call({ ...ctx, method: 'tasks/result' }, upstream, {});
}

/**
 * Polls a 2025-11-25 task until it ends or needs input, then asks for its result with `tasks/result`
 * (`ctx`'s method), which waits for the input too. A wait the upstream does not finish within its
 * timeout goes back to polling, so a long task never ties up one upstream request.
 */
async function untilResult(
  ctx: RequestContext,
  upstream: UpstreamConnection,
  taskId: string,
  poll: Poll,
  call: UpstreamCaller,
): Promise<Record<string, unknown>> {
  for (;;) {
    const task = await poll(taskId);
    if (isTerminal(task.status) || task.status === 'input_required') {
      try {
        return await call(ctx, upstream, { taskId });
      } catch (error) {
        const e = GatewayError.fromUnknown(error);
        if (e.reason !== 'upstream_timeout' || ctx.signal.aborted || isTerminal(task.status)) throw e;
      }
    }
    await pause(pollDelayMs(task, 'pollInterval'), ctx);
  }
}

/**
 * `tasks/result` of a 2025-11-25 client's task on a 2026-07-28 upstream (the Tasks extension has no such
 * method): `tasks/get` is polled at the task's own interval until it ends; its input requests are put to
 * the client as the 2025-11-25 revision does (requests related to the task, on this request's stream) and
 * the answers delivered with `tasks/update`. The answer is the tool result, or the task's JSON-RPC error.
 */
export async function bridgedResult(
  ctx: RequestContext,
  { upstream, exposed }: TaskRoute,
  poll: () => Promise<Record<string, unknown>>,
  update: (inputResponses: Record<string, unknown>) => Promise<unknown>,
): Promise<Record<string, unknown>> {
  const asked = new Set<string>();
  for (;;) {
    const task = await poll();
    if (task.status === 'completed') {
      return relatedTo(
        exposeToolResult(upstream, isRecord(task.result) ? task.result : { content: [] }),
        exposed,
      );
    }
    if (task.status === 'failed') throw taskFailure(task.error);
    if (task.status === 'cancelled') {
      throw GatewayError.invalidParams(`Task ${exposed} was cancelled; it has no result.`, {
        taskId: exposed,
      });
    }
    if (task.status === 'input_required' && isRecord(task.inputRequests)) {
      const fresh = Object.entries(task.inputRequests).filter(([key]) => !asked.has(key));
      if (fresh.length > 0) {
        const answers = await Promise.all(
          fresh.map(async ([key, request]) => {
            asked.add(key);
            return [key, await askFor(ctx.client, request, exposed, ctx.signal)] as const;
          }),
        );
        await update(Object.fromEntries(answers));
        continue;
      }
    }
    await pause(pollDelayMs(task, 'pollIntervalMs'), ctx);
  }
}

/** The request as the client sees it: the upstream's requests for input name the task by its exposed id. */
function relaying(ctx: RequestContext, exposed: string): RequestContext {
  const client = ctx.client;
  const request = client?.request;
  if (!client || !request) return ctx;
  return {
    ...ctx,
    client: {
      ...client,
      request: (method, params, options) => request(method, withRelatedTask(params, exposed), options),
    },
  };
}

/** One input request of a task, put to a 2025-11-25 client as its own request related to the task. */
function askFor(
  client: DownstreamClient | undefined,
  request: unknown,
  exposed: string,
  signal: AbortSignal,
): Promise<Record<string, unknown>> {
  const method = isRecord(request) && typeof request.method === 'string' ? request.method : '';
  const params = isRecord(request) && isRecord(request.params) ? request.params : {};
  const meta = isRecord(params._meta) ? params._meta : {};
  return askClient(client, method, relatedTo({ ...params, _meta: meta }, exposed), signal);
}

/** The JSON-RPC error a failed task carries, as the error of the request that waited for it. */
function taskFailure(error: unknown): GatewayError {
  const e = isRecord(error) ? error : {};
  const data = isRecord(e.data) ? e.data : e.data === undefined ? undefined : { detail: e.data };
  return new GatewayError(
    typeof e.code === 'number' ? e.code : ErrorCode.InternalError,
    typeof e.message === 'string' ? e.message : 'The task failed.',
    data,
  );
}

/** Waits before the next poll; a client that gives up ends the wait. */
function pause(ms: number, ctx: RequestContext): Promise<void> {
  return new Promise((resolve, reject) => {
    if (ctx.signal.aborted) return reject(GatewayError.aborted(ctx.method, ctx.signal.reason));
    const timer = setTimeout(() => {
      ctx.signal.removeEventListener('abort', stop);
      resolve();
    }, ms);
    const stop = () => {
      clearTimeout(timer);
      reject(GatewayError.aborted(ctx.method, ctx.signal.reason));
    };
    ctx.signal.addEventListener('abort', stop, { once: true });
  });
}
