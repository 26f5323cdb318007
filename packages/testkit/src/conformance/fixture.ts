import { type CacheHint, McpServer } from '@modelcontextprotocol/server';
import { TESTKIT_VERSION } from '../server.js';
import { registerPrompts } from './prompts.js';
import { registerResources } from './resources.js';
import type { FixtureState } from './state.js';
import { registerTaskMethods } from './task-methods.js';
import { TASKS_EXTENSION_ID } from './task-store.js';
import { registerBehaviourTools } from './tools-behaviour.js';
import { registerClientInputTools } from './tools-client-input.js';
import { registerContentTools } from './tools-content.js';
import { registerMultiRoundTools } from './tools-multi-round.js';
import { registerTaskTools, runToolsAsTasks } from './tools-tasks.js';

export type FixtureEra = 'legacy' | 'modern';

/** Cache hints for the 2026-07-28 cacheable results (ignored on 2025 responses). */
const CACHE_HINT: CacheHint = { ttlMs: 60_000, cacheScope: 'public' };

/**
 * Builds one instance of the conformance fixture: every tool, prompt and resource the official MCP
 * conformance suite's server scenarios expect of a correct server, for either wire era. Instances of one
 * fixture share `state` (list-change announcements, subscriptions, the requestState key, the skills catalog,
 * the tasks).
 *
 * @example
 * const state = await FixtureState.create();
 * const server = createConformanceServer(state, 'legacy');
 * await server.connect(transport);
 */
export function createConformanceServer(
  state: FixtureState,
  era: FixtureEra,
  name = 'conformance-fixture',
): McpServer {
  const mcp = new McpServer(
    { name, version: TESTKIT_VERSION },
    {
      capabilities: {
        // `tools` ({ listChanged: true }) comes with the first registered tool: declared here, the SDK would
        // install its tools/call handler before the tasks tools can wrap it.
        prompts: { listChanged: true },
        resources: { subscribe: true, listChanged: true },
        logging: {},
        // Tasks: the 2025-11-25 utility on 2025 sessions, the SEP-2663 extension in the 2026-07-28 era.
        ...(era === 'legacy'
          ? { tasks: { list: {}, cancel: {}, requests: { tools: { call: {} } } } }
          : { extensions: { [TASKS_EXTENSION_ID]: {} } }),
      },
      cacheHints: {
        'tools/list': CACHE_HINT,
        'prompts/list': CACHE_HINT,
        'resources/list': CACHE_HINT,
        'resources/templates/list': CACHE_HINT,
        'resources/read': CACHE_HINT,
      },
      requestState: { verify: (value, ctx) => state.requestState.verify(value, ctx) },
    },
  );
  // First: it wraps the tools/call handler the first registered tool installs.
  runToolsAsTasks(mcp, state, era);
  registerTaskMethods(mcp, state, era);
  registerContentTools(mcp);
  registerBehaviourTools(mcp, state);
  registerClientInputTools(mcp);
  registerMultiRoundTools(mcp, state);
  registerTaskTools(mcp);
  registerPrompts(mcp);
  registerResources(mcp, state, era);
  state.skills?.attach(mcp);
  return mcp;
}
