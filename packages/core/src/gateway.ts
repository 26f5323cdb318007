import { mergeCacheHints } from './cache-hints.js';
import { UnprefixedCatalog } from './catalog.js';
import type { UpstreamConfig } from './config.js';
import type { RequestContext, RequestMiddleware, SessionSink } from './context.js';
import { MergedCursorCodec, type MergedCursorState } from './cursor.js';
import { ErrorCode, GatewayError, isResourceNotFound } from './errors.js';
import { createLogger, type Logger } from './logger.js';
import { compose, type Outcome } from './middleware.js';
import { exposeUri, splitExposedUri } from './namespace.js';
import { asRecords, isRecord } from './payload.js';
import type { PluginGateway, ResourceRoute } from './plugins/define.js';
import { type LoadedPlugin, pluginHooks } from './plugins/host.js';
import { SubscriptionTable } from './subscriptions.js';
import { GatewayTelemetry } from './telemetry.js';
import { type RequestOrigin, UpstreamConnection, type UpstreamListener } from './upstream/connection.js';

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
}

export interface UpstreamStatus {
  name: string;
  state: string;
  prefix: boolean;
  transport: string;
  protocolVersion?: string;
}

/** Cursor key carrying the cache scope an enumeration started with (not a valid server name). */
const SCOPE_KEY = '$scope';

/** Key under `_meta` of merged list results naming upstreams whose entries are missing from the page. */
export const UNAVAILABLE_META_KEY = 'switchyard/unavailable';

const LIST_KINDS = {
  'resources/list': { field: 'resources', uriField: 'uri', cursorKind: 'r' },
  'resources/templates/list': { field: 'resourceTemplates', uriField: 'uriTemplate', cursorKind: 't' },
} as const;
type ListMethod = keyof typeof LIST_KINDS;

/**
 * The routing engine: fronts many upstream MCP servers as one. Era-neutral: it takes plain requests
 * (method + params) from era adapters and answers with plain results or GatewayErrors.
 */
export class Gateway {
  readonly #upstreams = new Map<string, UpstreamConnection>();
  readonly #order: UpstreamConnection[];
  readonly #sessions = new Map<string, SessionSink>();
  readonly #subscriptions: SubscriptionTable<RequestOrigin>;
  readonly #catalog: UnprefixedCatalog;
  readonly #cursors: MergedCursorCodec;
  readonly #log: Logger;
  readonly #run: (ctx: RequestContext) => Promise<Outcome>;
  readonly #debounceMs: number;
  #listChangedTimer: NodeJS.Timeout | undefined;
  #settled: Promise<void> | undefined;
  readonly #firstAttempt = new Map<string, () => void>();
  #closed = false;
  readonly #plugins: LoadedPlugin[];
  readonly #notifyPlugins: ReturnType<typeof pluginHooks>['notification'];
  /** Telemetry, or undefined when no OpenTelemetry SDK is registered: then no wrappers at all. */
  readonly #telemetry: GatewayTelemetry | undefined;
  /** Plugin watches (see PluginGateway.watch): pseudo-sessions in the subscription table. */
  readonly #watchers = new Map<string, { upstream: string; onInvalidate: () => void }>();
  #watchSeq = 0;

  constructor(options: GatewayOptions) {
    this.#log = options.logger ?? createLogger();
    this.#debounceMs = options.listChangedDebounceMs ?? 25;
    const listener: UpstreamListener = {
      ready: (u) => this.#onUpstreamReady(u),
      down: (u, error) => this.#onUpstreamDown(u, error),
      failed: (u) => this.#markAttempted(u.name),
      notification: (u, method, params, origins) => this.#onUpstreamNotification(u, method, params, origins),
    };
    this.#plugins = options.plugins ?? [];
    const hooks = pluginHooks(this.#plugins);
    this.#notifyPlugins = hooks.notification;
    const telemetry = new GatewayTelemetry({
      sessions: () => this.#sessions.size,
      subscriptions: () => this.#subscriptions.size,
      upstreams: () => this.#order.map((u) => ({ name: u.name, ready: u.state === 'ready' })),
    });
    this.#telemetry = telemetry.enabled ? telemetry : undefined;
    const upstreamLog = this.#log.child('upstream');
    for (const config of options.upstreams) {
      if (this.#upstreams.has(config.name)) throw new Error(`Duplicate upstream name '${config.name}'`);
      this.#upstreams.set(
        config.name,
        new UpstreamConnection(config, listener, upstreamLog, hooks.upstreamCall, this.#telemetry),
      );
    }
    this.#order = [...this.#upstreams.values()];
    this.#catalog = new UnprefixedCatalog(
      options.upstreams.filter((u) => !u.prefix).map((u) => u.name),
      this.#log.child('router'),
    );
    this.#cursors = new MergedCursorCodec(
      JSON.stringify([options.upstreams.map((u) => [u.name, u.prefix]), options.cursorSecret ?? '']),
    );
    this.#subscriptions = new SubscriptionTable<RequestOrigin>({
      subscribe: (upstream, uri, origin) => this.#upstream(upstream).subscribe(uri, { origin }),
      unsubscribe: async (upstream, uri, origin) => {
        const u = this.#upstream(upstream);
        if (u.state !== 'ready') return;
        await u.unsubscribe(uri, { origin }).catch((error) => {
          this.#log.debug('upstream unsubscribe failed', { upstream, uri, error: String(error) });
        });
      },
    });
    this.#run = compose([...hooks.request, ...(options.middleware ?? [])], (ctx) => this.#dispatch(ctx));
    const view = this.#pluginView();
    for (const port of new Set(this.#plugins.map((p) => p.port))) port.attach(view);
  }

  /** Starts connecting to every upstream. Resolves once each has connected or failed its first attempt. */
  start(): Promise<void> {
    if (!this.#settled) {
      this.#settled = Promise.all(
        this.#order.map(
          (u) =>
            new Promise<void>((resolve) => {
              this.#firstAttempt.set(u.name, resolve);
            }),
        ),
      ).then(async () => {
        for (const p of this.#plugins) {
          await settle(() => p.hooks.ready?.()).catch((error) =>
            this.#log.warn('plugin ready hook failed', { plugin: p.name, error: String(error) }),
          );
        }
      });
      for (const u of this.#order) u.start();
    }
    return this.#settled;
  }

  /** Downstream capabilities: resources always; completions when any connected upstream offers them. */
  capabilities(): Record<string, unknown> {
    const caps: Record<string, unknown> = { resources: { subscribe: true, listChanged: true } };
    if (this.#order.some((u) => u.capabilities?.completions)) caps.completions = {};
    return caps;
  }

  status(): UpstreamStatus[] {
    return this.#order.map((u) => ({
      name: u.name,
      state: u.state,
      prefix: u.config.prefix,
      transport: u.config.transport.kind,
      protocolVersion: u.protocolVersion,
    }));
  }

  get sessionCount(): number {
    return this.#sessions.size;
  }

  get subscriptionCount(): number {
    return this.#subscriptions.size;
  }

  openSession(session: SessionSink): void {
    this.#sessions.set(session.id, session);
  }

  /** Forgets a session and releases every upstream subscription it held. */
  async closeSession(id: string): Promise<void> {
    if (!this.#sessions.delete(id)) return;
    await this.#subscriptions.releaseAll(id);
  }

  /** Runs one downstream request through the middleware chain to its upstream(s). */
  handle(ctx: RequestContext): Promise<Outcome> {
    if (!this.#telemetry) return this.#run(ctx);
    const attributes = () => {
      const described: Record<string, string> = {
        'switchyard.session': ctx.session.id,
        'switchyard.identity': ctx.identity.id,
      };
      if (typeof ctx.params.uri === 'string') described['mcp.resource.uri'] = ctx.params.uri;
      return described;
    };
    return this.#telemetry.request(ctx.method, attributes, () => this.#run(ctx));
  }

  /** The resource an exposed URI names, or undefined when no upstream serves it. */
  route(exposedUri: string): ResourceRoute | undefined {
    try {
      const { upstream, uri } = this.#route(exposedUri);
      return { upstream: upstream.name, uri };
    } catch {
      return undefined;
    }
  }

  #pluginView(): PluginGateway {
    const names = Object.freeze([...this.#upstreams.keys()]);
    return {
      upstreams: () => names,
      route: (exposedUri) => this.route(exposedUri),
      completionTarget: (ref) => (isRecord(ref) ? this.#completionTarget(ref)?.upstream.name : undefined),
      exposeUri: (upstream, uri) => exposeUri(upstream, uri, this.#upstream(upstream).config.prefix),
      canSubscribe: (upstream) => subscribable(this.#upstreams.get(upstream)),
      watch: async (exposedUri, onInvalidate) => {
        const { upstream, uri } = this.#route(exposedUri);
        if (!subscribable(upstream)) {
          throw GatewayError.invalidParams(`Upstream '${upstream.name}' cannot subscribe to ${exposedUri}.`);
        }
        const id = `$watch:${++this.#watchSeq}`;
        this.#watchers.set(id, { upstream: upstream.name, onInvalidate });
        try {
          await this.#subscriptions.subscribe(id, upstream.name, uri, {
            sessionId: id,
            notify: async () => {},
          });
        } catch (error) {
          this.#watchers.delete(id);
          throw error;
        }
        return async () => {
          if (!this.#watchers.delete(id)) return;
          await this.#subscriptions.unsubscribe(id, upstream.name, uri);
        };
      },
    };
  }

  async close(): Promise<void> {
    this.#closed = true;
    if (this.#listChangedTimer) clearTimeout(this.#listChangedTimer);
    this.#sessions.clear();
    for (const p of [...this.#plugins].reverse()) {
      await settle(() => p.hooks.close?.()).catch((error) =>
        this.#log.warn('plugin close hook failed', { plugin: p.name, error: String(error) }),
      );
    }
    await Promise.allSettled(this.#order.map((u) => u.close()));
  }

  // ---- dispatch ----------------------------------------------------------------------------------

  async #dispatch(ctx: RequestContext): Promise<Outcome> {
    try {
      switch (ctx.method) {
        case 'resources/list':
        case 'resources/templates/list':
          return { ok: true, result: await this.#listMerged(ctx.method, ctx) };
        case 'resources/read':
          return { ok: true, result: await this.#read(ctx) };
        case 'resources/subscribe':
        case 'resources/unsubscribe':
          return { ok: true, result: await this.#subscription(ctx) };
        case 'completion/complete':
          return { ok: true, result: await this.#complete(ctx) };
        default:
          return {
            ok: false,
            error: new GatewayError(
              ErrorCode.MethodNotFound,
              `Method not found: ${ctx.method}. Switchyard fronts resources: resources/*, completion/complete and ping.`,
            ),
          };
      }
    } catch (error) {
      return { ok: false, error: GatewayError.fromUnknown(error) };
    }
  }

  async #listMerged(method: ListMethod, ctx: RequestContext): Promise<Record<string, unknown>> {
    const kind = LIST_KINDS[method];
    const cursor = ctx.params.cursor;
    let state: Record<string, string | undefined>;
    let pinnedScope: string | undefined;
    if (cursor === undefined || cursor === null) {
      state = {};
      for (const u of this.#order) state[u.name] = undefined;
    } else {
      state = this.#cursors.decode(kind.cursorKind, cursor);
      // One enumeration has one scope (the spec requires every page of a list to share it): the first
      // page decides it and the cursor carries it. Upstream names cannot start with '$'.
      pinnedScope = state[SCOPE_KEY];
      delete state[SCOPE_KEY];
      if (pinnedScope !== undefined && pinnedScope !== 'public' && pinnedScope !== 'private') {
        throw GatewayError.invalidCursor();
      }
      for (const name of Object.keys(state))
        if (!this.#upstreams.has(name)) throw GatewayError.invalidCursor();
    }
    const participants = this.#order.filter((u) => u.name in state);
    const origin = originOf(ctx);
    const settled = await Promise.allSettled(
      participants.map((u) => {
        if (u.state === 'ready' && !u.capabilities?.resources) return Promise.resolve(undefined);
        const upstreamCursor = state[u.name];
        return u.request(method, upstreamCursor === undefined ? {} : { cursor: upstreamCursor }, {
          signal: ctx.signal,
          origin,
        });
      }),
    );
    if (ctx.signal.aborted) throw GatewayError.cancelled(method);
    const items: unknown[] = [];
    const next: MergedCursorState = {};
    const unavailable: string[] = [];
    const pages: Record<string, unknown>[] = [];
    participants.forEach((u, i) => {
      const outcome = settled[i]!;
      if (outcome.status === 'rejected') {
        unavailable.push(u.name);
        this.#log.warn('upstream omitted from merged listing', {
          upstream: u.name,
          method,
          error: outcome.reason instanceof Error ? outcome.reason.message : String(outcome.reason),
        });
        return;
      }
      const page = outcome.value;
      if (page === undefined) return;
      pages.push(page);
      const prefixed = u.config.prefix;
      for (const raw of asRecords(page[kind.field])) {
        const uri = raw[kind.uriField];
        if (typeof uri !== 'string') continue;
        if (!prefixed) {
          // Colliding unprefixed entries are listed once, under the server that serves them.
          const owner =
            kind.field === 'resources' ? this.#catalog.ownerOf(uri) : this.#catalog.resolveTemplate(uri);
          if (owner !== undefined && owner !== u.name) continue;
        }
        items.push(prefixed ? { ...raw, [kind.uriField]: exposeUri(u.name, uri, true) } : raw);
      }
      if (typeof page.nextCursor === 'string' && page.nextCursor.length > 0) next[u.name] = page.nextCursor;
    });
    const result: Record<string, unknown> = { [kind.field]: items };
    const hints = mergeCacheHints(pages);
    if (hints || pinnedScope) {
      // A page never widens the scope the enumeration started with; a private contribution narrows it.
      const scope = hints?.cacheScope === 'public' && pinnedScope !== 'private' ? 'public' : 'private';
      result.ttlMs = hints?.ttlMs ?? 0;
      result.cacheScope = scope;
      if (Object.keys(next).length > 0) next[SCOPE_KEY] = scope;
    }
    if (Object.keys(next).length > 0) result.nextCursor = this.#cursors.encode(kind.cursorKind, next);
    if (unavailable.length > 0) result._meta = { [UNAVAILABLE_META_KEY]: unavailable };
    return result;
  }

  async #read(ctx: RequestContext): Promise<Record<string, unknown>> {
    const exposed = requireUri(ctx.params);
    const { upstream, uri } = this.#route(exposed);
    let result: Record<string, unknown>;
    try {
      result = await upstream.request(
        'resources/read',
        { ...withoutProgressToken(ctx.params), uri },
        { signal: ctx.signal, origin: originOf(ctx), onProgress: ctx.onProgress },
      );
    } catch (error) {
      throw this.#notFoundAware(error, exposed);
    }
    if (!upstream.config.prefix) return result;
    const contents = asRecords(result.contents).map((c) =>
      typeof c.uri === 'string' ? { ...c, uri: exposeUri(upstream.name, c.uri, true) } : c,
    );
    return { ...result, contents };
  }

  async #subscription(ctx: RequestContext): Promise<Record<string, unknown>> {
    const exposed = requireUri(ctx.params);
    const { upstream, uri } = this.#route(exposed);
    if (ctx.method === 'resources/subscribe') {
      if (upstream.state === 'ready' && !upstream.capabilities?.resources?.subscribe) {
        throw GatewayError.invalidParams(
          `Upstream '${upstream.name}' does not support resource subscriptions, so ${exposed} cannot be subscribed to.`,
          { upstream: upstream.name, uri: exposed },
        );
      }
      await this.#subscriptions.subscribe(ctx.session.id, upstream.name, uri, originOf(ctx));
      if (!this.#sessions.has(ctx.session.id)) {
        // The session closed while the subscribe was in flight: do not hold it on a dead session's behalf.
        await this.#subscriptions.unsubscribe(ctx.session.id, upstream.name, uri);
        throw GatewayError.fromUnknown(new Error('session closed before the subscription was established'));
      }
    } else {
      await this.#subscriptions.unsubscribe(ctx.session.id, upstream.name, uri, originOf(ctx));
    }
    return {};
  }

  async #complete(ctx: RequestContext): Promise<Record<string, unknown>> {
    const ref = ctx.params.ref;
    const target = isRecord(ref) ? this.#completionTarget(ref) : undefined;
    if (!target) {
      throw GatewayError.invalidParams(
        isRecord(ref) && ref.type === 'ref/prompt'
          ? `No upstream offers the prompt ${JSON.stringify(ref.name)}.`
          : 'completion/complete needs params.ref: {"type":"ref/resource","uri":<a uriTemplate from resources/templates/list>} or {"type":"ref/prompt","name":<prompt name>}.',
        { ref },
      );
    }
    checkCompletionArgument(ctx.params);
    const { upstream, ref: upstreamRef } = target;
    if (upstream.state === 'ready' && !upstream.capabilities?.completions) {
      return { completion: { values: [], hasMore: false } };
    }
    return upstream.request(
      'completion/complete',
      { ...withoutProgressToken(ctx.params), ref: upstreamRef },
      { signal: ctx.signal, origin: originOf(ctx) },
    );
  }

  /** Finds who completes `ref`: a resource template by its exposed URI, or a prompt by (prefixed) name. */
  #completionTarget(
    ref: Record<string, unknown>,
  ): { upstream: UpstreamConnection; ref: Record<string, unknown> } | undefined {
    const key = ref.type === 'ref/resource' ? 'uri' : ref.type === 'ref/prompt' ? 'name' : undefined;
    const exposed = key === undefined ? undefined : ref[key];
    if (key === undefined || typeof exposed !== 'string') return undefined;
    const split = splitExposedUri(exposed);
    const prefixed = split ? this.#upstreams.get(split.server) : undefined;
    if (split && prefixed?.config.prefix) return { upstream: prefixed, ref: { ...ref, [key]: split.uri } };
    const owner =
      key === 'uri' ? this.#catalog.resolveTemplate(exposed) : this.#catalog.resolvePrompt(exposed);
    const upstream = owner === undefined ? undefined : this.#upstreams.get(owner);
    return upstream ? { upstream, ref } : undefined;
  }

  /** Resolves an exposed URI to its upstream: unprefixed exact URIs, then `name+uri`, then unprefixed templates. */
  #route(exposed: string): { upstream: UpstreamConnection; uri: string } {
    const exact = this.#catalog.ownerOf(exposed);
    if (exact) return { upstream: this.#upstream(exact), uri: exposed };
    const split = splitExposedUri(exposed);
    if (split) {
      const upstream = this.#upstreams.get(split.server);
      if (upstream?.config.prefix) return { upstream, uri: split.uri };
    }
    const templated = this.#catalog.resolve(exposed);
    if (templated) return { upstream: this.#upstream(templated), uri: exposed };
    throw GatewayError.resourceNotFound(exposed, 'No configured upstream owns this URI.');
  }

  #notFoundAware(error: unknown, exposed: string): GatewayError {
    const e = GatewayError.fromUnknown(error);
    if (!isResourceNotFound(e)) return e;
    const upstream = typeof e.data?.upstream === 'string' ? e.data.upstream : undefined;
    const notFound = GatewayError.resourceNotFound(
      exposed,
      upstream ? `Upstream '${upstream}' has no such resource.` : undefined,
    );
    if (upstream && notFound.data) notFound.data.upstream = upstream;
    return notFound;
  }

  #upstream(name: string): UpstreamConnection {
    const upstream = this.#upstreams.get(name);
    if (!upstream) throw new Error(`unknown upstream ${name}`);
    return upstream;
  }

  // ---- upstream events ---------------------------------------------------------------------------

  #onUpstreamReady(u: UpstreamConnection): void {
    const tasks: Promise<unknown>[] = [];
    if (this.#catalog.has(u.name)) {
      tasks.push(
        this.#catalog
          .refresh(u.name, (method, cursor) => u.request(method, cursor === undefined ? {} : { cursor }), {
            prompts: Boolean(u.capabilities?.prompts),
          })
          .catch((error) =>
            this.#log.warn('could not index unprefixed server', { upstream: u.name, error: String(error) }),
          ),
      );
    }
    for (const uri of this.#subscriptions.urisOf(u.name)) {
      tasks.push(
        u.subscribe(uri).catch((error) =>
          this.#log.warn('could not re-establish subscription after reconnect', {
            upstream: u.name,
            uri,
            error: String(error),
          }),
        ),
      );
    }
    void Promise.all(tasks).then(() => {
      // The first connection of a startup is not a change any session could have seen.
      const initial = this.#firstAttempt.has(u.name);
      this.#markAttempted(u.name);
      if (!initial) this.#scheduleListChanged();
    });
  }

  #onUpstreamDown(u: UpstreamConnection, error: unknown): void {
    this.#log.warn('upstream disconnected', {
      upstream: u.name,
      error: error instanceof Error ? error.message : String(error),
    });
    // Updates sent while it is down are lost: whatever plugins hold for it may be stale.
    for (const watcher of this.#watchers.values())
      if (watcher.upstream === u.name) invalidate(watcher, this.#log);
    this.#scheduleListChanged();
  }

  /** start() settles once every upstream has connected or failed its first attempt. */
  #markAttempted(name: string): void {
    this.#firstAttempt.get(name)?.();
    this.#firstAttempt.delete(name);
  }

  #onUpstreamNotification(
    u: UpstreamConnection,
    method: string,
    params: Record<string, unknown>,
    origins: readonly RequestOrigin[],
  ): void {
    this.#notifyPlugins({ upstream: u.name, method, params }, this.#log);
    switch (method) {
      case 'notifications/resources/updated': {
        if (typeof params.uri !== 'string') return;
        const exposed = exposeUri(u.name, params.uri, u.config.prefix);
        for (const id of this.#subscriptions.subscribers(u.name, params.uri)) {
          const watcher = this.#watchers.get(id);
          if (watcher) invalidate(watcher, this.#log);
          else this.#send(id, method, { ...params, uri: exposed });
        }
        return;
      }
      case 'notifications/resources/list_changed':
        if (this.#catalog.has(u.name)) {
          void this.#catalog
            .refresh(u.name, (m, cursor) => u.request(m, cursor === undefined ? {} : { cursor }), {
              prompts: Boolean(u.capabilities?.prompts),
            })
            .catch(() => {})
            .then(() => this.#scheduleListChanged());
        } else {
          this.#scheduleListChanged();
        }
        return;
      case 'notifications/message': {
        const targets = new Set(origins.map((o) => o.sessionId));
        if (targets.size === 0) {
          this.#log.debug('upstream log message not tied to a request', {
            upstream: u.name,
            data: params.data,
          });
          return;
        }
        const routed = { ...params, logger: typeof params.logger === 'string' ? params.logger : u.name };
        for (const id of targets) this.#send(id, method, routed);
        return;
      }
    }
  }

  #scheduleListChanged(): void {
    if (this.#closed || this.#listChangedTimer) return;
    this.#listChangedTimer = setTimeout(() => {
      this.#listChangedTimer = undefined;
      for (const id of this.#sessions.keys()) this.#send(id, 'notifications/resources/list_changed', {});
    }, this.#debounceMs);
    this.#listChangedTimer.unref?.();
  }

  #send(sessionId: string, method: string, params: Record<string, unknown>): void {
    const session = this.#sessions.get(sessionId);
    if (!session) return;
    session.notify(method, params).catch((error) => {
      this.#log.debug('could not deliver notification', { session: sessionId, method, error: String(error) });
    });
  }
}

function originOf(ctx: RequestContext): RequestOrigin {
  return { sessionId: ctx.session.id, notify: ctx.notifyRelated, context: ctx };
}

/** Connected, and offering resource subscriptions. */
function subscribable(upstream: UpstreamConnection | undefined): boolean {
  return upstream?.state === 'ready' && Boolean(upstream.capabilities?.resources?.subscribe);
}

function invalidate(watcher: { onInvalidate: () => void }, log: Logger): void {
  try {
    watcher.onInvalidate();
  } catch (error) {
    log.warn('plugin watch callback failed', { error: String(error) });
  }
}

function requireUri(params: Record<string, unknown>): string {
  const uri = params.uri;
  if (typeof uri !== 'string' || uri.length === 0) {
    throw GatewayError.invalidParams('params.uri must be a non-empty string naming a resource.');
  }
  return uri;
}

function withoutProgressToken(params: Record<string, unknown>): Record<string, unknown> {
  const meta = params._meta;
  if (!isRecord(meta) || !('progressToken' in meta)) return params;
  const { progressToken: _drop, ...rest } = meta;
  const copy = { ...params };
  if (Object.keys(rest).length > 0) copy._meta = rest;
  else delete copy._meta;
  return copy;
}

/** The argument being completed, and the values of the others already chosen, as the spec shapes them. */
function checkCompletionArgument(params: Record<string, unknown>): void {
  const { argument, context } = params;
  if (!isRecord(argument) || typeof argument.name !== 'string' || typeof argument.value !== 'string') {
    throw GatewayError.invalidParams(
      'completion/complete needs params.argument: {"name":<the argument being completed>,"value":<what was typed so far>}.',
      { argument },
    );
  }
  if (context === undefined) return;
  const values = isRecord(context) ? context.arguments : undefined;
  if (
    !isRecord(context) ||
    (values !== undefined && !(isRecord(values) && Object.values(values).every((v) => typeof v === 'string')))
  ) {
    throw GatewayError.invalidParams(
      'completion/complete params.context, when given, must be {"arguments":{<name>:<value string>,…}}.',
      { context },
    );
  }
}

/** Runs a hook so that a synchronous throw becomes a rejection like an asynchronous one. */
async function settle(hook: () => unknown): Promise<void> {
  await hook();
}
