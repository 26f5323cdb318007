import type { CancelSignal } from '../cancellation.js';
import type { SessionSink } from '../context.js';
import { GatewayError } from '../errors.js';
import type { Gateway } from '../gateway.js';
import { errorResponse, type JsonRpcErrorResponse } from './jsonrpc.js';
import { encodeModernResult, liftModernRequest } from './modern-wire.js';
import { requestContext } from './request-context.js';
import { serverOptions } from './server-options.js';

type RequestId = string | number;

export interface ModernRequestMessage {
  readonly id: RequestId;
  readonly method: string;
  readonly params?: Record<string, unknown>;
}

export interface ModernResultResponse {
  jsonrpc: '2.0';
  id: RequestId;
  result: Record<string, unknown>;
}

export type ModernResponse = ModernResultResponse | JsonRpcErrorResponse;

/** How one 2026-07-28 request reaches its client, whatever the wire. */
export interface ModernChannel {
  /** Aborted when the client goes away (its HTTP request closed). */
  readonly signal: CancelSignal;
  /** A notification related to this request (progress, a log message), sent before its answer. */
  notify(method: string, params: Record<string, unknown>): Promise<void>;
  /** The request's headers, on HTTP (case-insensitive name → value); see `DownstreamClient.header`. */
  readonly header?: (name: string) => string | undefined;
}

/** What a 2026-07-28 request is, for whoever serves its wire: answered here, served elsewhere, or unknown. */
export type ModernRoute = 'gateway' | 'discover' | 'listen' | 'unknown';

/**
 * Requests earlier revisions defined that 2026-07-28 removed (the Tasks extension defines `tasks/get` and
 * `tasks/cancel` again, so those stay): a modern client sending one gets -32601, like any unknown method.
 */
const REMOVED = new Set([
  'initialize',
  'ping',
  'logging/setLevel',
  'resources/subscribe',
  'resources/unsubscribe',
  'tasks/result',
  'tasks/list',
]);

/** The Tasks extension's methods: a method nothing answers while no upstream runs tool calls as tasks. */
const TASKS_EXTENSION_METHODS = new Set(['tasks/get', 'tasks/update', 'tasks/cancel']);

/**
 * The modern protocol revisions this gateway serves (the SDK serves the same one; it exports only its
 * legacy list, `SUPPORTED_PROTOCOL_VERSIONS`).
 */
export const MODERN_VERSIONS: readonly string[] = ['2026-07-28'];

/**
 * Where a 2026-07-28 request of `method` goes (`method` is the client's: looked up in Sets only). A task's
 * method is unknown, like any other, while no upstream runs tool calls as tasks (the gateway declares tasks
 * in neither era then); once one does, the Tasks extension's own rules answer it (-32021 for a client that
 * does not declare it).
 */
export function modernRoute(gateway: Gateway, method: string): ModernRoute {
  if (method === 'server/discover') return 'discover';
  if (method === 'subscriptions/listen') return 'listen';
  if (REMOVED.has(method)) return 'unknown';
  if (TASKS_EXTENSION_METHODS.has(method) && gateway.capabilities('legacy').tasks === undefined)
    return 'unknown';
  return gateway.answers(method) ? 'gateway' : 'unknown';
}

/**
 * Answers one 2026-07-28 request of `sink`'s client, the way `LegacyAnswers` answers a legacy session's:
 * the wire-only material lifted once (`liftModernRequest`), one context (`requestContext`), one
 * `gateway.handle`, one response — the result encoded for the era (`encodeModernResult`), an error exactly
 * the `GatewayError` the request chain settled on. `server/discover` is answered here too. No SDK `Server`
 * is built for the request.
 */
export async function answerModern(
  gateway: Gateway,
  sink: SessionSink,
  request: ModernRequestMessage,
  channel: ModernChannel,
): Promise<ModernResponse> {
  const { id, method } = request;
  if (method === 'server/discover') return { jsonrpc: '2.0', id, result: discover(gateway) };
  const lifted = liftModernRequest(request.params, channel.header);
  const context = requestContext({
    method,
    params: lifted.params,
    session: sink,
    signal: channel.signal,
    notifyRelated: channel.notify,
    client: lifted.client,
  });
  try {
    const outcome = await gateway.handle(context);
    if (!outcome.ok) return errorResponse(id, outcome.error) as JsonRpcErrorResponse;
    return { jsonrpc: '2.0', id, result: encodeModernResult(method, outcome.result) };
  } catch (error) {
    return errorResponse(id, GatewayError.fromUnknown(error));
  }
}

/** `server/discover`: the revisions served, what the gateway can do now, and its instructions. */
function discover(gateway: Gateway): Record<string, unknown> {
  const { capabilities, instructions } = serverOptions(gateway.capabilities('modern'));
  return encodeModernResult('server/discover', {
    supportedVersions: [...MODERN_VERSIONS],
    capabilities,
    ...(instructions === undefined ? {} : { instructions }),
  });
}
