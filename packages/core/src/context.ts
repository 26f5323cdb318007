import type { Outcome } from './middleware.js';

export type DownstreamTransportKind = 'stdio' | 'http' | 'ws' | 'memory';

/**
 * Who is calling: resolved by the gateway from a bearer token (HTTP, WebSocket) or the configured
 * `anonymous` identity (stdio, and tokenless requests when allowed). Plugins authorize on it.
 */
export interface Identity {
  /** The client's name from the config (`clients.<id>`), or the anonymous identity. */
  readonly id: string;
  readonly groups: readonly string[];
  /** True when no token was presented (stdio, or a tokenless request with `anonymous` set). */
  readonly anonymous: boolean;
}

/** A downstream session as the core sees it: an id, its identity, and a way to push notifications to it. */
export interface SessionSink {
  readonly id: string;
  readonly transport: DownstreamTransportKind;
  readonly identity: Identity;
  notify(method: string, params: Record<string, unknown>): Promise<void>;
}

export interface ProgressUpdate {
  progress: number;
  total?: number;
  message?: string;
}

/** Everything a request carries through the middleware chain, independent of the wire era. */
export interface RequestContext {
  readonly method: string;
  params: Record<string, unknown>;
  readonly session: SessionSink;
  /** The caller (the same as `session.identity`). */
  readonly identity: Identity;
  readonly signal: AbortSignal;
  /** Set when the downstream asked for progress; forwards upstream progress to it. */
  readonly onProgress?: (update: ProgressUpdate) => void;
  /** Sends a notification tied to this request (on HTTP it travels on the request's own stream). */
  readonly notifyRelated: (method: string, params: Record<string, unknown>) => Promise<void>;
  /** Scratch space for middleware (e.g. a cache writing its status for an audit log). */
  readonly state: Map<string, unknown>;
}

export type RequestMiddleware = (ctx: RequestContext, next: () => Promise<Outcome>) => Promise<Outcome>;
