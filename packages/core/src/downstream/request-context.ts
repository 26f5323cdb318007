import { CANCELLATION, type CancelSignal, signalOf } from '../cancellation.js';
import type { DownstreamClient, RequestContext, SessionSink } from '../context.js';
import { GATEWAY_REQUEST_KEY } from '../state-keys.js';
import { progressSender } from './progress.js';
import type { ResumableStream, ResumableStreamInfo } from './resumable-stream.js';

/** What every wire knows of one inbound request once it has been classified. */
export interface InboundRequest {
  readonly method: string;
  readonly params: Record<string, unknown>;
  readonly session: SessionSink;
  /** The request's cancellation: a `Cancellation` (the gateway's own answers) or the SDK's real signal. */
  readonly signal: CancelSignal;
  /** Notifications tied to this request (progress, log messages): on HTTP, on the request's own stream. */
  readonly notifyRelated: RequestContext['notifyRelated'];
  /** The client as this request sees it (era, capabilities, how to ask it things); none: the gateway's own. */
  readonly client?: DownstreamClient;
  readonly resumableStream?: ResumableStream;
  /** The gateway sends it itself on the client's behalf: `GATEWAY_REQUEST_KEY` is set in its state. */
  readonly gatewayRequest?: boolean;
}

/**
 * What a session transport hands on beside an inbound message: its resumable stream, and whether the
 * gateway sends it itself on the client's behalf (a replica restoring a session replays its subscriptions:
 * the client was charged and audited for them once already).
 */
export interface InboundMessageInfo extends ResumableStreamInfo {
  gatewayRequest?: boolean;
}

/**
 * The one way a `RequestContext` is made: a legacy session's request (`LegacyAnswers`), a 2026-07-28
 * request (`answerModern`), a request the SDK's `Server` hands on (stdio and WebSocket sessions), and the
 * gateway's own (a listen stream's subscriptions). Progress goes to the client only when it asked with a
 * `progressToken`. `ctx.signal` is made when first read (see `Cancellation`); the gateway itself watches
 * the request's cancellation (`cancellationOf`).
 */
export function requestContext(request: InboundRequest): RequestContext {
  const meta = request.params._meta as { progressToken?: unknown } | undefined;
  const context = {
    [CANCELLATION]: request.signal,
    method: request.method,
    params: request.params,
    session: request.session,
    identity: request.session.identity,
    onProgress: progressSender(meta?.progressToken, request.notifyRelated),
    notifyRelated: request.notifyRelated,
    ...(request.resumableStream === undefined ? {} : { resumableStream: request.resumableStream }),
    state: request.gatewayRequest ? new Map([[GATEWAY_REQUEST_KEY, true]]) : new Map(),
    ...(request.client === undefined ? {} : { client: request.client }),
  };
  // One shared getter: every context gets the same hidden class (a getter per object would make a new one).
  return Object.defineProperty(context, 'signal', SIGNAL) as typeof context & RequestContext;
}

function signalGetter(this: { [CANCELLATION]: CancelSignal }): AbortSignal {
  return signalOf(this[CANCELLATION]);
}

const SIGNAL: PropertyDescriptor = { get: signalGetter, enumerable: true };
