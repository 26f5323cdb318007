import { canonicalJson } from '../canonical-json.js';
import type { ListChanges, ListedKind } from '../notify/list-changed.js';
import { EndpointView, rootView, type ToolSearchConfig, type VirtualServerConfig } from './endpoint-view.js';

/**
 * The endpoints the gateway serves: the root (the whole catalog) and each virtual server, by name
 * (DESIGN §13). Replaced as a whole on reload; a request looks its view up as it enters.
 */
export class EndpointViews {
  #root: EndpointView;
  #virtual = new Map<string, EndpointView>();
  /** What each endpoint was configured with (undefined: the root), as canonical JSON, to tell what a reload changed. */
  #configured = new Map<string | undefined, string>();

  constructor(virtualServers?: ReadonlyMap<string, VirtualServerConfig>, toolSearch?: ToolSearchConfig) {
    this.#root = rootView(toolSearch);
    this.configure(virtualServers, toolSearch);
  }

  /**
   * Puts a new set of virtual servers (and top-level tool search) in effect. Returns the endpoints whose
   * definition changed (undefined: the root): added, removed, or configured differently, a top-level tool
   * search change counting for the root and each virtual server without its own.
   */
  configure(
    virtualServers?: ReadonlyMap<string, VirtualServerConfig>,
    toolSearch?: ToolSearchConfig,
  ): ReadonlySet<string | undefined> {
    this.#root = rootView(toolSearch);
    const next = new Map<string, EndpointView>();
    const configured = new Map<string | undefined, string>([[undefined, canonicalJson(toolSearch ?? null)]]);
    for (const [name, config] of virtualServers ?? []) {
      next.set(name, new EndpointView(name, config, toolSearch));
      configured.set(name, canonicalJson({ config, toolSearch: config.toolSearch ?? toolSearch ?? null }));
    }
    this.#virtual = next;
    const changed = new Set<string | undefined>();
    for (const name of new Set([...this.#configured.keys(), ...configured.keys()]))
      if (this.#configured.get(name) !== configured.get(name)) changed.add(name);
    this.#configured = configured;
    return changed;
  }

  get root(): EndpointView {
    return this.#root;
  }

  /** The view of endpoint `name` (undefined: the root); undefined when no such virtual server exists. */
  get(name: string | undefined): EndpointView | undefined {
    return name === undefined ? this.#root : this.#virtual.get(name);
  }

  /** The virtual servers' names, in config order. */
  names(): string[] {
    return [...this.#virtual.keys()];
  }

  /**
   * Whether some endpoint exposes part, not all, of upstream `upstream`'s list `kind` (globs narrow it):
   * then which names of it change matters, and a change is worth listing to tell them.
   */
  narrowed(kind: ListedKind, upstream: string): boolean {
    for (const view of this.#virtual.values())
      if (view.includes(upstream) && !view.shows(kind, upstream)) return true;
    return false;
  }

  /**
   * Whether a session on endpoint `name` should hear that list `kind` changed: the endpoint admits one
   * of the names that changed (its servers and its globs), exposes an upstream of which all changed, or
   * shows the whole list of an upstream whose change named nothing. The root endpoint admits everything.
   */
  concerns(name: string | undefined, kind: ListedKind, changes: ListChanges): boolean {
    const view = this.get(name);
    if (!view) return false;
    if (changes === 'all' || view.whole) return true;
    for (const [upstream, names] of changes) {
      if (!view.includes(upstream)) continue;
      if (names === 'all') return true;
      if (names.size === 0 && view.shows(kind, upstream)) return true;
      for (const exposed of names) if (view.admits(kind, exposed, upstream)) return true;
    }
    return false;
  }
}
