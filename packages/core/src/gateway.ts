import type { UpstreamConfig } from './config.js';
import type { RequestContext, RequestMiddleware, SessionSink } from './context.js';
import { errorForEra } from './downstream/era.js';
import { ErrorCode, GatewayError } from './errors.js';
import type { Dispatcher } from './features/dispatch.js';
import { gatewayFeatures } from './features/index.js';
import { skillsExtensions } from './features/skills-capability.js';
import { TaskOnlyTools } from './features/task-only-tools.js';
import { tasksCapabilities } from './features/tasks-capability.js';
import { unwrapCallTool } from './features/tool-search/call-tool.js';
import { CallerTools } from './features/tool-search/caller-tools.js';
import { callsCallTool } from './features/tool-search/search-mode.js';
import { registerParts } from './gateway-parts.js';
import { credentialOwner } from './identity-kind.js';
import { Asking } from './interaction/asking.js';
import { interactiveCaller } from './interaction/caller.js';
import { INPUT_ROUND_TTL_MS, RequestStateSeal } from './interaction/request-state.js';
import { SuspendedCalls } from './interaction/suspended-call.js';
import { countInventory, type InventoryCounts, type InventoryOptions } from './listing/inventory.js';
import { MergedListing } from './listing/merged.js';
import { createLogger, type Logger } from './logger.js';
import type { Outcome } from './middleware.js';
import { LIST_CHANGED, ListChangedCoalescer } from './notify/list-changed.js';
import { SessionRegistry } from './notify/sessions.js';
import { taskStatusRelay } from './notify/task-status.js';
import { UpstreamEvents } from './notify/upstream-events.js';
import { PluginWatches } from './notify/watches.js';
import { paramHeaderRefusal } from './param-headers/refusal.js';
import { ActivePlugins } from './plugins/active.js';
import type { FoundAdminRoute } from './plugins/admin.js';
import { pluginChains } from './plugins/chains.js';
import type { ResourceRoute } from './plugins/define.js';
import type { LoadedPlugin } from './plugins/host.js';
import { pluginView } from './plugins/view.js';
import { NamedCatalog } from './routing/named-catalog.js';
import { ResourceChanges } from './routing/resource-changes.js';
import { ResourceRouter } from './routing/resource-router.js';
import { TaskIdSeal } from './routing/task-ids.js';
import { TaskOwners } from './routing/task-owners.js';
import { SearchCatalog } from './search/search-catalog.js';
import { GATEWAY_REQUEST_KEY } from './state-keys.js';
import { GatewayStats } from './stats/recorder.js';
import type { SubscriptionTable } from './subscriptions.js';
import { GatewayTelemetry, requestAttributes } from './telemetry.js';
import type { PersonalCredentials } from './upstream/auth/personal-credentials.js';
import type { UpstreamListener } from './upstream/connection.js';
import { DEFAULT_UPSTREAM_LIMITS, type UpstreamLimits } from './upstream/limits.js';
import type { RequestOrigin } from './upstream/origin.js';
import { type UpstreamChanges, UpstreamPool, type UpstreamStatus } from './upstream/pool.js';
import { upstreamSubscriptions } from './upstream/subscription-table.js';
import type { ToolSearchConfig, VirtualServerConfig } from './views/endpoint-view.js';
import { EndpointViews } from './views/endpoint-views.js';
import { hiddenBy, NOT_EXPOSED_KEY } from './views/not-exposed.js';

export interface GatewayOptions {
  upstreams: UpstreamConfig[];
  logger?: Logger;
  /** Loaded plugins (see setupPlugins), in config order: the first is outermost. */
  plugins?: LoadedPlugin[];
  /** Extra request middleware, inside the plugins' (mostly for tests and embedding). */
  middleware?: RequestMiddleware[];
  /** Extra key material for cursor MACs; instances that share a config and this secret share cursors. */
  cursorSecret?: string;
  /** Window in which list_changed notifications are coalesced (default 25 ms). */
  listChangedDebounceMs?: number;
  /** What upstreams may send (`limits.maxResultBytes`, `maxPagesPerList`); read live, so a reload may change it in place. */
  limits?: UpstreamLimits;
  /**
   * Each person's own tokens for upstreams that authorize each person (`auth.user`, DESIGN §14); required
   * when any upstream does.
   */
  personalCredentials?: PersonalCredentials;
  /** Virtual servers by name (DESIGN §13): endpoints that expose part of the catalog. */
  virtualServers?: ReadonlyMap<string, VirtualServerConfig>;
  /** The top-level tool search (the root endpoint's, and a virtual server's without its own). */
  toolSearch?: ToolSearchConfig;
}

export type { UpstreamChanges, UpstreamStatus };

/** A virtual server as `/admin/status` lists it (DESIGN §13). */
export interface VirtualServerSummary {
  name: string;
  /** The configured servers its `servers` globs name, in config order. */
  servers: string[];
  tools: number;
  prompts: number;
  /** Whether its `tools/list` answers in search mode. */
  toolSearch: boolean;
}

/** The longest start() waits for upstreams' first attempts before the listeners open. */
const STARTUP_WAIT_MS = 10_000;

/**
 * The routing engine: fronts many upstream MCP servers as one. Era-neutral: it takes plain requests
 * (method + params) from era adapters and answers with plain results or GatewayErrors. This class is a
 * facade over the feature areas (features/), the routing indexes (routing/), the merged-listing engine
 * (listing/), notification fan-out (notify/) and the upstream pool (upstream/).
 */
export class Gateway {
  readonly #pool: UpstreamPool;
  readonly #sessions: SessionRegistry;
  readonly #subscriptions: SubscriptionTable<RequestOrigin>;
  readonly #events: UpstreamEvents;
  readonly #listChanged: ListChangedCoalescer;
  readonly #dispatcher: Dispatcher;
  readonly #plugins: ActivePlugins;
  readonly #router: ResourceRouter;
  readonly #tools: NamedCatalog;
  readonly #prompts: NamedCatalog;
  /** Which exposed URIs each `resources/list_changed` changed, for the endpoints that narrow resources. */
  readonly #resourceChanges: ResourceChanges;
  readonly #listing: MergedListing;
  /** The tasks handed out (whose each is): forgotten for upstreams a reload removes. */
  readonly #taskOwners = new TaskOwners();
  /** The tools 2025-11-25 upstreams run only as tasks (a 2026-07-28 client's calls of them are made tasks). */
  readonly #taskOnly = new TaskOnlyTools();
  readonly #taskIds: TaskIdSeal;
  /** Telemetry, or undefined when no OpenTelemetry SDK is registered: then no wrappers at all. */
  readonly #telemetry: GatewayTelemetry | undefined;
  /** Request and upstream-call statistics for the status page (always on: O(1) per event). */
  readonly #stats = new GatewayStats();
  /** Calls of legacy upstreams waiting for a modern client's answers (see interaction/). */
  readonly #suspended: SuspendedCalls<RequestContext>;
  readonly #requestStates: RequestStateSeal;
  readonly #asking: Asking;
  /** The root endpoint and the virtual servers: what each exposes. */
  readonly #views: EndpointViews;
  /** Tool search's index of the whole catalog. */
  readonly #searchCatalog: SearchCatalog;
  /** The tools each caller may use on its endpoint (tool search returns and calls nothing else). */
  readonly #callerTools: CallerTools;
  #settled: Promise<void> | undefined;
  #closed = false;
  readonly #stopPersonal: (() => void) | undefined;

  constructor(options: GatewayOptions) {
    const log = options.logger ?? createLogger();
    const telemetry = new GatewayTelemetry(
      {
        sessions: () => this.#sessions.size,
        subscriptions: () => this.#subscriptions.size,
        upstreams: () => this.#pool.ordered.map((u) => ({ name: u.name, ready: u.state === 'ready' })),
      },
      (method) => this.#dispatcher.answers(method),
    );
    this.#telemetry = telemetry.enabled ? telemetry : undefined;
    const chains = pluginChains({
      middleware: options.middleware ?? [],
      dispatch: (ctx) => this.#dispatcher.dispatch(ctx),
      telemetry: this.#telemetry,
      stats: this.#stats,
      log,
    });
    this.#plugins = new ActivePlugins(options.plugins ?? [], chains, log);
    // Upstream events reach the gateway's handlers, which are built from the pool they listen to.
    const listener: UpstreamListener = {
      ready: (u) => this.#events.ready(u),
      down: (u, error) => this.#events.down(u, error),
      failed: (u, error) => this.#events.failed(u, error),
      notification: (u, method, params, origins) => this.#events.notification(u, method, params, origins),
    };
    const limits = options.limits ?? { ...DEFAULT_UPSTREAM_LIMITS };
    this.#pool = new UpstreamPool(
      options.upstreams,
      listener,
      log.child('upstream'),
      this.#plugins.chain,
      limits,
      options.personalCredentials,
    );
    const pool = this.#pool;
    this.#sessions = new SessionRegistry(log);
    this.#subscriptions = upstreamSubscriptions(pool, log);
    const router = new ResourceRouter(pool, log.child('router'));
    this.#router = router;
    const tools = new NamedCatalog('tools', pool, log.child('tools'));
    this.#tools = tools;
    const prompts = new NamedCatalog('prompts', pool, log.child('prompts'));
    this.#prompts = prompts;
    const listing = new MergedListing(pool, options.cursorSecret, log);
    this.#listing = listing;
    const watches = new PluginWatches(this.#subscriptions, log);
    this.#taskIds = new TaskIdSeal(options.cursorSecret);
    this.#views = new EndpointViews(options.virtualServers, options.toolSearch);
    const views = this.#views;
    this.#resourceChanges = new ResourceChanges(
      (upstream) => views.narrowed('resources', upstream),
      () => pool.limits.maxPagesPerList,
      log.child('resources'),
    );
    // Tool search: the catalog indexed from the gateway's own full listings, once per change of it, and
    // each caller's usable tools from its own tools/list, listed again after any list change.
    this.#searchCatalog = new SearchCatalog();
    tools.onListed((upstream, items) => {
      this.#searchCatalog.update(upstream, items);
      this.#taskOnly.update(upstream, items);
    });
    this.#callerTools = new CallerTools((ctx) => this.handle(ctx));
    // A session hears of a list change only when its endpoint exposes a name that changed (or an upstream
    // all of whose names did). Tool search forgets every caller's tools on any change, heard or not.
    this.#listChanged = new ListChangedCoalescer(options.listChangedDebounceMs ?? 25, (kind, changes) => {
      if (kind === 'tools') this.#callerTools.invalidate();
      this.#sessions.broadcast(LIST_CHANGED[kind], {}, (session) =>
        views.concerns(session.endpoint, kind, changes),
      );
    });
    // A person who connects (or disconnects) a personal upstream sees its tools come (or go) at once.
    this.#stopPersonal = options.personalCredentials?.onChange((owner, upstream) => {
      this.#callerTools.invalidate();
      const concerned = new Map([[upstream, 'all' as const]]);
      this.#sessions.broadcast(
        LIST_CHANGED.tools,
        {},
        (session) =>
          credentialOwner(session.identity) === owner && views.concerns(session.endpoint, 'tools', concerned),
      );
    });
    this.#events = UpstreamEvents.withFanout({
      sessions: this.#sessions,
      subscriptions: this.#subscriptions,
      watches,
      listChanged: this.#listChanged,
      resources: router.catalog,
      resourceChanges: this.#resourceChanges,
      tools,
      prompts,
      plugins: (n) => this.#plugins.notify(n),
      exposes: (sessionId, upstream, exposedUri) => {
        const view = views.get(this.#sessions.endpointOf(sessionId));
        return view?.resource(exposedUri, upstream) ?? false;
      },
      taskStatus: taskStatusRelay(this.#taskOwners, this.#sessions, log),
      logger: log,
    });
    this.#suspended = new SuspendedCalls(INPUT_ROUND_TTL_MS);
    this.#requestStates = new RequestStateSeal(options.cursorSecret);
    this.#asking = new Asking(this.#requestStates);
    const call = interactiveCaller({
      seal: this.#requestStates,
      suspended: this.#suspended,
    });
    const { dispatcher, completion } = gatewayFeatures({
      pool,
      router,
      listing,
      tools,
      prompts,
      subscriptions: this.#subscriptions,
      sessions: this.#sessions,
      call,
      taskIds: this.#taskIds,
      taskOwners: this.#taskOwners,
      taskOnly: this.#taskOnly,
      search: { catalog: this.#searchCatalog, callers: this.#callerTools },
    });
    this.#dispatcher = dispatcher;
    const completionTarget = (ref: unknown) => completion.route(ref)?.upstream;
    const task = (taskId: string, identity: string) => {
      const binding = this.#taskIds.open(taskId, identity);
      return (
        binding && { upstream: binding.upstream, name: binding.tool.name, exposed: binding.tool.exposed }
      );
    };
    this.#plugins.attach(pluginView({ pool, router, tools, prompts, watches, completionTarget, task }));
    // What the listener pieces (GatewayReplica) work on; not methods of the Gateway.
    registerParts(this, { requestStates: this.#requestStates, taskIds: this.#taskIds });
  }

  /**
   * Starts connecting to every upstream. Resolves once each has connected or failed its first attempt
   * (each within its `timeoutMs`), or after 10 s: the slower ones go on connecting in the background.
   */
  start(): Promise<void> {
    if (!this.#settled) {
      this.#settled = this.#events
        .settled(
          // A personal upstream has no connection of its own to wait for (each person opens theirs).
          this.#pool.ordered.filter((u) => u.state !== 'personal').map((u) => u.name),
          STARTUP_WAIT_MS,
        )
        .then(() => this.#plugins.ready());
      this.#pool.start();
    }
    return this.#settled;
  }

  /**
   * Applies a new upstream set live (a config reload, DESIGN §10): added upstreams connect, removed ones
   * close, changed ones (any difference in their normalized config) reconnect with the new config.
   * Unchanged upstreams, their subscriptions and every session stay up. Sessions hear `list_changed` for
   * the lists that changed as the connections come and go, and merged-listing cursors issued before the
   * server names (or their order or prefix setting) changed are refused (invalid_cursor: list again).
   * Throws, changing nothing, on a duplicate name.
   *
   * @example
   * const { added, removed, changed } = await gateway.reconfigure(newConfig.upstreams);
   */
  async reconfigure(upstreams: UpstreamConfig[]): Promise<UpstreamChanges> {
    // A closed gateway must not open connections again (they would outlive it).
    if (this.#closed) throw new Error('the gateway is closed');
    const before = this.#pool.names;
    const { changes, retired, created } = this.#pool.reconfigure(upstreams);
    const reordered = before.join(',') !== this.#pool.names.join(',');
    if (retired.length === 0 && created.length === 0 && !reordered) return changes;
    const kept = new Set(this.#pool.ordered.filter((u) => !created.includes(u)).map((u) => u.name));
    this.#tools.reconfigure(kept);
    this.#prompts.reconfigure(kept);
    this.#resourceChanges.retain(kept);
    this.#router.reconfigure(kept);
    this.#listing.rekey();
    this.#taskOwners.retain(new Set(this.#pool.names));
    this.#searchCatalog.retain(new Set(this.#pool.names));
    for (const u of retired) this.#events.retired(u);
    await Promise.allSettled(retired.map((u) => u.close()));
    // Not started before start(): start() connects the whole pool.
    if (this.#settled) for (const u of created) u.start();
    return changes;
  }

  /**
   * Puts new plugin instances in effect live (a config reload whose plugin options changed, DESIGN §10).
   * Instances in both sets keep running; new ones get their `ready` hook first (once the gateway has
   * started). Resolves once requests run through the new set, and sessions hear `list_changed` for every
   * list (the plugins may filter lists differently now). Requests in flight finish through the old set;
   * then (or after `drainMs`) the old instances not kept are closed, which `closed` reports.
   */
  async replacePlugins(
    plugins: readonly LoadedPlugin[],
    drainMs = 30_000,
  ): Promise<{ closed: Promise<void> }> {
    if (this.#closed) throw new Error('the gateway is closed');
    const replaced = await this.#plugins.replace(plugins, drainMs);
    for (const kind of ['resources', 'tools', 'prompts'] as const) {
      if (kind === 'resources' || this.#pool.offers(kind)) this.#listChanged.schedule(kind);
    }
    return replaced;
  }

  /**
   * Downstream capabilities: resources always; tools, prompts, completions, the skills extension and
   * tasks when some upstream offers them (as of its last connection). Tasks differ by the client's era
   * (`legacy` when unknown): the 2025-11-25 `tasks` capability, or the 2026-07-28 Tasks extension.
   */
  capabilities(era: 'legacy' | 'modern' = 'legacy'): Record<string, unknown> {
    const caps: Record<string, unknown> = { resources: { subscribe: true, listChanged: true } };
    if (this.#pool.offers('tools')) caps.tools = { listChanged: true };
    if (this.#pool.offers('prompts')) caps.prompts = { listChanged: true };
    if (this.#pool.offers('completions')) caps.completions = {};
    const tasks = tasksCapabilities(this.#pool.ordered, era);
    if (tasks?.tasks) caps.tasks = tasks.tasks;
    const extensions = {
      ...skillsExtensions(this.#pool.ordered),
      ...(tasks?.extensions as object | undefined),
    };
    if (Object.keys(extensions).length > 0) caps.extensions = extensions;
    return caps;
  }

  /** The methods the gateway answers through its features (the SDK answers the protocol's own). */
  get methods(): readonly string[] {
    return this.#dispatcher.methods;
  }

  /** Whether the gateway answers `method` through a feature (without building the list of them). */
  answers(method: string): boolean {
    return this.#dispatcher.answers(method);
  }

  status(): UpstreamStatus[] {
    return this.#pool.status();
  }

  /**
   * What each connected upstream exposes, counted by the gateway itself (see `countInventory`): the
   * operator's view, e.g. for the startup banner; never a caller's. An upstream whose lists fail is
   * left out.
   */
  async inventory(options?: InventoryOptions): Promise<Map<string, InventoryCounts>> {
    const ready = this.#pool.ordered.filter((u) => u.state === 'ready');
    const index = { tools: this.#tools.index, prompts: this.#prompts.index };
    const counted = await Promise.allSettled(ready.map((u) => countInventory(u, index, options)));
    const out = new Map<string, InventoryCounts>();
    counted.forEach((c, i) => {
      if (c.status === 'fulfilled') out.set(ready[i]!.name, c.value);
    });
    return out;
  }

  get sessionCount(): number {
    return this.#sessions.size;
  }

  /** Open sessions of one virtual server. */
  sessionsAt(endpoint: string): number {
    return this.#sessions.countAt(endpoint);
  }

  get subscriptionCount(): number {
    return this.#subscriptions.size;
  }

  /** Request statistics: totals, latency, a ~10 minute time series and the latest outcomes. */
  get stats(): GatewayStats {
    return this.#stats;
  }

  /** Open sessions counted by identity and transport. */
  sessionSummary(): { identity: string; transport: string; sessions: number }[] {
    return this.#sessions.summary();
  }

  /** Each loaded plugin's own figures (its `stats` hook), by plugin name; a failing hook is skipped. */
  pluginStats(): Record<string, Record<string, number>> {
    return this.#plugins.stats();
  }

  /** The plugins' sections of `/admin/status` (their `admin.status` hooks), by key. */
  pluginAdminStatus(): Record<string, unknown> {
    return this.#plugins.adminStatus();
  }

  /** The plugins' admin endpoint for `method` at `path` (below `/admin/`), and the methods answered there. */
  pluginAdminRoute(method: string, path: string): { found?: FoundAdminRoute; methods: string[] } {
    return this.#plugins.adminRoute(method, path);
  }

  openSession(session: SessionSink): void {
    this.#sessions.open(session);
  }

  /** Forgets a session and releases every upstream subscription it held. */
  async closeSession(id: string): Promise<void> {
    if (!this.#sessions.close(id)) return;
    await this.#subscriptions.releaseAll(id);
  }

  /**
   * Puts a new set of virtual servers (and top-level tool search) in effect (a config reload, DESIGN
   * §13): requests look their endpoint up as they enter, so every session sees the new set at once, and
   * the sessions of an endpoint whose definition changed hear `list_changed` for every list (what it
   * exposes may have changed); the others hear nothing. A session whose virtual server is gone gets its
   * requests refused; the listener closes it.
   */
  reconfigureViews(
    virtualServers?: ReadonlyMap<string, VirtualServerConfig>,
    toolSearch?: ToolSearchConfig,
  ): void {
    const changed = this.#views.configure(virtualServers, toolSearch);
    // An upstream whose resources a virtual server narrows now: its next change is told by URI.
    for (const u of this.#pool.ordered) void this.#resourceChanges.baseline(u);
    if (changed.size === 0) return;
    this.#callerTools.invalidate();
    for (const kind of ['resources', 'tools', 'prompts'] as const) {
      if (kind !== 'resources' && !this.#pool.offers(kind)) continue;
      this.#sessions.broadcast(LIST_CHANGED[kind], {}, (session) => changed.has(session.endpoint));
    }
  }

  /** The endpoints: the root and the virtual servers, each with what it exposes. */
  get views(): EndpointViews {
    return this.#views;
  }

  /**
   * Each virtual server as the status page shows it: the configured servers it exposes, and how many of
   * their tools and prompts (as the gateway's name index knows them; before any caller's policy).
   */
  virtualServers(): VirtualServerSummary[] {
    return this.#views.names().map((name) => {
      const view = this.#views.get(name)!;
      const count = (catalog: NamedCatalog, visible: (exposed: string, upstream: string) => boolean) => {
        let n = 0;
        for (const [exposed, target] of catalog.index.entries()) if (visible(exposed, target.upstream)) n++;
        return n;
      };
      return {
        name,
        servers: this.#pool.names.filter((u) => view.includes(u)),
        tools: count(this.#tools, (e, u) => view.tool(e, u)),
        prompts: count(this.#prompts, (e, u) => view.prompt(e, u)),
        toolSearch: view.toolSearch?.enabled === true,
      };
    });
  }

  /** Runs one downstream request through the middleware chain to its upstream(s). */
  handle(request: RequestContext): Promise<Outcome> {
    request.view ??= this.#views.get(request.session.endpoint);
    if (!request.view) {
      const gone = new GatewayError(
        ErrorCode.InvalidRequest,
        `Virtual server '${request.session.endpoint}' does not exist (any more): connect to an endpoint the gateway serves.`,
        { reason: 'not_found' },
      );
      return Promise.resolve({ ok: false, error: gone });
    }
    if (callsCallTool(request)) return this.#callingTool(request);
    return this.#enter(request);
  }

  /** A tool search `call_tool`: handled as the `tools/call` of the tool it names (see unwrapCallTool). */
  async #callingTool(request: RequestContext): Promise<Outcome> {
    try {
      await unwrapCallTool(request, this.#callerTools);
    } catch (error) {
      return { ok: false, error: errorForEra(GatewayError.fromUnknown(error), request.client) };
    }
    return this.#enter(request);
  }

  /**
   * The request's target, resolved once before anything else sees it: from what the gateway knows, or —
   * for a name the upstreams added unannounced — after looking for it (see `Feature.locate`).
   */
  #enter(request: RequestContext): Promise<Outcome> {
    request.target ??= this.#dispatcher.target(request);
    if (request.target === undefined && this.#dispatcher.locates(request)) {
      return this.#dispatcher.locate(request).then((target) => {
        request.target = target;
        return this.#entered(request);
      });
    }
    return this.#entered(request);
  }

  #entered(request: RequestContext): Promise<Outcome> {
    // What the endpoint does not expose reaches the plugins as an unknown name or URI would: no target.
    if (request.target && hiddenBy(request.view, request.target)) {
      request.target = undefined;
      request.state.set(NOT_EXPOSED_KEY, true);
    }
    if (request.state.get(NOT_EXPOSED_KEY) === true) request.target = undefined;
    const refused = paramHeaderRefusal(request, this.#pool);
    if (refused) return Promise.resolve({ ok: false, error: refused });
    const started = performance.now();
    let ctx = request;
    let run: Promise<Outcome>;
    try {
      ctx = this.#asking.enter(request);
      run = this.#traced(ctx);
    } catch (error) {
      run = Promise.resolve({ ok: false, error: errorForEra(GatewayError.fromUnknown(error), ctx.client) });
    }
    return run.then((outcome) => {
      if (ctx.state.get(GATEWAY_REQUEST_KEY) !== true)
        this.#stats.request(ctx, outcome, performance.now() - started);
      return outcome;
    });
  }

  #traced(ctx: RequestContext): Promise<Outcome> {
    if (!this.#telemetry) return this.#plugins.run(ctx);
    return this.#telemetry.request(
      ctx.method,
      // Read once the plugins are done with ctx: what the status page records, redactions included.
      () => requestAttributes(ctx),
      () => this.#plugins.run(ctx),
    );
  }

  /** The resource an exposed URI names, or undefined when no upstream serves it. */
  route(exposedUri: string): ResourceRoute | undefined {
    const found = this.#router.find(exposedUri);
    return found && { upstream: found.upstream.name, uri: found.uri };
  }

  async close(): Promise<void> {
    this.#closed = true;
    this.#stopPersonal?.();
    this.#listChanged.close();
    this.#searchCatalog.close();
    this.#suspended.close();
    this.#sessions.clear();
    await this.#plugins.close();
    await this.#pool.close();
  }
}
