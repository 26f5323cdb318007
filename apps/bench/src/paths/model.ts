/**
 * Section 6 (paths): the request path through the gateway on every upstream transport and client era,
 * for `resources/read` and `tools/call`, compared with the same upstream served directly in the same run.
 */

import type { ComparedLevel } from '../rounds.js';
import type { IdleSessionMemory } from '../session-memory/index.js';
import type { Sizes } from '../sizes.js';
import type { profileCell } from './profiles.js';

/** How the gateway (and the direct client) reaches the upstream. */
export const UPSTREAM_KINDS = ['stdio', 'http-legacy', 'http-modern', 'ws'] as const;
export type UpstreamKind = (typeof UPSTREAM_KINDS)[number];

/** The client's protocol era: a 2025-11-25 session, or sessionless 2026-07-28 requests. */
export const CLIENT_ERAS = ['legacy', 'modern'] as const;
export type ClientEra = (typeof CLIENT_ERAS)[number];

/** What each request does: `resources/read` of a 1 KiB resource, or `tools/call` of an echo tool. */
export const PATH_METHODS = ['read', 'call'] as const;
export type PathMethod = (typeof PATH_METHODS)[number];

/** The gateway's name for each upstream (its `mcpServers` key: URI and tool-name prefix). */
export const UPSTREAM_NAMES: Record<UpstreamKind, string> = {
  stdio: 'stdio',
  'http-legacy': 'http',
  'http-modern': 'modern',
  ws: 'ws',
};

/** Human labels of the upstream kinds, for the table. */
export const UPSTREAM_LABELS: Record<UpstreamKind, string> = {
  stdio: 'stdio',
  'http-legacy': 'HTTP legacy hop',
  'http-modern': 'HTTP modern hop',
  ws: 'WebSocket',
};

export type PathsConfig = Sizes['paths'];

/** One cell of the matrix: an upstream transport, a client era, a method, a concurrency. */
export interface PathCell {
  upstream: UpstreamKind;
  era: ClientEra;
  method: PathMethod;
  concurrency: number;
}

/**
 * The sides of a cell: direct to the upstream, through the floor proxy (floor-proxy.ts), through HAProxy
 * (`mode http`, HTTP upstreams only), or through the gateway.
 */
export type PathSide = 'direct' | 'floor' | 'haproxy' | 'gateway';

/**
 * A cell's result (rounds.ts `ComparedLevel`): the median round of each side (`cpuUsPerRead`: µs per request
 * of the client and of the side's middle process, by side name), the gateway compared with each other side
 * that ran, every round.
 */
export interface PathResult extends PathCell, ComparedLevel {
  /** Why there is no direct side (the upstream does not serve this era that way), or undefined. */
  noDirect?: string;
}

export interface PathsResult {
  config: PathsConfig;
  cells: PathResult[];
  /** 6b: idle legacy sessions on a fresh gateway (session-memory/, as section 7). */
  memory?: IdleSessionMemory;
  profiles?: Awaited<ReturnType<typeof profileCell>>[];
  /** Warning kinds the gateway logged while measuring (digits masked) → count. */
  gatewayWarnings: Record<string, number>;
  /** Why there are no HAProxy rounds (not installed), or undefined when the HTTP cells have them. */
  haproxySkipped?: string;
}
