import { type ParamHeaderDeclaration, scanParamHeaders } from '../param-headers/declarations.js';
import { paramHeaders } from '../param-headers/values.js';
import { asRecords } from '../payload.js';

/**
 * What one upstream's tools declare with `x-mcp-header` (SEP-2243), learned from the upstream's own
 * `tools/list` pages as they pass through its connection (the SDK client keeps them in its tools cache
 * the same way); kept across reconnects, replaced tool by tool as pages are listed again. The gateway
 * checks a modern client's `Mcp-Param-*` headers against them, and writes those headers on its own
 * calls to a modern Streamable HTTP upstream, which checks them in turn.
 */
export class ToolHeaders {
  readonly #byTool = new Map<string, readonly ParamHeaderDeclaration[]>();
  /** Whether calls carry the headers: only the Streamable HTTP transport has per-request headers. */
  readonly #mirror: boolean;

  constructor(mirror: boolean) {
    this.#mirror = mirror;
  }

  /** Notes every tool of a `tools/list` page: its declarations, or that it has none (any more). */
  learn(page: Record<string, unknown>): void {
    for (const tool of asRecords(page.tools)) {
      if (typeof tool?.name !== 'string') continue;
      // An invalid declaration (other than on a `number`) leaves the tool without any, as for the SDK's server.
      const { declarations } = scanParamHeaders(tool.inputSchema);
      if (declarations && declarations.length > 0) this.#byTool.set(tool.name, declarations);
      else this.#byTool.delete(tool.name);
    }
  }

  /** The declarations of the upstream's tool `name`, when it has any. */
  of(name: string): readonly ParamHeaderDeclaration[] | undefined {
    return this.#byTool.get(name);
  }

  /** The `Mcp-Param-*` headers of a modern `tools/call` with these params, when it needs any. */
  forCall(params: Record<string, unknown> | undefined): Record<string, string> | undefined {
    if (!this.#mirror || this.#byTool.size === 0 || typeof params?.name !== 'string') return undefined;
    const declarations = this.#byTool.get(params.name);
    if (declarations === undefined) return undefined;
    const headers = paramHeaders(declarations, params.arguments);
    return Object.keys(headers).length > 0 ? headers : undefined;
  }
}
