import {
  type CurationConfig,
  EVERYTHING,
  globToRegExp,
  type NameFilter,
  nameFilter,
} from '../naming/curation.js';
import { uriFilter } from '../naming/uri-curation.js';
import type { ListedKind } from '../notify/list-changed.js';

/** Tool search on an endpoint (DESIGN §13): `tools/list` answers these tools plus the gateway's two. */
export interface ToolSearchConfig {
  /** Whether `tools/list` answers in search mode. */
  readonly enabled: boolean;
  /** How many tools `search_tools` returns when the caller names no `limit` (1..20). */
  readonly limit: number;
  /** Exposed tool names listed as they are beside `search_tools` and `call_tool`. */
  readonly alwaysList: readonly string[];
}

/** One `virtualServers.<name>` entry (DESIGN §13), as the core takes it. */
export interface VirtualServerConfig {
  /** Globs over upstream names: the servers the endpoint exposes. */
  readonly servers: readonly string[];
  /** Globs over exposed tool names (`gh__*`), applied to the servers' tools. */
  readonly tools?: CurationConfig;
  /** Globs over exposed prompt names. */
  readonly prompts?: CurationConfig;
  /** Globs over exposed resource URIs (and resource templates' URI templates). */
  readonly resources?: CurationConfig;
  /** The endpoint's own tool search; absent: the top-level one. */
  readonly toolSearch?: ToolSearchConfig;
}

/**
 * What one endpoint exposes: the whole catalog (the root endpoint) or a virtual server's part of it.
 * What an endpoint does not expose does not exist for its clients: it is not listed, and using it is
 * refused exactly as an unknown name or URI is.
 */
export class EndpointView {
  /** The virtual server's name; undefined for the root endpoint. */
  readonly name: string | undefined;
  readonly toolSearch: ToolSearchConfig | undefined;
  readonly #servers: NameFilter;
  /** Each list's globs (over exposed names; URIs for resources, read every way: `uriFilter`), as one filter. */
  readonly #lists: Readonly<Record<ListedKind, NameFilter>>;
  /** The resource globs over exposed URI templates. */
  readonly #templates: NameFilter;

  constructor(name: string | undefined, config?: VirtualServerConfig, toolSearch?: ToolSearchConfig) {
    this.name = name;
    this.toolSearch = config?.toolSearch ?? toolSearch;
    const servers = config?.servers.map(globToRegExp);
    this.#servers = servers ? (server) => servers.some((glob) => glob.test(server)) : EVERYTHING;
    this.#lists = {
      tools: nameFilter(config?.tools),
      prompts: nameFilter(config?.prompts),
      resources: uriFilter(config?.resources),
    };
    this.#templates = uriFilter(config?.resources, { template: true });
  }

  /** Whether the endpoint is the whole catalog (the root endpoint, or a virtual server that limits nothing). */
  get whole(): boolean {
    return this.name === undefined;
  }

  /** Whether the endpoint exposes anything of upstream `server`. */
  includes(server: string): boolean {
    return this.#servers(server);
  }

  tool(exposed: string, server: string): boolean {
    return this.admits('tools', exposed, server);
  }

  prompt(exposed: string, server: string): boolean {
    return this.admits('prompts', exposed, server);
  }

  /** A resource by its exposed URI, or (`template`) a resource template by its exposed URI template. */
  resource(exposed: string, server: string, template = false): boolean {
    return template
      ? this.#servers(server) && this.#templates(exposed)
      : this.admits('resources', exposed, server);
  }

  /** Whether the endpoint shows all of upstream `server`'s list `kind` (no globs narrow it). */
  shows(kind: ListedKind, server: string): boolean {
    return this.#servers(server) && this.#lists[kind] === EVERYTHING;
  }

  /** An item of list `kind` by its exposed name (URI, for resources). */
  admits(kind: ListedKind, exposed: string, server: string): boolean {
    return this.#servers(server) && this.#lists[kind](exposed);
  }
}

/** The root endpoint's view: everything, with the top-level tool search. */
export function rootView(toolSearch?: ToolSearchConfig): EndpointView {
  return new EndpointView(undefined, undefined, toolSearch);
}
