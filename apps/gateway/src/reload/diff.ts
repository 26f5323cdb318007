import type { UpstreamChanges } from '@switchyard/core';
import { canonical } from '../config/canonical.js';
import type { GatewayConfig } from '../config/load.js';

/** What differs between the running config and a new one, beside the upstream set. */
export interface ConfigDiff {
  /** `clients` or `anonymous`: the static identities and their tokens. */
  clients: boolean;
  /** `auth.oauth`. */
  oauth: boolean;
  limits: boolean;
  shutdownGraceMs: boolean;
  plugins: boolean;
  /** `virtualServers` or the top-level `toolSearch` (DESIGN §13). */
  endpoints: boolean;
  /** Settings a reload cannot apply (the process must restart for them), by config key. */
  restartOnly: string[];
}

/** The settings a reload cannot apply: they stay as the process started with them until it restarts. */
export const RESTART_ONLY = [
  'listen',
  'telemetry',
  'cursorSecret',
  'store',
  'credentials',
  'logLevel',
] as const;

/** Compares everything but the upstreams (the gateway reports those as it applies them). */
export function diffConfig(running: GatewayConfig, next: GatewayConfig): ConfigDiff {
  const differs = (a: unknown, b: unknown) => canonical(a) !== canonical(b);
  return {
    clients: differs(running.clients, next.clients) || running.anonymous !== next.anonymous,
    oauth: differs(running.auth, next.auth),
    limits: differs(running.limits, next.limits),
    shutdownGraceMs: running.shutdownGraceMs !== next.shutdownGraceMs,
    plugins: differs(running.plugins, next.plugins),
    endpoints:
      differs([...(running.virtualServers ?? [])], [...(next.virtualServers ?? [])]) ||
      differs(running.toolSearch, next.toolSearch),
    restartOnly: RESTART_ONLY.filter((key) => differs(running[key], next[key])),
  };
}

/**
 * The one-line summary of a reload: `+added -removed ~changed` servers, then the other sections that
 * changed (`clients limits`), or `no changes`.
 *
 * @example
 * describeReload({ added: ['docs'], removed: [], changed: ['gh'] }, diff) // "+docs ~gh clients"
 */
export function describeReload(upstreams: UpstreamChanges, diff: ConfigDiff): string {
  const parts = [
    ...upstreams.added.map((n) => `+${n}`),
    ...upstreams.removed.map((n) => `-${n}`),
    ...upstreams.changed.map((n) => `~${n}`),
  ];
  if (diff.clients) parts.push('clients');
  if (diff.oauth) parts.push('oauth');
  if (diff.limits) parts.push('limits');
  if (diff.shutdownGraceMs) parts.push('shutdownGraceMs');
  if (diff.plugins) parts.push('plugins');
  if (diff.endpoints) parts.push('virtualServers');
  for (const key of diff.restartOnly) parts.push(`${key}(restart needed)`);
  return parts.length > 0 ? parts.join(' ') : 'no changes';
}
