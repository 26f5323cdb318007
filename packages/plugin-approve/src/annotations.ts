import { isRecord } from '@switchyard/core';
import { HINTS, type Hint } from './options.js';

/** The MCP defaults of the hints a tool leaves out (MCP `ToolAnnotations`). */
const DEFAULTS: Readonly<Record<Hint, boolean>> = {
  readOnlyHint: false,
  destructiveHint: true,
  idempotentHint: false,
  openWorldHint: true,
};

/** At most this many tools' annotations are kept per upstream (a listing beyond it is ignored past it). */
const MAX_TOOLS_PER_UPSTREAM = 10_000;

/**
 * The annotations of every tool the gateway has seen listed (its own index listings included), by
 * upstream and the upstream's own tool name: what an `annotations` rule is judged by.
 */
export class ToolAnnotations {
  readonly #byUpstream = new Map<string, Map<string, Readonly<Record<Hint, boolean>>>>();

  /** Records the tools of one `tools/list` page of `upstream`. */
  record(upstream: string, result: Record<string, unknown>): void {
    const tools = result.tools;
    if (!Array.isArray(tools)) return;
    let known = this.#byUpstream.get(upstream);
    if (!known) {
      known = new Map();
      this.#byUpstream.set(upstream, known);
    }
    for (const tool of tools) {
      if (!isRecord(tool) || typeof tool.name !== 'string') continue;
      if (known.size >= MAX_TOOLS_PER_UPSTREAM && !known.has(tool.name)) break;
      known.set(tool.name, effectiveHints(tool.annotations));
    }
  }

  /**
   * The hints of a tool, each with the MCP default where the tool leaves it out; all defaults for a tool
   * never listed (a destructive, open-world tool: the safe assumption).
   */
  of(upstream: string, name: string): Readonly<Record<Hint, boolean>> {
    return this.#byUpstream.get(upstream)?.get(name) ?? DEFAULTS;
  }

  /** Forgets an upstream's tools (it was removed). */
  forget(upstream: string): void {
    this.#byUpstream.delete(upstream);
  }
}

/**
 * A tool's hints with their defaults; `destructiveHint` means something only for a tool that is not
 * read-only (MCP), so a read-only tool is never destructive.
 */
export function effectiveHints(annotations: unknown): Readonly<Record<Hint, boolean>> {
  const given = isRecord(annotations) ? annotations : {};
  const hints = { ...DEFAULTS };
  for (const hint of HINTS) if (typeof given[hint] === 'boolean') hints[hint] = given[hint];
  if (hints.readOnlyHint) hints.destructiveHint = false;
  return hints;
}
