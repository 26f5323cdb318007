import type { RequestContext } from '../../context.js';
import type { SearchCatalog } from '../../search/search-catalog.js';
import type { Feature, MethodHandler } from '../feature.js';
import type { CallerTools } from './caller-tools.js';
import { gatewayTools, searchArguments } from './gateway-tools.js';
import { callsSearchTools, searchModeOf } from './search-mode.js';

export interface ToolSearchDeps {
  /** The whole catalog, indexed once per change of it. */
  catalog: SearchCatalog;
  /** What each caller may use on its endpoint. */
  callers: CallerTools;
}

/** The fields of a tool `search_tools` returns (DESIGN §13). */
const SHOWN = ['name', 'title', 'description', 'inputSchema', 'annotations'] as const;

/**
 * Tool search (DESIGN §13) on the tools feature: on an endpoint that searches, `tools/list` answers the
 * `alwaysList` tools and the gateway's `search_tools` and `call_tool`, and a `tools/call` of
 * `search_tools` is answered here, ranked over the whole catalog and filtered to what the caller may
 * use. (`call_tool` becomes the call it names before the plugins run: see `unwrapCallTool`.)
 */
export function withToolSearch(tools: Feature, { catalog, callers }: ToolSearchDeps): Feature {
  const list = tools.handlers['tools/list'] as MethodHandler;
  const call = tools.handlers['tools/call'] as MethodHandler;

  const listed = async (ctx: RequestContext) => {
    const search = searchModeOf(ctx);
    if (!search) return list(ctx);
    const usable = await callers.of(ctx);
    // Each once (a name a list holds twice is one tool), and never a shadowed gateway tool's name.
    const always = [...new Set(search.alwaysList)].flatMap((name) => {
      const tool = usable.get(name);
      return tool ? [tool] : [];
    });
    return { tools: [...always, ...gatewayTools(usable.size)] };
  };

  const searched = async (ctx: RequestContext) => {
    const search = searchModeOf(ctx);
    if (!search || !callsSearchTools(ctx)) return call(ctx);
    const { query, limit } = searchArguments(ctx.params.arguments, search.limit);
    const usable = await callers.of(ctx);
    const hits = catalog.index().search(query, { limit, visible: (name) => usable.has(name) });
    const found = hits.flatMap((hit) => {
      const tool = usable.get(hit.name);
      return tool ? [shown(tool)] : [];
    });
    return {
      content: [{ type: 'text', text: JSON.stringify({ tools: found }) }],
      structuredContent: { tools: found },
    };
  };

  return {
    ...tools,
    handlers: { ...tools.handlers, 'tools/list': listed, 'tools/call': searched },
  };
}

function shown(tool: Record<string, unknown>): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  for (const key of SHOWN) if (tool[key] !== undefined) out[key] = tool[key];
  return out;
}
