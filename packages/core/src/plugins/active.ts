import type { RequestContext } from '../context.js';
import type { Logger } from '../logger.js';
import type { Outcome } from '../middleware.js';
import type { CallChain } from '../upstream/call-chain.js';
import { collectAdminStatus, findAdminRoute } from './admin.js';
import type { PluginGateway, UpstreamNotification } from './define.js';
import type { LoadedPlugin } from './host.js';
import { collectPluginStats, runCloseHooks, runReadyHooks } from './lifecycle.js';

/** What the gateway builds from one set of plugins: its request chain, its upstream-call chain, its notification hook. */
export interface PluginChains {
  run(ctx: RequestContext): Promise<Outcome>;
  chain: CallChain;
  notify(notification: UpstreamNotification): Promise<void> | undefined;
}

/** One set of plugin instances and the requests that entered through it. */
class Generation {
  readonly plugins: readonly LoadedPlugin[];
  readonly chains: PluginChains;
  #inflight = 0;
  #idle: (() => void)[] = [];

  constructor(plugins: readonly LoadedPlugin[], chains: PluginChains) {
    this.plugins = plugins;
    this.chains = chains;
  }

  enter(): void {
    this.#inflight++;
  }

  leave(): void {
    if (--this.#inflight > 0) return;
    for (const resolve of this.#idle.splice(0)) resolve();
  }

  /** Resolves once no request that entered through this generation is still running, or after `maxMs`. */
  drained(maxMs: number): Promise<void> {
    if (this.#inflight === 0) return Promise.resolve();
    return new Promise((resolve) => {
      const timer = setTimeout(resolve, maxMs);
      timer.unref?.();
      this.#idle.push(() => {
        clearTimeout(timer);
        resolve();
      });
    });
  }
}

/**
 * The plugins in effect and their lifecycle, replaceable while the gateway runs (a config reload, DESIGN
 * §10). A request runs start to end through the generation it entered by, its upstream calls included,
 * so a request in flight never sees half of the old plugins and half of the new. The gateway's own
 * upstream calls (no request) and notifications go through the newest generation.
 */
export class ActivePlugins {
  #current: Generation;
  /** The generation each running request entered through (for its upstream calls). */
  readonly #entered = new WeakMap<RequestContext, Generation>();
  readonly #build: (plugins: readonly LoadedPlugin[]) => PluginChains;
  readonly #log: Logger;
  /** Replaced instances waiting for their requests to finish before they are closed. */
  readonly #retiring = new Set<LoadedPlugin>();
  #view: PluginGateway | undefined;
  #started = false;
  #closed = false;

  constructor(
    plugins: readonly LoadedPlugin[],
    build: (plugins: readonly LoadedPlugin[]) => PluginChains,
    log: Logger,
  ) {
    this.#build = build;
    this.#log = log;
    this.#current = new Generation(plugins, build(plugins));
  }

  /** Gives the plugins (and every set put in effect later) their view of the gateway. */
  attach(view: PluginGateway): void {
    this.#view = view;
    this.#attach(this.plugins);
  }

  #attach(plugins: readonly LoadedPlugin[]): void {
    const view = this.#view;
    if (view) for (const port of new Set(plugins.map((p) => p.port))) port.attach(view);
  }

  /** Runs the `ready` hooks (once the upstreams have had their first attempt). */
  async ready(): Promise<void> {
    this.#started = true;
    await runReadyHooks(this.plugins, this.#log);
  }

  /** Each plugin's own figures (its `stats` hook), by plugin name. */
  stats(): Record<string, Record<string, number>> {
    return collectPluginStats(this.plugins, this.#log);
  }

  /** The plugins' sections of `/admin/status`. */
  adminStatus(): Record<string, unknown> {
    return collectAdminStatus(this.plugins, this.#log);
  }

  /** The admin route of the plugins in effect for `method` at `path` (below `/admin/`). */
  adminRoute(method: string, path: string): ReturnType<typeof findAdminRoute> {
    return findAdminRoute(this.plugins, method, path);
  }

  /** The plugin instances now in effect, in load order. */
  get plugins(): readonly LoadedPlugin[] {
    return this.#current.plugins;
  }

  /** Runs a request through the plugins now in effect. */
  run(ctx: RequestContext): Promise<Outcome> {
    const generation = this.#current;
    generation.enter();
    this.#entered.set(ctx, generation);
    return generation.chains.run(ctx).finally(() => generation.leave());
  }

  /** The upstream-call chain, of the generation the call's request entered by (else the newest). */
  readonly chain: CallChain = (upstream, method, params, request, send) => {
    const generation = (request && this.#entered.get(request)) ?? this.#current;
    return generation.chains.chain(upstream, method, params, request, send);
  };

  notify(notification: UpstreamNotification): Promise<void> | undefined {
    return this.#current.chains.notify(notification);
  }

  /**
   * Puts `plugins` in effect. Instances in both sets keep running; new ones get their `ready` hook first
   * (once the gateway has started). Resolves once requests run through the new set; requests in flight
   * finish through the old one, and then (or after `drainMs`) the old instances not kept are closed:
   * `closed` settles when they are.
   */
  async replace(plugins: readonly LoadedPlugin[], drainMs: number): Promise<{ closed: Promise<void> }> {
    const fresh = plugins.filter((p) => !this.plugins.includes(p));
    this.#attach(fresh);
    if (this.#started) await runReadyHooks(fresh, this.#log);
    const old = this.#current;
    this.#current = new Generation(plugins, this.#build(plugins));
    const retired = old.plugins.filter((p) => !plugins.includes(p));
    for (const p of retired) this.#retiring.add(p);
    const closed = old.drained(drainMs).then(() =>
      // close() may have closed them meanwhile.
      runCloseHooks(
        retired.filter((p) => this.#retiring.delete(p)),
        this.#log,
      ),
    );
    return { closed };
  }

  /** Runs the `close` hooks of every instance not closed yet (the gateway shuts down). */
  async close(): Promise<void> {
    if (this.#closed) return;
    this.#closed = true;
    const retiring = [...this.#retiring];
    this.#retiring.clear();
    await runCloseHooks([...retiring, ...this.plugins], this.#log);
  }
}
