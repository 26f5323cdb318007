import type { Tool } from '@modelcontextprotocol/server';
import { PNG_1X1 } from './catalog.js';
import {
  BEHAVIOR_TOOL_NAMES,
  type BehaviorToolName,
  isBehaviorToolName,
  type ResolvedTestServerOptions,
} from './options.js';

/** What serves a call of a listed tool: the echo handler, or one of the behaviour tools. */
export type ToolBehavior = 'echo' | BehaviorToolName;

export interface ToolEntry {
  tool: Tool;
  behavior: ToolBehavior;
}

const ICON: NonNullable<Tool['icons']>[number] = {
  src: `data:image/png;base64,${PNG_1X1}`,
  mimeType: 'image/png',
  sizes: ['1x1'],
};

const ECHO_INPUT_SCHEMA: Tool['inputSchema'] = {
  type: 'object',
  properties: { text: { type: 'string', description: 'Any text; every argument is echoed back' } },
  additionalProperties: true,
};

const ECHO_OUTPUT_SCHEMA: NonNullable<Tool['outputSchema']> = {
  type: 'object',
  properties: { tool: { type: 'string' }, arguments: { type: 'object' } },
  required: ['tool', 'arguments'],
};

/** An echo tool's definition: generated tools carry `_meta['testkit/index']`, named ones do not. */
function echoTool(name: string, title: string, index?: number): Tool {
  return {
    name,
    title,
    description: `Echoes its arguments (testkit tool '${name}')`,
    inputSchema: ECHO_INPUT_SCHEMA,
    outputSchema: ECHO_OUTPUT_SCHEMA,
    annotations: { readOnlyHint: true },
    icons: [ICON],
    ...(index === undefined ? {} : { _meta: { 'testkit/index': index } }),
  };
}

type SchemaProperties = NonNullable<Tool['inputSchema']['properties']>;

function objectSchema(properties: SchemaProperties = {}, required?: string[]): Tool['inputSchema'] {
  return { type: 'object', properties, ...(required === undefined ? {} : { required }) };
}

const text = (description: string) => ({ type: 'string', description });

/** The definitions of the behaviour tools (`behaviorTools: true`); see `TestServerOptions.behaviorTools`. */
const BEHAVIOR_TOOLS: Record<BehaviorToolName, Tool> = {
  echo: echoTool('echo', 'Echo'),
  slow: {
    name: 'slow',
    title: 'Slow',
    description: 'Waits ms milliseconds (cancellable), sending steps progress notifications when asked',
    inputSchema: objectSchema(
      {
        ms: { type: 'number', minimum: 0, description: 'How long to take' },
        steps: { type: 'integer', minimum: 1, description: 'Progress notifications to send (default 4)' },
      },
      ['ms'],
    ),
  },
  fail: {
    name: 'fail',
    title: 'Fail',
    description: 'Returns a tool error (isError: true)',
    inputSchema: objectSchema({ message: text('Text of the error') }),
  },
  throw: {
    name: 'throw',
    title: 'Throw',
    description: 'Answers a JSON-RPC error -32602, as an upstream that judges the arguments invalid',
    inputSchema: objectSchema(),
  },
  link: {
    name: 'link',
    title: 'Link',
    description: 'Returns a resource_link to resource 0 and the same resource embedded',
    inputSchema: objectSchema(),
  },
  elicit: {
    name: 'elicit',
    title: 'Elicit',
    description: 'Asks the client for an answer (form elicitation) and returns the elicitation result',
    inputSchema: objectSchema({ message: text('What to ask') }),
  },
  sample: {
    name: 'sample',
    title: 'Sample',
    description: 'Asks the client to sample a completion of prompt and returns the sampled text',
    inputSchema: objectSchema({ prompt: text('The user message to sample from') }),
  },
  roots: {
    name: 'roots',
    title: 'Roots',
    description: 'Asks the client for its roots and returns them as JSON',
    inputSchema: objectSchema(),
  },
  log: {
    name: 'log',
    title: 'Log',
    description: 'Sends a notifications/message related to the call, then returns',
    inputSchema: objectSchema({ message: text('The log message data') }),
  },
};

/**
 * The tools of a test server, in listing order: generated `tool_0 … tool_{n-1}`, the named echo tools, then
 * the behaviour tools. Reads the live options object, so `setToolCount` takes effect at once.
 */
export class ToolCatalog {
  readonly #options: ResolvedTestServerOptions;

  constructor(options: ResolvedTestServerOptions) {
    this.#options = options;
  }

  get count(): number {
    const o = this.#options;
    return o.tools + o.toolNames.length + (o.behaviorTools ? BEHAVIOR_TOOL_NAMES.length : 0);
  }

  /** The definition of the tool at listing position `index` (0 ≤ index < count). */
  at(index: number): Tool {
    const { tools, toolNames } = this.#options;
    if (index < tools) return echoTool(`tool_${index}`, `Tool ${index}`, index);
    const named = toolNames[index - tools];
    if (named !== undefined) return echoTool(named, named);
    const behavior = BEHAVIOR_TOOL_NAMES[index - tools - toolNames.length];
    if (behavior === undefined) throw new RangeError(`no tool at ${index}`);
    return BEHAVIOR_TOOLS[behavior];
  }

  /** The tool called `name` and what serves it, or undefined when no such tool is listed now. */
  find(name: string): ToolEntry | undefined {
    const o = this.#options;
    const generated = /^tool_(0|[1-9]\d{0,9})$/.exec(name);
    if (generated?.[1] !== undefined && Number(generated[1]) < o.tools) {
      return { tool: echoTool(name, `Tool ${generated[1]}`, Number(generated[1])), behavior: 'echo' };
    }
    if (o.toolNames.includes(name)) return { tool: echoTool(name, name), behavior: 'echo' };
    if (o.behaviorTools && isBehaviorToolName(name)) return { tool: BEHAVIOR_TOOLS[name], behavior: name };
    return undefined;
  }
}
