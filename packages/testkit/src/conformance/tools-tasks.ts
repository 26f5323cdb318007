import {
  type CallToolResult,
  type InputRequest,
  inputRequired,
  type McpServer,
  MissingRequiredClientCapabilityError,
  ProtocolError,
  ProtocolErrorCode,
  type ServerContext,
} from '@modelcontextprotocol/server';
import { delay } from '../delay.js';
import { ASK, acceptedString, declaredCapabilities } from './input-flows.js';
import { objectInput, stringProperty } from './schema.js';
import type { FixtureState } from './state.js';
import { type FixtureTask, legacyTask, modernTask, TASKS_EXTENSION_ID } from './task-store.js';

type Era = 'legacy' | 'modern';
type Args = Record<string, unknown>;
type Handler = (request: { params: Record<string, unknown> }, ctx: ServerContext) => Promise<unknown>;

/** A tool that runs as a task when the request allows it. */
interface TaskTool {
  /** `optional`: runs synchronously for a client that does not take tasks; `required`: refused then. */
  support: 'optional' | 'required';
  /** Multi round-trip input gathered before the task is created (an input-required result), else the job. */
  prepare?(ctx: ServerContext): InputRequest | undefined;
  job(args: Args, task: FixtureTask, ctx: ServerContext): Promise<CallToolResult>;
}

function text(value: string, isError = false): CallToolResult {
  return { content: [{ type: 'text', text: value }], ...(isError ? { isError } : {}) };
}

function seconds(args: Args): number {
  const value = args.seconds;
  return typeof value === 'number' && Number.isFinite(value) && value >= 0 ? Math.min(value, 600) : 0;
}

/** What slow_compute returns: the computation, and a link to a resource (a gateway exposes its URI). */
function computed(args: Args): CallToolResult {
  return {
    content: [
      { type: 'text', text: `Computed ${String(args.label ?? 'result')} after ${seconds(args)}s` },
      { type: 'resource_link', uri: 'test://static-text', name: 'static-text', mimeType: 'text/plain' },
    ],
  };
}

function confirmed(response: Record<string, unknown>): boolean {
  const content = response.content as Record<string, unknown> | undefined;
  return response.action === 'accept' && content?.confirm !== false;
}

const CONFIRM = (message: string): InputRequest =>
  inputRequired.elicit({
    message,
    requestedSchema: {
      type: 'object',
      properties: { confirm: { type: 'boolean' }, name: { type: 'string' } },
      required: ['confirm'],
    },
  });

/** The task-supporting tools the `tasks-*` scenarios (SEP-2663) expect, by name. */
const TASK_TOOLS: ReadonlyMap<string, TaskTool> = new Map<string, TaskTool>([
  [
    'slow_compute',
    {
      support: 'optional',
      job: async (args, task) => {
        await delay(seconds(args) * 1000, task.signal);
        return computed(args);
      },
    },
  ],
  [
    'failing_job',
    {
      support: 'required',
      job: async (_args, task) => {
        await delay(200, task.signal);
        return text('failing_job: the job ran and reported an error', true);
      },
    },
  ],
  [
    'protocol_error_job',
    {
      support: 'required',
      job: async (_args, task) => {
        await delay(100, task.signal);
        throw new ProtocolError(ProtocolErrorCode.InternalError, 'protocol_error_job crashed');
      },
    },
  ],
  [
    'confirm_delete',
    {
      support: 'required',
      job: async (args, task) => {
        const filename = String(args.filename ?? 'file');
        const answer = await task.ask(CONFIRM(`Delete ${filename}?`));
        return text(confirmed(answer) ? `Deleted ${filename}` : `Kept ${filename}`);
      },
    },
  ],
  [
    'multi_input',
    {
      support: 'required',
      job: async (_args, task) => {
        const answers = await Promise.all([
          task.ask(CONFIRM('First input?')),
          task.ask(CONFIRM('Second input?')),
        ]);
        const names = answers.map((a) => String((a.content as Args | undefined)?.name ?? a.action));
        return text(`Received ${names.join(', ')}`);
      },
    },
  ],
  [
    'test_tool_with_task',
    {
      support: 'required',
      // The user name is asked with an input-required result first; the task is created once it is known.
      prepare: (ctx) => (acceptedString(ctx, 'user_name', 'name') === undefined ? ASK.userName() : undefined),
      job: async (_args, task, ctx) => {
        const name = acceptedString(ctx, 'user_name', 'name') ?? 'stranger';
        await delay(100, task.signal);
        return text(`Hello, ${name}!`);
      },
    },
  ],
]);

/**
 * Runs the task-supporting tools as tasks when the request allows it: in the 2026-07-28 era when the
 * request declares the Tasks extension (SEP-2663; the server decides, here always), in the 2025-11-25 era
 * when it is task-augmented (`task`). A `required` tool refuses other requests: -32021 naming the extension
 * (2026-07-28), -32601 (2025-11-25). Call before any tool is registered (see {@link registerTaskTools}).
 */
export function runToolsAsTasks(mcp: McpServer, state: FixtureState, era: Era): void {
  interceptToolCalls(mcp, (original) => async (request, ctx) => {
    const name = String(request.params.name);
    const tool = TASK_TOOLS.get(name);
    if (tool === undefined) return original(request, ctx);
    const asTask =
      era === 'modern'
        ? declaredCapabilities(mcp, ctx).extensions?.[TASKS_EXTENSION_ID] !== undefined
        : typeof request.params.task === 'object' && request.params.task !== null;
    if (!asTask) {
      if (tool.support === 'optional') return original(request, ctx);
      if (era === 'modern') {
        throw new MissingRequiredClientCapabilityError(
          { requiredCapabilities: { extensions: { [TASKS_EXTENSION_ID]: {} } } },
          `Tool ${name} runs only as a task: declare the ${TASKS_EXTENSION_ID} extension in the request's client capabilities.`,
        );
      }
      throw new ProtocolError(
        ProtocolErrorCode.MethodNotFound,
        `Tool ${name} must be called as a task (execution.taskSupport is "required"): add params.task.`,
      );
    }
    const ask = tool.prepare?.(ctx);
    if (ask !== undefined) return inputRequired({ inputRequests: { user_name: ask } });
    const args = (request.params.arguments ?? {}) as Args;
    const ttl = (request.params.task as Args | undefined)?.ttl;
    const task = state.tasks.create(era, (t) => tool.job(args, t, ctx), ttl);
    if (era === 'legacy') {
      // 2025-11-25 receivers MAY push status changes to the requestor.
      task.onStatus((t) => {
        mcp.server
          .notification({ method: 'notifications/tasks/status', params: legacyTask(t) } as never)
          .catch(() => {});
      });
      // A tools/call result must carry content; a 2025 client reads the task from `task`.
      return { task: legacyTask(task), content: [] };
    }
    return { resultType: 'task', ...modernTask(task, false) };
  });
}

/** The tools of the tasks scenarios: `greet` (synchronous) and the task-supporting ones. */
export function registerTaskTools(mcp: McpServer): void {
  mcp.registerTool(
    'greet',
    {
      description: 'Greets synchronously (never a task)',
      inputSchema: objectInput({ name: stringProperty('Who') }),
    },
    (args: { name?: string }) => text(`Hello, ${args.name ?? 'World'}!`),
  );
  const slow = mcp.registerTool(
    'slow_compute',
    {
      description: 'Sleeps `seconds` then returns; a task when the client takes tasks',
      inputSchema: objectInput<Args>({
        seconds: { type: 'number', description: 'How long to work' },
        label: stringProperty('A label echoed in the result'),
      }),
    },
    async (args: Args, ctx) => {
      await delay(seconds(args) * 1000, ctx.mcpReq.signal);
      return computed(args);
    },
  );
  // `registerTool` takes no `execution`; tools/list lists what the registered tool carries.
  slow.execution = { taskSupport: 'optional' };
  const required: [string, string, ReturnType<typeof objectInput<Args>>][] = [
    ['failing_job', 'Runs as a task and reports a tool error', objectInput<Args>()],
    ['protocol_error_job', 'Runs as a task and fails with a JSON-RPC error', objectInput<Args>()],
    [
      'confirm_delete',
      'Runs as a task that asks for confirmation',
      objectInput<Args>({ filename: stringProperty('File') }),
    ],
    ['multi_input', 'Runs as a task that asks two questions at once', objectInput<Args>()],
    [
      'test_tool_with_task',
      'Asks for the user name (input required), then runs as a task',
      objectInput<Args>(),
    ],
  ];
  for (const [name, description, inputSchema] of required) {
    const tool = mcp.registerTool(name, { description, inputSchema }, () =>
      text(`${name} runs only as a task`, true),
    );
    tool.execution = { taskSupport: 'required' };
  }
}

/**
 * Puts `wrap` around the `tools/call` handler `McpServer` registers: its handler turns every error into a
 * tool error result, while a task-required tool must answer a JSON-RPC error, and the task-augmentation
 * param (`task`) is not passed on to tool callbacks. Installed before any tool is registered.
 */
function interceptToolCalls(mcp: McpServer, wrap: (original: Handler) => Handler): void {
  const server = mcp.server;
  const register = server.setRequestHandler.bind(server) as (...args: unknown[]) => void;
  (server as { setRequestHandler: unknown }).setRequestHandler = (...args: unknown[]) => {
    const [method, handler] = args;
    if (method === 'tools/call' && typeof handler === 'function' && args.length === 2) {
      register(method, wrap(handler as Handler));
      return;
    }
    register(...args);
  };
}
