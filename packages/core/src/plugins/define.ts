import type { RequestMiddleware } from '../context.js';
import type { Logger } from '../logger.js';

/** One call the gateway makes to one upstream (a list fan-out makes one per upstream). */
export interface UpstreamCall {
  readonly upstream: string;
  readonly method: string;
  readonly params: Record<string, unknown> | undefined;
}

export type UpstreamCallMiddleware = (
  call: UpstreamCall,
  next: () => Promise<Record<string, unknown>>,
) => Promise<Record<string, unknown>>;

export interface UpstreamNotification {
  readonly upstream: string;
  readonly method: string;
  readonly params: Record<string, unknown>;
}

/** What a plugin's `setup` returns: every hook is optional; unknown hook names are refused at load. */
export interface PluginHooks {
  /** Request middleware (onion: the first plugin listed is outermost; errors arrive as values). */
  request?: RequestMiddleware;
  /** Wraps each call to one upstream. */
  upstreamCall?: UpstreamCallMiddleware;
  /** Sees every notification an upstream sends (updated, list_changed, log messages). */
  notification?: (notification: UpstreamNotification) => void;
  /** After the gateway has connected its upstreams. */
  ready?: () => void | Promise<void>;
  /** When the gateway shuts down (in reverse load order). */
  close?: () => void | Promise<void>;
}

export const HOOK_NAMES = ['request', 'upstreamCall', 'notification', 'ready', 'close'] as const;

export interface PluginSetupContext {
  /** A logger scoped to the plugin (`[switchyard:plugin:<name>]`). */
  logger: Logger;
  /** The names of the plugins loaded before this one. */
  loaded: readonly string[];
}

export interface PluginDefinition<Options = Record<string, unknown>> {
  /** Unique name, e.g. `@switchyard/plugin-audit` or `acme-policy`. */
  name: string;
  version?: string;
  /** Plugins that must be listed before this one. */
  requires?: readonly string[];
  /** The @switchyard/core versions this plugin works with (a semver range, e.g. `^0.1.0`). */
  core?: string;
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
 *   core: '^0.1.0',
 *   setup: () => ({
 *     request: async (ctx, next) =>
 *       String(ctx.params.uri ?? '').includes('secret') ? { ok: false, error: GatewayError.forbidden('no') } : next(),
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
