import type { Meter, Tracer } from '@opentelemetry/api';
import type { RequestMiddleware } from '../context.js';
import type { Logger } from '../logger.js';
import type { Store } from '../store/store.js';
import type { PluginAdmin } from './admin.js';
import type { PluginEvent, PluginEvents } from './events.js';
import type { OptionsSchema } from './options.js';
import type { UpstreamCallMiddleware } from './upstream-call.js';

export interface UpstreamNotification {
  readonly upstream: string;
  readonly method: string;
  readonly params: Record<string, unknown>;
}

/** What a plugin's `setup` returns: every hook is optional; unknown hook names are refused at load. */
export interface PluginHooks {
  /** Request middleware (onion: the first plugin listed is outermost; errors arrive as values). */
  request?: RequestMiddleware;
  /** Upstream-call middleware: wraps each call to one upstream (onion, errors as values, like `request`). */
  upstreamCall?: UpstreamCallMiddleware;
  /**
   * Sees every notification an upstream sends (updated, list_changed, log messages). A promise returned
   * for `notifications/resources/updated` holds the notification back from the sessions until it settles
   * (at most 1 s): e.g. a shared cache tells the other replicas first, so a client told "updated" that
   * reads on another replica reads the new content.
   */
  // `unknown`, not `void | Promise<void>`: hooks written as `(n) => list.push(n)` keep compiling.
  notification?: (notification: UpstreamNotification) => unknown;
  /** After the gateway has connected its upstreams. */
  ready?: () => void | Promise<void>;
  /** When the gateway shuts down (in reverse load order). */
  close?: () => void | Promise<void>;
  /** A read-only snapshot of the plugin's own figures for the status page (e.g. a cache's bytes). */
  stats?: () => Record<string, number>;
  /** A section of `/admin/status` and endpoints of the plugin's own on the admin listener. */
  admin?: PluginAdmin;
  /**
   * Sees the governance events other plugins emit (`events.emit` in their setup context), in load
   * order: e.g. the audit log records `pin.approved`. A returned promise is awaited by the emitter; a
   * hook that throws or rejects is logged and the others still run.
   */
  event?: (event: PluginEvent) => unknown;
}

export const HOOK_NAMES = [
  'request',
  'upstreamCall',
  'notification',
  'ready',
  'close',
  'stats',
  'admin',
  'event',
] as const;

/** A route: the upstream serving an exposed URI, and the URI as that upstream knows it. */
export interface ResourceRoute {
  readonly upstream: string;
  readonly uri: string;
}

/** A route: the upstream serving an exposed tool or prompt name, and the name that upstream knows. */
export interface NamedRoute {
  readonly upstream: string;
  readonly name: string;
}

/** The tool call a task was created by: its upstream, the tool's own name there, and its exposed name. */
export interface TaskRoute extends NamedRoute {
  readonly exposed: string;
}

/** What a plugin may ask of the gateway it runs in (usable from the first request on, not during setup). */
export interface PluginGateway {
  /** The configured upstream names, in config order, whether or not they are connected right now. */
  upstreams(): readonly string[];
  /** The upstream that serves an exposed URI (exact unprefixed URIs, then `name+uri`, then templates). */
  route(exposedUri: string): ResourceRoute | undefined;
  /** The upstream tool an exposed tool name leads to (`<server>__<tool>`), or undefined when none does. */
  tool(exposedName: string): NamedRoute | undefined;
  /** The upstream prompt an exposed prompt name leads to, or undefined when none does. */
  prompt(exposedName: string): NamedRoute | undefined;
  /**
   * The tool call that created a task, for a task id this gateway handed to `identity` (a task's methods
   * are routed, and judged, as that tool); undefined for any other id.
   */
  task(taskId: string, identity: string): TaskRoute | undefined;
  /**
   * The name clients see for an upstream's own tool or prompt name (`server__name`, mapped to the
   * allowed characters), or undefined when the server's curation hides it.
   */
  exposeName(kind: 'tools' | 'prompts', upstream: string, name: string): string | undefined;
  /**
   * The upstream that answers a `completion/complete` for `ref` (a `ref/resource` template URI, or a
   * `ref/prompt` name), exactly as the gateway will route it; undefined when none does.
   */
  completionTarget(ref: unknown): string | undefined;
  /** Whether an upstream's names and URIs carry its prefix (`"prefix": false` exposes them unchanged). */
  prefixed(upstream: string): boolean;
  /** The URI clients see for an upstream's own URI (`name+uri`, or unchanged for `prefix: false`). */
  exposeUri(upstream: string, uri: string): string;
  /** Whether an upstream is connected and offers resource subscriptions. */
  canSubscribe(upstream: string): boolean;
  /**
   * Holds an upstream subscription on an exposed URI, through the same reference-counted table as
   * client subscriptions, and calls `onInvalidate` when the upstream says the resource changed or the
   * upstream disconnects (updates may have been missed). Resolves to a release function; rejects when
   * the upstream refuses or cannot subscribe.
   */
  watch(exposedUri: string, onInvalidate: () => void): Promise<() => Promise<void>>;
}

export interface PluginSetupContext {
  /** A logger scoped to the plugin (`[switchyard:plugin:<name>]`). */
  logger: Logger;
  /** The names of the plugins loaded before this one. */
  loaded: readonly string[];
  /** The folder relative paths in options resolve from: the config file's folder (else the working directory). */
  baseDir: string;
  /** The gateway the plugin runs in (routes, exposure, coherent subscriptions). */
  gateway: PluginGateway;
  /**
   * The gateway's store (DESIGN §12), scoped to this plugin's keys and channels: in memory by default,
   * shared by every replica (`store.shared`) when `store.redis` is configured.
   */
  store: Store;
  /**
   * Emits governance events (an approval, a quarantine) to the other plugins' `event` hooks. The host
   * always sets it; optional so that contexts built by hand (in tests) need not.
   */
  events?: PluginEvents;
  /** OpenTelemetry tracer and meter (no-ops unless the app switches telemetry on). */
  tracer: Tracer;
  meter: Meter;
}

export interface PluginDefinition<Options = Record<string, unknown>> {
  /** Unique name, e.g. `@switchyard/plugin-audit` or `acme-policy`. */
  name: string;
  version?: string;
  /** Plugins that must be listed before this one. */
  requires?: readonly string[];
  /** The @switchyard/core versions this plugin works with (a semver range, e.g. `^0.1.0`). */
  core?: string;
  /**
   * The options schema (any Standard Schema v1, e.g. a zod 4 schema): the host validates the config's
   * options with it before `setup`, which receives its output (defaults applied); a failure names the
   * plugin and each option's path. Without it, `setup` gets the options as configured, unchecked.
   */
  options?: OptionsSchema<Options>;
  setup(options: Options, context: PluginSetupContext): PluginHooks | Promise<PluginHooks>;
}

const BRAND = Symbol.for('switchyard.plugin');

export type SwitchyardPlugin<Options = Record<string, unknown>> = PluginDefinition<Options> & {
  readonly [BRAND]: true;
};

/**
 * Declares a plugin. A plugin package (or local file) default-exports the result.
 *
 * @example
 * export default definePlugin({
 *   name: 'acme-deny-secrets',
 *   options: z.strictObject({ word: z.string().default('secret') }),
 *   core: '^0.1.0',
 *   setup: (options) => ({
 *     request: async (ctx, next) =>
 *       String(ctx.params.uri ?? '').includes(options.word) ? { ok: false, error: GatewayError.forbidden('no') } : next(),
 *   }),
 * });
 */
export function definePlugin<Options = Record<string, unknown>>(
  definition: PluginDefinition<Options>,
): SwitchyardPlugin<Options> {
  return Object.freeze({ ...definition, [BRAND]: true as const });
}

export function isPlugin(value: unknown): value is SwitchyardPlugin<unknown> {
  return typeof value === 'object' && value !== null && (value as Record<symbol, unknown>)[BRAND] === true;
}
