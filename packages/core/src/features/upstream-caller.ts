import type { RequestContext } from '../context.js';
import type { UpstreamConnection } from '../upstream/connection.js';
import { originOf } from '../upstream/origin.js';
import { withoutProgressToken } from './params.js';

/**
 * Sends a routed request (a read, a tool call, a prompt) to its upstream on behalf of `ctx`: progress
 * relayed back under the downstream's token, cancellation and timeout mapped per call.
 */
export type UpstreamCaller = (
  ctx: RequestContext,
  upstream: UpstreamConnection,
  method: string,
  params: Record<string, unknown>,
) => Promise<Record<string, unknown>>;

/** The plain caller: one upstream request per downstream request. */
export const callUpstream: UpstreamCaller = (ctx, upstream, method, params) =>
  upstream.request(method, withoutProgressToken(params), {
    signal: ctx.signal,
    origin: originOf(ctx),
    onProgress: ctx.onProgress,
    keepAliveOnProgress: method === 'tools/call',
  });
