import type { ResumableStream } from './downstream/resumable-stream.js';
import type { Ask } from './interaction/ask.js';
import type { Outcome } from './middleware.js';
import type { EndpointView } from './views/endpoint-view.js';

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
  /** The virtual server the session was opened on (DESIGN §13); undefined for the root endpoint. */
  readonly endpoint?: string;
  notify(method: string, params: Record<string, unknown>): Promise<void>;
  /** The lowest log level the session wants (`logging/setLevel`); undefined: every level. */
  logLevel?(): string | undefined;
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
  /**
   * Aborted when the client cancels the request or goes away. Made on first read: a request nothing asks
   * for it costs no `AbortSignal` (the gateway itself watches a cheaper cancellation).
   */
  readonly signal: AbortSignal;
  /**
   * Set when the downstream asked for progress; forwards upstream progress to it. A plugin may replace it
   * (wrapping the one it found) before `next()` to filter what the upstream's progress tells the caller.
   */
  onProgress?: (update: ProgressUpdate) => void;
  /**
   * Sends a notification tied to this request (on HTTP it travels on the request's own stream): the
   * upstream's log messages about the request go this way. A plugin may replace it (wrapping the one it
   * found) before `next()` to filter them.
   */
  notifyRelated: (method: string, params: Record<string, unknown>) => Promise<void>;
  /**
   * This request's response stream, when its client can resume it (SEP-1699): the gateway closes its
   * connection when the upstream polls the request's own stream, and resumes the upstream's when the client
   * comes back.
   */
  readonly resumableStream?: ResumableStream;
  /** Scratch space for middleware (e.g. a cache writing its status for an audit log). */
  readonly state: Map<string, unknown>;
  /** The downstream client, for what a request may need to ask it (sampling, elicitation, roots). */
  readonly client?: DownstreamClient;
  /**
   * What the request is routed to (one upstream, and the name or URI that upstream knows), set by the
   * gateway before the plugins run; undefined for lists (they fan out) and for what routes nowhere.
   */
  target?: RequestTarget;
  /**
   * What the endpoint the request arrived on exposes (the root endpoint, or a virtual server), set by the
   * gateway before the plugins run. What it does not expose does not exist for the request.
   */
  view?: EndpointView;
  /**
   * Asks the caller something on a plugin's behalf (e.g. an approval through elicitation), in either
   * era; set by the gateway before the plugins run (see Ask).
   */
  ask?: Ask;
}

/** The upstream item a request addresses, as the gateway routes it. */
export interface RequestTarget {
  /** `resource` (read, subscribe), `template` (completion of a resource template), `tool`, `prompt`. */
  readonly kind: 'resource' | 'template' | 'tool' | 'prompt';
  readonly upstream: string;
  /** The tool or prompt name as the upstream knows it. */
  readonly name?: string;
  /** The resource URI or template as the upstream knows it. */
  readonly uri?: string;
  /** The name or URI clients see (what the request carried). */
  readonly exposed: string;
}

export type RequestMiddleware = (ctx: RequestContext, next: () => Promise<Outcome>) => Promise<Outcome>;

/**
 * The downstream client as one request sees it. In the legacy era the gateway can ask it things while
 * the request runs (server-to-client requests on the request's own stream); in the modern era
 * (2026-07-28) it cannot, and needs travel as an input-required result the client answers by retrying.
 */
export interface DownstreamClient {
  readonly era: 'legacy' | 'modern';
  /** What the client declared: at initialize (legacy), or in this request's envelope (modern). */
  readonly capabilities: Readonly<Record<string, unknown>> | undefined;
  /** Legacy era: sends a request to the client, related to this request. Undefined in the modern era. */
  readonly request?: (
    method: string,
    params: Record<string, unknown>,
    options: { signal?: AbortSignal },
  ) => Promise<Record<string, unknown>>;
  /** Modern era, a retried request: the client's answers to the previous input-required result. */
  readonly inputResponses?: Readonly<Record<string, unknown>>;
  /** Modern era, a retried request: the `requestState` the client echoes back. */
  readonly requestState?: string;
  /** The modern envelope's log level, when the client asked for log messages. */
  readonly logLevel?: string;
  /**
   * A 2026-07-28 HTTP request's headers (case-insensitive name → value, undefined when absent), for the
   * checks the HTTP binding asks of the server once the request is routed (SEP-2243 `Mcp-Param-*`).
   */
  readonly header?: (name: string) => string | undefined;
}
