import type { CancelSignal } from '../cancellation.js';
import type { ProgressUpdate, RequestContext } from '../context.js';
import type { Deadline } from './deadline.js';

/** Who caused an upstream request: used to route request-related notifications (and requests) back. */
export interface RequestOrigin {
  sessionId: string;
  /** Delivers a notification related to the originating downstream request. */
  notify(method: string, params: Record<string, unknown>): Promise<void>;
  /** The downstream request itself (shown to upstream-call middleware). */
  context?: RequestContext;
  /**
   * Answers a server-to-client request (sampling, elicitation, roots) the upstream sends while serving
   * this request; absent when nobody can be asked.
   */
  ask?(
    method: string,
    params: Record<string, unknown>,
    signal: AbortSignal,
  ): Promise<Record<string, unknown>>;
}

export interface UpstreamRequestOptions {
  /** The request's cancellation (the SDK's client watches only what a `CancelSignal` has). */
  signal?: CancelSignal;
  origin?: RequestOrigin;
  onProgress?: (progress: ProgressUpdate) => void;
  /**
   * Progress from the upstream restarts the timeout (a long tool call that reports progress stays
   * alive); the upstream is asked for progress even when the downstream did not ask.
   */
  keepAliveOnProgress?: boolean;
  /** Extra `_meta` envelope keys for a modern upstream (e.g. the downstream client's capabilities). */
  envelope?: Record<string, unknown>;
  /** Hand a modern upstream's input-required result back instead of failing (multi round-trip requests). */
  allowInputRequired?: boolean;
  /** The request's timeout, when the caller pauses it (while the client answers) instead of a fixed one. */
  deadline?: Deadline;
  /** `'legacy'`: send it on the upstream's 2025 session path (see `UpstreamConnection.eraFor`). */
  path?: 'legacy';
}

/** The origin of a downstream request's upstream calls (`ask`: who answers what the upstream asks meanwhile). */
export function originOf(ctx: RequestContext, ask?: RequestOrigin['ask']): RequestOrigin {
  return { sessionId: ctx.session.id, notify: ctx.notifyRelated, context: ctx, ask };
}
