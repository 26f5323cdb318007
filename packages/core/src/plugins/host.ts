import semver from 'semver';
import type { RequestMiddleware } from '../context.js';
import type { Logger } from '../logger.js';
import type { RateLimitedLog } from '../rate-limited-log.js';
import { MemoryStore } from '../store/memory.js';
import type { Store } from '../store/store.js';
import { telemetryApi } from '../telemetry.js';
import { CORE_VERSION } from '../version.js';
import {
  HOOK_NAMES,
  isPlugin,
  type NamedRoute,
  type PluginGateway,
  type PluginHooks,
  type ResourceRoute,
  type SwitchyardPlugin,
  type TaskRoute,
  type UpstreamNotification,
} from './define.js';
import { PluginError } from './error.js';
import { PluginEventBus } from './events.js';
import { guardedHook } from './hook-guard.js';
import { runCloseHooks } from './lifecycle.js';
import { validateOptions } from './options.js';
import type { UpstreamCallMiddleware } from './upstream-call.js';

export interface LoadedPlugin {
  name: string;
  hooks: PluginHooks;
  /** The port through which the plugin reaches the gateway; the Gateway attaches itself to it. */
  port: GatewayPort;
}

/**
 * The plugins' view of the gateway, handed to `setup` before the Gateway exists (plugins are set up
 * first, then the Gateway is built with them and attaches itself here).
 */
export class GatewayPort implements PluginGateway {
  #target: PluginGateway | undefined;

  attach(target: PluginGateway): void {
    this.#target = target;
  }

  #gateway(): PluginGateway {
    if (!this.#target) throw new Error('the gateway is not running yet: use it from hooks, not during setup');
    return this.#target;
  }

  upstreams(): readonly string[] {
    return this.#gateway().upstreams();
  }

  route(exposedUri: string): ResourceRoute | undefined {
    return this.#gateway().route(exposedUri);
  }

  tool(exposedName: string): NamedRoute | undefined {
    return this.#gateway().tool(exposedName);
  }

  prompt(exposedName: string): NamedRoute | undefined {
    return this.#gateway().prompt(exposedName);
  }

  exposeName(kind: 'tools' | 'prompts', upstream: string, name: string): string | undefined {
    return this.#gateway().exposeName(kind, upstream, name);
  }

  completionTarget(ref: unknown): string | undefined {
    return this.#gateway().completionTarget(ref);
  }

  task(taskId: string, identity: string): TaskRoute | undefined {
    return this.#gateway().task(taskId, identity);
  }

  prefixed(upstream: string): boolean {
    return this.#gateway().prefixed(upstream);
  }

  exposeUri(upstream: string, uri: string): string {
    return this.#gateway().exposeUri(upstream, uri);
  }

  canSubscribe(upstream: string): boolean {
    return this.#gateway().canSubscribe(upstream);
  }

  watch(exposedUri: string, onInvalidate: () => void): Promise<() => Promise<void>> {
    return this.#gateway().watch(exposedUri, onInvalidate);
  }
}

export interface PluginEntry {
  plugin: unknown;
  options: unknown;
  /** Where the plugin came from (a package name or a path), for messages. */
  source: string;
  /** Where the entry is in the config (e.g. `$.plugins[2]`), for messages. */
  at?: string;
}

export interface PluginHost {
  baseDir?: string;
  /** The gateway's store (DESIGN §12); each plugin gets a view scoped to `plugin:<name>:`. Default: in memory. */
  store?: Store;
  /**
   * A running instance to keep for an entry instead of setting it up anew (a config reload keeps the
   * plugins whose options did not change); it is still checked against the plugins listed before it.
   */
  reuse?: (entry: PluginEntry) => LoadedPlugin | undefined;
  /** How long one plugin's `setup` may take (default `PLUGIN_SETUP_TIMEOUT_MS`). */
  setupTimeoutMs?: number;
}

/**
 * How long one plugin's `setup` may take before the start (or the reload) fails naming it: a setup that
 * never settled left the gateway exiting 0 with nothing said, or hanging, and every later reload queued
 * behind it.
 */
export const PLUGIN_SETUP_TIMEOUT_MS = 30_000;

/**
 * Checks and sets up plugins in order (metadata first: name, duplicates, required plugins listed
 * earlier, compatible core range; then the options, with the plugin's schema when it has one; then
 * `setup`, whose hooks must all be known). When one fails, the
 * instances this call set up are closed again before the error is thrown.
 */
export async function setupPlugins(
  entries: readonly PluginEntry[],
  logger: Logger,
  host: PluginHost = {},
): Promise<LoadedPlugin[]> {
  const loaded: LoadedPlugin[] = [];
  const port = new GatewayPort();
  const store = host.store ?? new MemoryStore();
  const bus = new PluginEventBus(() => loaded, logger);
  try {
    for (const entry of entries) loaded.push(await setupOne(entry, loaded, port, logger, host, store, bus));
  } catch (error) {
    const fresh = loaded.filter((p) => p.port === port);
    await runCloseHooks(fresh, logger);
    throw error;
  }
  // A kept instance's events reach this set from now on (its own bus was set up with an older one).
  for (const p of loaded) {
    const own = buses.get(p);
    if (own !== bus) own?.retarget(() => loaded);
  }
  return loaded;
}

async function setupOne(
  entry: PluginEntry,
  loaded: readonly LoadedPlugin[],
  port: GatewayPort,
  logger: Logger,
  host: PluginHost,
  store: Store,
  bus: PluginEventBus,
): Promise<LoadedPlugin> {
  const plugin = checked(entry, loaded);
  const reused = host.reuse?.(entry);
  if (reused) return reused;
  const { name } = plugin;
  const raw = entry.options ?? {};
  const options = plugin.options ? validateOptions(name, plugin.options, raw, entry.at) : raw;
  const { tracer, meter } = telemetryApi();
  let hooks: PluginHooks;
  const timeoutMs = host.setupTimeoutMs ?? PLUGIN_SETUP_TIMEOUT_MS;
  try {
    const setup: Promise<PluginHooks | undefined> = Promise.resolve(
      plugin.setup(options, {
        logger: logger.child(`plugin:${name}`),
        loaded: loaded.map((p) => p.name),
        baseDir: host.baseDir ?? process.cwd(),
        gateway: port,
        store: store.scoped(`plugin:${name}:`),
        events: bus.emitter(name),
        tracer,
        meter,
      }),
    );
    hooks = (await withinSetupTime(setup, timeoutMs, name, logger)) ?? {};
  } catch (error) {
    throw new PluginError(
      'PLUGIN_SETUP_FAILED',
      name,
      `Plugin ${name} failed to set up: ${error instanceof Error ? error.message : String(error)}`,
      { cause: error },
    );
  }
  if (typeof hooks !== 'object' || Array.isArray(hooks)) {
    throw new PluginError(
      'PLUGIN_INVALID_HOOK',
      name,
      `Plugin ${name}'s setup returned ${Array.isArray(hooks) ? 'an array' : `a ${typeof hooks}`}, not an object of hooks (${HOOK_NAMES.join(', ')}).`,
    );
  }
  const unknown = Object.keys(hooks).find((key) => !(HOOK_NAMES as readonly string[]).includes(key));
  if (unknown !== undefined) {
    await runCloseHooks([{ name, hooks, port }], logger);
    throw new PluginError(
      'PLUGIN_UNKNOWN_HOOK',
      name,
      `Plugin ${name} returned an unknown hook "${unknown}" (known: ${HOOK_NAMES.join(', ')}).`,
    );
  }
  const wrong = HOOK_NAMES.find((key) => hooks[key] !== undefined && typeof hooks[key] !== HOOK_KINDS[key]);
  if (wrong !== undefined) {
    await runCloseHooks([{ name, hooks: { ...hooks, [wrong]: undefined }, port }], logger);
    throw new PluginError(
      'PLUGIN_INVALID_HOOK',
      name,
      `Plugin ${name} returned a "${wrong}" hook that is a ${typeof hooks[wrong]}, not ${HOOK_KINDS[wrong] === 'object' ? 'an object' : 'a function'}.`,
    );
  }
  const instance = { name, hooks, port };
  buses.set(instance, bus);
  return instance;
}

/** What each hook is: `admin` describes routes and a status section, every other hook is called. */
const HOOK_KINDS: Record<(typeof HOOK_NAMES)[number], 'function' | 'object'> = {
  request: 'function',
  upstreamCall: 'function',
  notification: 'function',
  ready: 'function',
  close: 'function',
  stats: 'function',
  admin: 'object',
  event: 'function',
};

/**
 * A plugin's setup, or a failure once `timeoutMs` passed without it; a setup that finishes after that
 * has its `close` hook run (what it opened is released), since nothing will use it.
 */
async function withinSetupTime(
  setup: Promise<PluginHooks | undefined>,
  timeoutMs: number,
  name: string,
  logger: Logger,
): Promise<PluginHooks | undefined> {
  let timer: NodeJS.Timeout | undefined;
  const late = new Promise<never>((_, reject) => {
    timer = setTimeout(() => {
      reject(new Error(`it did not finish within ${timeoutMs} ms`));
      void setup.then(
        (hooks) => hooks && runCloseHooks([{ name, hooks, port: new GatewayPort() }], logger),
        () => {},
      );
    }, timeoutMs);
  });
  try {
    return await Promise.race([setup, late]);
  } finally {
    clearTimeout(timer);
  }
}

/** The event bus each instance was set up with (retargeted when a reload keeps the instance). */
const buses = new WeakMap<LoadedPlugin, PluginEventBus>();

/**
 * What `setupPlugins` checks before any `setup` runs, without setting anything up (`switchyard check`):
 * each plugin's metadata against the plugins listed before it, and its options against its schema.
 * Throws the `PluginError` a start would. What a plugin checks in its own `setup` shows only at start.
 */
export function checkPlugins(entries: readonly PluginEntry[]): void {
  const listed: { name: string }[] = [];
  for (const entry of entries) {
    const plugin = checked(entry, listed);
    if (plugin.options) validateOptions(plugin.name, plugin.options, entry.options ?? {}, entry.at);
    listed.push({ name: plugin.name });
  }
}

/** A plugin's metadata checked against the plugins listed before it (name, duplicates, requires, core range). */
function checked(entry: PluginEntry, loaded: readonly { name: string }[]): SwitchyardPlugin<unknown> {
  const { plugin, source } = entry;
  if (!isPlugin(plugin) || typeof plugin.name !== 'string' || plugin.name.length === 0) {
    throw new PluginError(
      'PLUGIN_INVALID',
      source,
      `${source} does not export a plugin: default-export the result of definePlugin({ name, setup }) from @switchyard/core.`,
    );
  }
  const name = plugin.name;
  if (loaded.some((p) => p.name === name)) {
    throw new PluginError('PLUGIN_DUPLICATE', name, `Plugin ${name} is listed twice; list it once.`);
  }
  for (const required of plugin.requires ?? []) {
    if (!loaded.some((p) => p.name === required)) {
      throw new PluginError(
        'PLUGIN_MISSING_DEPENDENCY',
        name,
        `Plugin ${name} requires ${required}: list ${required} before it in "plugins".`,
      );
    }
  }
  if (
    plugin.core !== undefined &&
    !semver.satisfies(CORE_VERSION, plugin.core, { includePrerelease: true })
  ) {
    throw new PluginError(
      'PLUGIN_INCOMPATIBLE',
      name,
      `Plugin ${name} supports @switchyard/core ${plugin.core}, but this is ${CORE_VERSION}: upgrade one of them.`,
    );
  }
  return plugin;
}

/** The hooks of loaded plugins, in the shapes the gateway consumes. */
export function pluginHooks(plugins: readonly LoadedPlugin[], noise: RateLimitedLog) {
  return {
    request: plugins.flatMap((p) =>
      p.hooks.request ? [guardedHook(p.name, 'request', p.hooks.request, noise)] : [],
    ) as RequestMiddleware[],
    upstreamCall: plugins.flatMap((p) =>
      p.hooks.upstreamCall ? [guardedHook(p.name, 'upstreamCall', p.hooks.upstreamCall, noise)] : [],
    ) as UpstreamCallMiddleware[],
    /** Runs every plugin's hook; resolves when the ones that returned a promise settle (undefined: none did). */
    notification: (n: UpstreamNotification, log: Logger): Promise<void> | undefined => {
      const pending: Promise<void>[] = [];
      const failed = (name: string) => (error: unknown) => {
        log.warn('plugin notification hook failed', { plugin: name, error: String(error) });
      };
      for (const p of plugins) {
        try {
          const held = p.hooks.notification?.(n);
          if (isPromiseLike(held)) pending.push(Promise.resolve(held).then(() => {}, failed(p.name)));
        } catch (error) {
          failed(p.name)(error);
        }
      }
      return pending.length > 0 ? Promise.all(pending).then(() => {}) : undefined;
    },
  };
}

function isPromiseLike(value: unknown): value is PromiseLike<unknown> {
  return typeof (value as PromiseLike<unknown> | undefined)?.then === 'function';
}
