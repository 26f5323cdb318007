import type { SearchableTool } from './documents.js';
import { ToolSearchIndex } from './tool-index.js';

/** How long a burst of catalog changes (upstreams connecting, a list_changed storm) is gathered into one build. */
const REBUILD_DELAY_MS = 50;

/**
 * The catalog tool search ranks over: every upstream's tools as the gateway last listed them, and one
 * index built per change of it (never per request or per session). A change schedules a rebuild shortly
 * after (a burst of them, one); a search that comes first builds it then.
 */
export class SearchCatalog {
  readonly #byUpstream = new Map<string, readonly SearchableTool[]>();
  #index: ToolSearchIndex | undefined;
  #timer: NodeJS.Timeout | undefined;
  #builds = 0;

  /** `upstream`'s tools as clients see them (exposed names), replacing what it listed before. */
  update(upstream: string, tools: readonly Record<string, unknown>[]): void {
    this.#byUpstream.set(
      upstream,
      tools.map((tool) => searchable(upstream, tool)),
    );
    this.#changed();
  }

  /** Forgets the upstreams a reload removed. */
  retain(upstreams: ReadonlySet<string>): void {
    let changed = false;
    for (const name of [...this.#byUpstream.keys()]) {
      if (upstreams.has(name)) continue;
      this.#byUpstream.delete(name);
      changed = true;
    }
    if (changed) this.#changed();
  }

  /** The index of the catalog as it is now. */
  index(): ToolSearchIndex {
    if (!this.#index) {
      clearTimeout(this.#timer);
      this.#timer = undefined;
      this.#index = new ToolSearchIndex([...this.#byUpstream.values()].flat());
      this.#builds += 1;
    }
    return this.#index;
  }

  /** How many tools the catalog holds. */
  get size(): number {
    let n = 0;
    for (const tools of this.#byUpstream.values()) n += tools.length;
    return n;
  }

  /** How many indexes were built so far (each catalog change builds one, however many searches follow). */
  get builds(): number {
    return this.#builds;
  }

  close(): void {
    clearTimeout(this.#timer);
    this.#timer = undefined;
  }

  #changed(): void {
    this.#index = undefined;
    if (this.#timer) return;
    this.#timer = setTimeout(() => {
      this.#timer = undefined;
      this.index();
    }, REBUILD_DELAY_MS);
    this.#timer.unref?.();
  }
}

function searchable(server: string, tool: Record<string, unknown>): SearchableTool {
  const text = (value: unknown) => (typeof value === 'string' ? value : undefined);
  const annotations = tool.annotations as { title?: unknown } | undefined;
  return {
    name: String(tool.name),
    server,
    title: text(tool.title) ?? text(annotations?.title),
    description: text(tool.description),
    inputSchema: tool.inputSchema,
  };
}
