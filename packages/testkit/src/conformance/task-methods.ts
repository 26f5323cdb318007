import {
  type McpServer,
  MissingRequiredClientCapabilityError,
  ProtocolError,
  ProtocolErrorCode,
  type ServerContext,
  type StandardSchemaV1,
} from '@modelcontextprotocol/server';
import { declaredCapabilities } from './input-flows.js';
import type { FixtureState } from './state.js';
import {
  type FixtureTask,
  legacyTask,
  modernTask,
  RELATED_TASK_META_KEY,
  TASKS_EXTENSION_ID,
} from './task-store.js';

type Params = Record<string, unknown>;

/** Params of the tasks methods: an object; each handler checks the fields it reads. */
const PARAMS: StandardSchemaV1<Params> = {
  '~standard': {
    version: 1,
    vendor: 'switchyard-testkit',
    validate: (value) =>
      typeof value === 'object' && value !== null && !Array.isArray(value)
        ? { value: value as Params }
        : { issues: [{ message: 'params must be an object' }] },
  },
};

const PAGE_SIZE = 50;

function notFound(taskId: unknown): ProtocolError {
  return new ProtocolError(
    ProtocolErrorCode.InvalidParams,
    `Failed to retrieve task: Task not found (${String(taskId)})`,
  );
}

/**
 * The tasks methods of each era. 2025-11-25 (the tasks utility): `tasks/get`, the blocking `tasks/result`
 * (which also carries the task's requests to the client, with the related-task `_meta`), `tasks/list` and
 * `tasks/cancel` (refused for a task that has ended). 2026-07-28 (the Tasks extension, SEP-2663):
 * `tasks/get` with the result, error or input requests inlined, `tasks/update` delivering input responses,
 * and `tasks/cancel` acknowledging with an empty result; each refused with -32021 when the request does not
 * declare the extension. Unknown task ids are -32602 in both.
 */
export function registerTaskMethods(mcp: McpServer, state: FixtureState, era: 'legacy' | 'modern'): void {
  const server = mcp.server;
  const lookup = (params: Params): FixtureTask => {
    const task = state.tasks.get(params.taskId);
    if (task === undefined) throw notFound(params.taskId);
    return task;
  };

  if (era === 'legacy') {
    server.setRequestHandler(
      'tasks/get',
      { params: PARAMS },
      (params) => legacyTask(lookup(params)) as never,
    );
    server.setRequestHandler(
      'tasks/result',
      { params: PARAMS },
      async (params, ctx) => legacyResult(lookup(params), ctx) as never,
    );
    server.setRequestHandler('tasks/list', { params: PARAMS }, (params) => {
      const all = state.tasks.all();
      const start = typeof params.cursor === 'string' ? Number.parseInt(params.cursor, 10) : 0;
      if (!Number.isInteger(start) || start < 0 || start > all.length) {
        throw new ProtocolError(ProtocolErrorCode.InvalidParams, 'Invalid cursor');
      }
      const page = all.slice(start, start + PAGE_SIZE);
      const next = start + PAGE_SIZE < all.length ? { nextCursor: String(start + PAGE_SIZE) } : {};
      return { tasks: page.map(legacyTask), ...next } as never;
    });
    server.setRequestHandler('tasks/cancel', { params: PARAMS }, (params) => {
      const task = lookup(params);
      if (task.terminal) {
        throw new ProtocolError(
          ProtocolErrorCode.InvalidParams,
          `Cannot cancel task: already in terminal status '${task.status}'`,
        );
      }
      task.cancel();
      return legacyTask(task) as never;
    });
    return;
  }

  const gate = (ctx: ServerContext): void => {
    if (declaredCapabilities(mcp, ctx).extensions?.[TASKS_EXTENSION_ID] !== undefined) return;
    throw new MissingRequiredClientCapabilityError(
      { requiredCapabilities: { extensions: { [TASKS_EXTENSION_ID]: {} } } },
      `Missing required client capability: declare the ${TASKS_EXTENSION_ID} extension to use tasks.`,
    );
  };
  server.setRequestHandler('tasks/get', { params: PARAMS }, (params, ctx) => {
    gate(ctx);
    return { resultType: 'complete', ...modernTask(lookup(params), true) } as never;
  });
  server.setRequestHandler('tasks/update', { params: PARAMS }, (params, ctx) => {
    gate(ctx);
    // The SDK lifts `inputResponses` out of the params a handler sees (as on a multi round-trip retry).
    const responses = ctx.mcpReq.inputResponses ?? params.inputResponses;
    lookup(params).answer(
      typeof responses === 'object' && responses !== null ? (responses as Params) : undefined,
    );
    return { resultType: 'complete' } as never;
  });
  server.setRequestHandler('tasks/cancel', { params: PARAMS }, (params, ctx) => {
    gate(ctx);
    lookup(params).cancel(); // idempotent: a task that has ended stays as it ended
    return { resultType: 'complete' } as never;
  });
}

/**
 * `tasks/result` (2025-11-25): waits for the task to end, meanwhile sending each of its input requests to
 * the client on this request's own stream, then answers exactly what the tool call would have.
 */
async function legacyResult(task: FixtureTask, ctx: ServerContext): Promise<Params> {
  const related = { [RELATED_TASK_META_KEY]: { taskId: task.taskId } };
  const signal = ctx.mcpReq.signal;
  while (!task.terminal) {
    if (signal.aborted)
      throw new ProtocolError(ProtocolErrorCode.InternalError, 'tasks/result was cancelled');
    for (const [key, pending] of task.pending) {
      if (pending.sent) continue;
      pending.sent = true;
      const { method, params } = pending.request;
      ctx.mcpReq
        .send(
          { method, params: { ...params, _meta: { ...(params?._meta as Params), ...related } } } as never,
          { signal },
        )
        .then(
          (response) => task.answer({ [key]: response as Params }),
          () => {
            pending.sent = false;
          },
        );
    }
    await task.changed(signal);
  }
  if (task.status === 'failed' && task.error) {
    throw new ProtocolError(task.error.code, task.error.message, task.error.data);
  }
  if (task.status === 'cancelled') {
    throw new ProtocolError(
      ProtocolErrorCode.InvalidParams,
      `Task ${task.taskId} was cancelled; it has no result.`,
    );
  }
  const result = task.result ?? { content: [] };
  return { ...result, _meta: { ...result._meta, ...related } };
}
