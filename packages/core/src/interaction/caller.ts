import { Cancellation, cancellationOf } from '../cancellation.js';
import type { DownstreamClient, RequestContext } from '../context.js';
import { ErrorCode, GatewayError, type GatewayErrorData } from '../errors.js';
import { withoutProgressToken } from '../features/params.js';
import { unrelated } from '../features/task-wire.js';
import type { UpstreamCaller } from '../features/upstream-caller.js';
import { isRecord } from '../payload.js';
import type { UpstreamConnection } from '../upstream/connection.js';
import { Deadline } from '../upstream/deadline.js';
import { originOf, type RequestOrigin, type UpstreamRequestOptions } from '../upstream/origin.js';
import { canBeAsked, missingCapability } from './capabilities.js';
import { askClient, type InputRequests, roundsExceeded } from './fulfil.js';
import { invalidState, type RequestStateSeal, type SealedState } from './request-state.js';
import { SuspendedCall, type SuspendedCalls } from './suspended-call.js';

/** How many input rounds one request may take (as many as the SDK's own legacy shim allows). */
const MAX_ROUNDS = 8;
/** Pause before retrying an upstream that returned only a requestState (the SDK shim paces the same). */
const STATE_ONLY_PACING_MS = 250;

export interface InteractionDeps {
  seal: RequestStateSeal;
  suspended: SuspendedCalls<RequestContext>;
}

/**
 * The caller of the multi round-trip methods (`tools/call`, `prompts/get`, `resources/read`): whatever an
 * upstream needs from the client (sampling, elicitation, roots) reaches exactly the downstream request
 * that caused it, bridged between the eras (DESIGN §4b):
 * - legacy upstream, legacy client: the upstream's requests are relayed on the request's own stream;
 * - modern upstream, legacy client: each input-required result is answered by asking the client, and
 *   the upstream is retried with the answers;
 * - modern upstream, modern client: input-required results pass through with a sealed `requestState`;
 * - legacy upstream, modern client: the upstream's requests become an input-required result, the
 *   upstream call waits, and the client's retry answers it.
 */
export function interactiveCaller({ seal, suspended }: InteractionDeps): UpstreamCaller {
  const bound = (
    ctx: RequestContext,
    upstream: UpstreamConnection,
  ): Omit<SealedState, 'upstreamState' | 'pending'> => ({
    upstream: upstream.name,
    identity: ctx.identity.id,
    target: `${ctx.method}\u0000${ctx.target?.exposed ?? ''}`,
  });

  /**
   * Legacy upstream (or an upstream's 2025 session path, `path`): the call runs once; what it asks
   * meanwhile goes to the client.
   */
  const legacy = (
    ctx: RequestContext,
    upstream: UpstreamConnection,
    params: Record<string, unknown>,
    path?: 'legacy',
  ) => {
    const client = ctx.client;
    const deadline =
      client?.request && canBeAsked(client.capabilities)
        ? new Deadline(upstream.config.timeoutMs)
        : undefined;
    const origin = originOf(ctx, (method, p, signal) => askClient(client, method, p, signal, deadline));
    return upstream.request(
      ctx.method,
      withoutProgressToken(params),
      callOptions(ctx, origin, { deadline, path }),
    );
  };

  /** Modern upstream: each input-required result is answered (legacy client) or handed on (modern client). */
  const modern = async (
    ctx: RequestContext,
    upstream: UpstreamConnection,
    params: Record<string, unknown>,
  ): Promise<Record<string, unknown>> => {
    const base = withoutProgressToken(params);
    let next = base;
    for (let round = 1; ; round++) {
      const result = await upstream
        .request(
          ctx.method,
          next,
          callOptions(ctx, originOf(ctx), { envelope: envelopeOf(ctx.client), allowInputRequired: true }),
        )
        .catch((error: unknown) => notCapable(ctx, error));
      if (result.resultType !== 'input_required') return result;
      const inputRequests = (result.inputRequests ?? {}) as InputRequests;
      const state = typeof result.requestState === 'string' ? result.requestState : undefined;
      const client = ctx.client;
      if (!client?.request) {
        // A modern client answers by retrying; the state it echoes is bound to this upstream and caller.
        return { ...result, requestState: seal.seal({ ...bound(ctx, upstream), upstreamState: state }) };
      }
      if (round >= MAX_ROUNDS) return roundsExceeded(ctx.method, MAX_ROUNDS);
      for (const [key, request] of Object.entries(inputRequests)) {
        const missing = missingCapability(request.method, request.params, client.capabilities);
        if (missing !== undefined) return cannotAsk(ctx.method, key, request.method, missing);
      }
      if (Object.keys(inputRequests).length === 0) await pace(ctx.signal);
      // The keys are the upstream's: fromEntries keeps one named `__proto__` a key (an assignment would not).
      const answers = Object.fromEntries(
        await Promise.all(
          Object.entries(inputRequests).map(
            async ([key, request]) =>
              [key, await askClient(client, request.method, request.params ?? {}, ctx.signal)] as const,
          ),
        ),
      );
      next = { ...base, inputResponses: answers, ...(state === undefined ? {} : { requestState: state }) };
    }
  };

  /** Legacy upstream, modern client: the call may span several downstream requests. */
  const step = async (
    ctx: RequestContext,
    upstream: UpstreamConnection,
    call: SuspendedCall<RequestContext>,
  ) => {
    call.onStep?.(ctx);
    const next = await call.next(cancellationOf(ctx)).catch((error: unknown) => {
      call.cancel('the client cancelled its request');
      throw error;
    });
    if ('done' in next) return next.done;
    suspended.keep(call, ctx.identity.id);
    return {
      resultType: 'input_required',
      inputRequests: next.inputRequests,
      requestState: seal.seal({ ...bound(ctx, upstream), pending: call.id }),
    };
  };

  const suspendable = (
    ctx: RequestContext,
    upstream: UpstreamConnection,
    params: Record<string, unknown>,
  ) => {
    // One cancellation for the upstream call: given up by the client or timed out by its deadline.
    const abort = new Cancellation();
    const call = new SuspendedCall<RequestContext>(abort);
    // Notifications and progress go to whichever downstream request of the call is current.
    let current = ctx;
    call.onStep = (next) => {
      current = next;
    };
    const deadline = new Deadline(upstream.config.timeoutMs, abort);
    const origin: RequestOrigin = {
      sessionId: ctx.session.id,
      context: ctx,
      notify: (method, p) => current.notifyRelated(method, p),
      ask: (method, p, signal) => {
        const missing = missingCapability(method, p, current.client?.capabilities);
        if (missing !== undefined) return Promise.reject(notDeclared(method, missing));
        const release = deadline.hold();
        // The upstream's own task id (a 2025-11-25 task's related-task `_meta`) is never a modern client's.
        return call.ask(method, unrelated(p), signal).finally(release);
      },
    };
    call.start(
      upstream.request(ctx.method, withoutProgressToken(params), {
        ...callOptions(ctx, origin, { deadline }),
        signal: call.signal,
        onProgress: (update) => current.onProgress?.(update),
      }),
    );
    return step(ctx, upstream, call);
  };

  return async (ctx, upstream, params) => {
    const client = ctx.client;
    const raw = client?.era === 'modern' ? client.requestState : undefined;
    if (raw !== undefined) {
      const state = seal.open(raw, bound(ctx, upstream));
      if (state.pending !== undefined) {
        const call = suspended.take(state.pending);
        if (!call)
          throw invalidState(
            'the call it continues is gone (it timed out, or began on another gateway instance)',
          );
        call.answer(client?.inputResponses);
        return step(ctx, upstream, call);
      }
      const retry: Record<string, unknown> = { ...params };
      if (client?.inputResponses) retry.inputResponses = client.inputResponses;
      if (state.upstreamState !== undefined) retry.requestState = state.upstreamState;
      return modern(ctx, upstream, retry);
    }
    if (upstream.era === 'modern') {
      if (!(affine(ctx) && (await upstream.hasLegacyPath()))) return modern(ctx, upstream, params);
      return legacy(ctx, upstream, params, 'legacy');
    }
    if (client?.era === 'modern') return suspendable(ctx, upstream, params);
    return legacy(ctx, upstream, params);
  };
}

/** Calls that may ask the client something, and so go the way the client speaks when they can. */
const AFFINE_METHODS = new Set(['tools/call', 'prompts/get']);
const TASKS_EXTENSION_ID = 'io.modelcontextprotocol/tasks';

/**
 * Era affinity: a 2025 client that can be asked something (sampling, elicitation, roots), calling a tool
 * or a prompt, is served on a 2026-07-28 upstream's 2025 session path when it has one, so the server asks
 * it as it would directly (a server's stateless 2026 path may not ask at all: SDK v1 servers, the
 * conformance suite's reference server). Not for reads (their cache hints come from the 2026 path) nor a
 * task-augmented call bridged to the Tasks extension.
 */
function affine(ctx: RequestContext): boolean {
  const client = ctx.client;
  if (client?.era !== 'legacy' || !AFFINE_METHODS.has(ctx.method)) return false;
  const extensions = (client.capabilities as { extensions?: Record<string, unknown> } | undefined)
    ?.extensions;
  return canBeAsked(client.capabilities) && !(extensions && TASKS_EXTENSION_ID in extensions);
}

/**
 * One literal: on Node 20's V8 every object spread that then gains a key (`{ ...a, key }`) makes a new
 * hidden class, which costs microseconds and old-space garbage per request (docs/architecture.md, speed).
 */
function callOptions(
  ctx: RequestContext,
  origin: RequestOrigin,
  more: Pick<UpstreamRequestOptions, 'deadline' | 'path' | 'envelope' | 'allowInputRequired'> = {},
): UpstreamRequestOptions {
  return {
    signal: cancellationOf(ctx),
    origin,
    onProgress: ctx.onProgress,
    keepAliveOnProgress: ctx.method === 'tools/call',
    deadline: more.deadline,
    path: more.path,
    envelope: more.envelope,
    allowInputRequired: more.allowInputRequired,
  };
}

/** The envelope keys a modern upstream gets: the real client's capabilities and log level. */
function envelopeOf(client: DownstreamClient | undefined): Record<string, unknown> | undefined {
  if (!client) return undefined;
  const level = client.logLevel ?? (client.era === 'legacy' ? 'debug' : undefined);
  return {
    'io.modelcontextprotocol/clientCapabilities': client.capabilities ?? {},
    ...(level === undefined ? {} : { 'io.modelcontextprotocol/logLevel': level }),
  };
}

function pace(signal: AbortSignal): Promise<void> {
  return new Promise((resolve) => {
    const timer = setTimeout(resolve, STATE_ONLY_PACING_MS);
    signal.addEventListener('abort', () => {
      clearTimeout(timer);
      resolve();
    });
  });
}

function notDeclared(method: string, missing: string): GatewayError {
  return new GatewayError(
    ErrorCode.MethodNotFound,
    `The client did not declare the '${missing}' capability, so Switchyard cannot ask it for ${method}.`,
  );
}

/**
 * A 2025 client whose missing capability a modern upstream refused up front (-32021, a code only the
 * 2026-07-28 era has): answered as when the upstream asks for it mid-call ({@link cannotAsk}). Anything
 * else is thrown on as it came.
 */
function notCapable(ctx: RequestContext, error: unknown): Record<string, unknown> {
  if (
    !(error instanceof GatewayError) ||
    error.code !== ErrorCode.MissingRequiredClientCapability ||
    ctx.client?.era !== 'legacy'
  ) {
    throw error;
  }
  const required = error.data?.requiredCapabilities;
  const missing = isRecord(required) ? Object.keys(required).join(', ') : '';
  const message = `${error.message.replace(/\.$/, '')}: the client did not declare the '${missing || 'required'}' capability.`;
  return notAsked(ctx.method, message, { upstream: error.data?.upstream });
}

/** Like the SDK's legacy shim: a tool call reports it as a tool error, other requests as an error. */
function cannotAsk(method: string, key: string, asked: string, missing: string): Record<string, unknown> {
  const message = `Cannot request input '${key}' (${asked}): the client did not declare the '${missing}' capability.`;
  return notAsked(method, message);
}

/** A client that cannot be asked: a tool call's error result, or (other requests) an error. */
function notAsked(method: string, message: string, data?: GatewayErrorData): Record<string, unknown> {
  if (method === 'tools/call') return { content: [{ type: 'text', text: message }], isError: true };
  throw new GatewayError(ErrorCode.InternalError, message, data);
}
