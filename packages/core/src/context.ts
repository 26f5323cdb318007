import type { Outcome } from './middleware.js';

export type DownstreamTransportKind = 'stdio' | 'http' | 'ws' | 'memory';

/** A downstream session as the core sees it: an id and a way to push notifications to it. */
export interface SessionSink {
  readonly id: string;
  readonly transport: DownstreamTransportKind;
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
  readonly signal: AbortSignal;
  /** Set when the downstream asked for progress; forwards upstream progress to it. */
  readonly onProgress?: (update: ProgressUpdate) => void;
  /** Sends a notification tied to this request (on HTTP it travels on the request's own stream). */
  readonly notifyRelated: (method: string, params: Record<string, unknown>) => Promise<void>;
  /** Scratch space for middleware (e.g. a cache writing its status for an audit log). */
  readonly state: Map<string, unknown>;
}

export type RequestMiddleware = (ctx: RequestContext, next: () => Promise<Outcome>) => Promise<Outcome>;
