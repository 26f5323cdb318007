import { isRecord } from './payload.js';

/**
 * JSON-RPC error codes used by Switchyard (DESIGN §9). The gateway's own failures use -32000..-32019,
 * the part of JSON-RPC's server range that MCP 2026-07-28 leaves to implementations: -32020..-32099 are
 * the specification's (-32020..-32022 so far), and -32002 (resource not found) and -32042 (URL elicitation
 * required) keep the meanings earlier revisions gave them. -32001 is skipped too: the SDKs use it (request
 * timeout, "session not found"). Plugins register their own codes and reasons (`defineErrorReasons`:
 * -32010..-32015 are the first-party plugins'). Clients act on `data.reason`; docs/operations.md has the table.
 */
export const ErrorCode = {
  ParseError: -32700,
  InvalidRequest: -32600,
  MethodNotFound: -32601,
  InvalidParams: -32602,
  InternalError: -32603,
  /** Legacy-era "resource not found" (2024-11-05 … 2025-11-25); the modern era uses -32602. */
  ResourceNotFoundLegacy: -32002,
  /** 2026-07-28 HTTP: request headers disagree with the body (`Mcp-Method`, `Mcp-Name`, `Mcp-Param-*`). */
  HeaderMismatch: -32020,
  /** 2026-07-28: the request needs a client capability it did not declare (`data.requiredCapabilities`). */
  MissingRequiredClientCapability: -32021,
  UpstreamUnavailable: -32003,
  UpstreamTimeout: -32004,
  UpstreamBusy: -32005,
  RateLimited: -32006,
  Forbidden: -32007,
  /** An upstream's answer to one request was larger than `limits.maxResultBytes`. */
  ResultTooLarge: -32008,
  /** An upstream failed one request outside JSON-RPC (an HTTP error page instead of an answer). */
  UpstreamError: -32009,
  /**
   * A personal upstream (`auth.user`, DESIGN §14) needs the caller's own authorization first: `data.url` is
   * where the person connects. Clients that declare URL-mode elicitation get -32042 instead.
   */
  AuthorizationRequired: -32016,
  /** MCP 2025-11-25's URLElicitationRequired (`data.elicitations`): the specification's own number. */
  UrlElicitationRequired: -32042,
  /**
   * A refusal before any upstream is involved: a listener's limits (`busy`, `body_too_large`,
   * `too_many_sessions`), draining, the shared store unavailable (`store_unavailable`, DESIGN §12).
   */
  GatewayRefused: -32000,
  /** The shared store (DESIGN §12) did not answer and `onUnavailable` is `refuse`. */
  StoreUnavailable: -32000,
} as const;

/**
 * The reasons core itself raises or reads, carried in `error.data.reason` (stable: clients act on them).
 * Plugins and the gateway app register their own with `defineErrorReasons` (error-reasons.ts).
 */
export const CORE_ERROR_REASONS = [
  'upstream_unavailable',
  'upstream_timeout',
  'upstream_busy',
  'rate_limited',
  'forbidden',
  // A token-exchange upstream, and a caller without an OAuth token to exchange.
  'oauth_identity_required',
  'resource_not_found',
  'tool_not_found',
  'prompt_not_found',
  // A task id this gateway did not hand to this caller (or whose upstream is gone).
  'task_not_found',
  // `tasks/update` of a 2026-07-28 client's task on a 2025-11-25 upstream (which takes no input that way).
  'task_input_unsupported',
  'invalid_cursor',
  // Tool search (DESIGN §13): `search_tools` without a usable query, or with a limit out of 1..20.
  'invalid_query',
  'invalid_limit',
  // Tool search: `call_tool` without a tool name, or with arguments that are not an object.
  'invalid_name',
  'invalid_arguments',
  'invalid_request_state',
  'cancelled',
  'upstream_error',
  // An upstream's result did not fit the result schema of its method (DESIGN §11).
  'upstream_invalid_result',
  // An upstream's result was over `limits.maxResultBytes` (DESIGN §11).
  'result_too_large',
  // The shared store did not answer and the config says to refuse what needs it (DESIGN §12).
  'store_unavailable',
  // A personal upstream (`auth.user`) needs the caller to connect their account first (`data.url`).
  'authorization_required',
  // A personal upstream cannot be used by a shared identity (an anonymous network caller): one person's
  // token would serve everyone who shares it.
  'identity_required',
  'internal',
  // Refusals a listener shares with core (the gateway app registers the listeners' own: apps/gateway/src/reasons.ts).
  // A message nested deeper than `limits.maxJsonDepth` (HTTP 400, -32600): core's frame and envelope checks.
  'too_deep',
  // Too much in flight: a session's concurrent requests (listeners), calls waiting for approval (approve plugin).
  'busy',
  // Not an endpoint the gateway serves (an HTTP path, a virtual server that is gone).
  'not_found',
  // An HTTP session unknown or expired: -32001, the SDKs' code for it, which is not the app's to register.
  'session_not_found',
  // 2026-07-28 HTTP: `Mcp-Param-*` headers that disagree with the body (SEP-2243; HTTP 400, -32020, the spec's code).
  'header_mismatch',
] as const;

/** A reason core itself raises or reads (see `CORE_ERROR_REASONS`). */
export type CoreErrorReason = (typeof CORE_ERROR_REASONS)[number];

/**
 * The reasons plugins and apps register (`defineErrorReasons`), by name: each owner augments this
 * interface so its reasons type-check wherever its module is part of the program, and core's own code
 * stays limited to core's reasons.
 *
 * @example
 * declare module '@switchyard/core' {
 *   interface GatewayErrorReasons extends ReasonsOf<typeof QuotaReasons> {}
 * }
 */
// biome-ignore lint/suspicious/noEmptyInterface: filled by declaration merging (module augmentation)
export interface GatewayErrorReasons {}

/** Stable machine-readable reasons carried in `error.data.reason`: core's and the registered ones. */
export type GatewayErrorReason = CoreErrorReason | (keyof GatewayErrorReasons & string);

export interface GatewayErrorData {
  reason?: GatewayErrorReason;
  upstream?: string;
  uri?: string;
  [key: string]: unknown;
}

/** The requests of an upstream handshake: an invalid answer to one fails the connection, not a request. */
const HANDSHAKE_METHODS: ReadonlySet<string> = new Set(['initialize', 'server/discover']);

/**
 * The one error type the core produces. It carries its JSON-RPC code and a stable `data.reason`,
 * so era adapters and plugins can map or inspect it without string matching.
 *
 * @example
 * throw GatewayError.upstreamTimeout('docs', 'resources/read', 30_000);
 */
export class GatewayError extends Error {
  override readonly name = 'GatewayError';
  readonly code: number;
  readonly data: GatewayErrorData | undefined;

  constructor(code: number, message: string, data?: GatewayErrorData, options?: ErrorOptions) {
    super(message, options);
    this.code = code;
    this.data = data;
  }

  get reason(): GatewayErrorReason | undefined {
    return this.data?.reason;
  }

  static invalidParams(message: string, data?: GatewayErrorData): GatewayError {
    return new GatewayError(ErrorCode.InvalidParams, message, data);
  }

  static resourceNotFound(uri: string, detail?: string): GatewayError {
    const why = detail ? ` ${detail}` : '';
    return new GatewayError(
      ErrorCode.InvalidParams,
      `Resource not found: ${uri}.${why} List resources (resources/list) to see the URIs this gateway exposes.`,
      { reason: 'resource_not_found', uri },
    );
  }

  static invalidCursor(): GatewayError {
    return new GatewayError(
      ErrorCode.InvalidParams,
      'Invalid cursor: it is malformed, was altered, or comes from a different upstream set (another gateway, or before a config reload). List again: restart the listing without a cursor.',
      { reason: 'invalid_cursor' },
    );
  }

  static upstreamUnavailable(upstream: string, detail?: string, cause?: unknown): GatewayError {
    const why = detail ? ` (${detail})` : '';
    return new GatewayError(
      ErrorCode.UpstreamUnavailable,
      `Upstream '${upstream}' is unavailable${why}. The gateway keeps reconnecting with backoff; retry shortly.`,
      { reason: 'upstream_unavailable', upstream },
      { cause },
    );
  }

  static upstreamTimeout(upstream: string, method: string, timeoutMs: number): GatewayError {
    return new GatewayError(
      ErrorCode.UpstreamTimeout,
      `Upstream '${upstream}' did not answer ${method} within ${timeoutMs} ms; the request was cancelled upstream. Retry, or raise "timeoutMs" for this server in the config.`,
      { reason: 'upstream_timeout', upstream, timeoutMs },
    );
  }

  /**
   * An upstream answered one request with something that is not a result of its method (not an object,
   * or not fitting the method's schema). Only that request fails; the upstream stays connected (a
   * handshake's request: the connection fails, and is tried again later).
   */
  static upstreamInvalidResult(upstream: string, method: string, detail: string): GatewayError {
    const consequence = HANDSHAKE_METHODS.has(method)
      ? 'The handshake failed; the gateway tries again with backoff.'
      : 'Only this request failed; the upstream stays connected.';
    return new GatewayError(
      ErrorCode.InternalError,
      `Upstream '${upstream}' answered ${method} with an invalid result (${detail}). ${consequence} Report it to the server's maintainers.`,
      { reason: 'upstream_invalid_result', upstream, method },
    );
  }

  /** An upstream's answer was over `limits.maxResultBytes`; it was discarded as it arrived. */
  static resultTooLarge(upstream: string, bytes: number, limit: number): GatewayError {
    return new GatewayError(
      ErrorCode.ResultTooLarge,
      `Upstream '${upstream}' answered with ${bytes} bytes, over the gateway's limit of ${limit} (limits.maxResultBytes). Ask for less (a narrower read or query), or raise the limit.`,
      { reason: 'result_too_large', upstream, bytes, limit },
    );
  }

  /** What an upstream is told when its own request (sampling, elicitation…) was over the size limit. */
  static requestTooLarge(bytes: number, limit: number): GatewayError {
    return new GatewayError(
      ErrorCode.InvalidRequest,
      `Switchyard discarded this request: ${bytes} bytes is over its limit of ${limit} (limits.maxResultBytes).`,
      { reason: 'result_too_large', bytes, limit },
    );
  }

  /** An upstream failed one request outside JSON-RPC, e.g. an HTTP 500 page; the upstream stays connected. */
  static upstreamError(upstream: string, detail: string, data?: GatewayErrorData): GatewayError {
    const wait = data?.retryAfterMs;
    const advice =
      typeof wait === 'number'
        ? `The upstream asks to retry after ${wait} ms.`
        : "Retry; if it keeps failing, check the server's own logs.";
    return new GatewayError(
      ErrorCode.UpstreamError,
      `Upstream '${upstream}' failed this request: ${detail}. ${advice}`,
      { ...data, reason: 'upstream_error', upstream },
    );
  }

  static forbidden(message: string, data?: GatewayErrorData): GatewayError {
    return new GatewayError(ErrorCode.Forbidden, message, { ...data, reason: 'forbidden' });
  }

  /** A client spent its request budget; `retryAfterMs` says when the next request will be accepted. */
  static rateLimited(retryAfterMs: number, data?: GatewayErrorData): GatewayError {
    const wait = Math.max(1, Math.ceil(retryAfterMs));
    return new GatewayError(
      ErrorCode.RateLimited,
      `Rate limited: this client sent more requests than it is allowed; retry after ${wait} ms.`,
      { ...data, reason: 'rate_limited', retryAfterMs: wait },
    );
  }

  /** The request needs state shared across replicas and the store does not answer (`onUnavailable: "refuse"`). */
  static storeUnavailable(detail?: string): GatewayError {
    return new GatewayError(
      ErrorCode.StoreUnavailable,
      `Store unavailable: this request needs state shared across replicas and the store does not answer${
        detail ? ` (${detail})` : ''
      }; retry shortly.`,
      { reason: 'store_unavailable' },
    );
  }

  /** An upstream's request queue is full; the request was not sent. */
  static upstreamBusy(upstream: string, maxQueue: number, data?: GatewayErrorData): GatewayError {
    return new GatewayError(
      ErrorCode.UpstreamBusy,
      `Upstream '${upstream}' is busy: ${maxQueue} requests are already queued for it. Retry shortly.`,
      { ...data, reason: 'upstream_busy', upstream, maxQueue },
    );
  }

  static cancelled(method: string): GatewayError {
    return new GatewayError(ErrorCode.InternalError, `Request ${method} was cancelled by the client.`, {
      reason: 'cancelled',
    });
  }

  /**
   * Why a request whose cancellation aborted (`reason`: the cancellation's) ended: the `GatewayError` it
   * was aborted with when the gateway itself ended it and answered the client so (e.g. `shutting_down`
   * once the shutdown grace period ran out), else the client's cancellation. The request's outcome (the
   * audit record, the response hooks, the statistics) is then what the client was told.
   */
  static aborted(method: string, reason: unknown): GatewayError {
    return reason instanceof GatewayError ? reason : GatewayError.cancelled(method);
  }

  /** Turns anything thrown into a GatewayError, keeping JSON-RPC codes that already exist. */
  static fromUnknown(error: unknown, upstream?: string): GatewayError {
    if (error instanceof GatewayError) return error;
    if (isJsonRpcErrorLike(error)) {
      const data: GatewayErrorData = isRecord(error.data)
        ? { ...error.data }
        : error.data === undefined
          ? {}
          : { detail: error.data };
      if (upstream && data.upstream === undefined) data.upstream = upstream;
      return new GatewayError(error.code, error.message, data, { cause: error });
    }
    const message = error instanceof Error ? error.message : String(error);
    return new GatewayError(
      ErrorCode.InternalError,
      `Internal gateway error: ${message}`,
      { reason: 'internal' },
      {
        cause: error,
      },
    );
  }

  toJSON(): { code: number; message: string; data?: GatewayErrorData } {
    return this.data === undefined
      ? { code: this.code, message: this.message }
      : { code: this.code, message: this.message, data: this.data };
  }
}

function isJsonRpcErrorLike(value: unknown): value is { code: number; message: string; data?: unknown } {
  return value instanceof Error && Number.isInteger((value as unknown as { code?: unknown }).code);
}

/**
 * True when an upstream error means "no such resource" in either era: -32002, or -32602 with data {uri}, or
 * -32602 saying a resource was not found (the SDK v2 servers' encoding in both eras, no data: DESIGN §6).
 */
export function isResourceNotFound(error: GatewayError): boolean {
  if (error.reason === 'resource_not_found') return true;
  if (error.code === ErrorCode.ResourceNotFoundLegacy) return true;
  if (error.code !== ErrorCode.InvalidParams) return false;
  return typeof error.data?.uri === 'string' || RESOURCE_NOT_FOUND_MESSAGE.test(error.message);
}

/** How SDK v2 servers word it: `Resource <uri> not found`. */
const RESOURCE_NOT_FOUND_MESSAGE = /\bresource\b.*\bnot found\b/i;
