import type { Gateway, StatsSnapshot, UpstreamStatus, VirtualServerSummary } from '@switchyard/core';
import { listenerRefusals } from '../listeners/limits.js';
import type { Readiness } from './health.js';

/** A config reload as the status page lists it (SIGHUP or a change of the config file). */
export interface ReloadRecord {
  time: string;
  outcome: 'applied' | 'refused';
  added?: string[];
  removed?: string[];
  changed?: string[];
  error?: string;
}

/** The JSON of `/admin/status`: everything the status page shows (documented in docs/operations.md). */
export interface AdminStatus {
  time: string;
  version: string;
  /** When the gateway started (ISO). */
  startedAt: string;
  uptimeMs: number;
  readiness: Readiness['body'];
  listeners: { kind: string; url: string }[];
  upstreams: (UpstreamStatus & { calls: number; errors: number; p50Ms?: number; p99Ms?: number })[];
  sessions: { total: number; byIdentity: { identity: string; transport: string; sessions: number }[] };
  /** The virtual servers (DESIGN §13): what each exposes, its open sessions and where clients reach it. */
  virtualServers: (VirtualServerSummary & { sessions: number; urls: string[] })[];
  subscriptions: number;
  requests: StatsSnapshot['requests'];
  refusals: StatsSnapshot['refusals'];
  /** Read outcomes seen by the cache plugin, and its own size figures; absent without the plugin. */
  cache?: StatsSnapshot['cache'] & { bytes?: number; entries?: number; maxBytes?: number };
  plugins: Record<string, Record<string, number>>;
  reloads: ReloadRecord[];
  series: StatsSnapshot['series'];
  recent: StatsSnapshot['recent'];
  /** Sections the plugins add (their `admin.status`), e.g. `pins`, by key. */
  [section: string]: unknown;
}

export interface StatusSources {
  gateway: Gateway;
  version: string;
  startedAt: number;
  listeners: () => { kind: string; url: string }[];
  readiness: () => Readiness;
  reloads: () => ReloadRecord[];
}

const CACHE_PLUGIN = '@switchyard/plugin-cache';

/** Collects the status page's JSON from the gateway's status, its statistics and the plugins' stats hooks. */
export function collectStatus(sources: StatusSources): AdminStatus {
  const { gateway } = sources;
  const stats = gateway.stats.snapshot();
  const plugins = gateway.pluginStats();
  const cachePlugin = plugins[CACHE_PLUGIN];
  return {
    // The plugins' own sections (e.g. `pins`, `approvals`); the gateway's keys below win a clash.
    ...gateway.pluginAdminStatus(),
    time: new Date().toISOString(),
    version: sources.version,
    startedAt: stats.startedAt,
    uptimeMs: Date.now() - sources.startedAt,
    readiness: sources.readiness().body,
    listeners: sources.listeners(),
    upstreams: gateway.status().map((u) => ({ ...u, calls: 0, errors: 0, ...stats.upstreams[u.name] })),
    sessions: { total: gateway.sessionCount, byIdentity: gateway.sessionSummary() },
    virtualServers: gateway.virtualServers().map((v) => ({
      ...v,
      sessions: gateway.sessionsAt(v.name),
      urls: sources
        .listeners()
        .map((l) => (l.kind === 'stdio' ? `stdio: --virtual-server ${v.name}` : `${l.url}/${v.name}`)),
    })),
    subscriptions: gateway.subscriptionCount,
    requests: stats.requests,
    refusals: addCounts(stats.refusals, listenerRefusals()),
    cache: cachePlugin ? { ...stats.cache, ...cachePlugin } : undefined,
    plugins,
    reloads: sources.reloads(),
    series: stats.series,
    recent: stats.recent,
  };
}

/** Two tallies by reason, added up. */
function addCounts(a: Readonly<Record<string, number>>, b: Readonly<Record<string, number>>) {
  const sum = new Map(Object.entries(a));
  for (const [reason, n] of Object.entries(b)) sum.set(reason, (sum.get(reason) ?? 0) + n);
  return Object.fromEntries(sum);
}
