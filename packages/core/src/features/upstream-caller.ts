import type { RequestContext } from '../context.js';
import type { UpstreamConnection } from '../upstream/connection.js';

/**
 * Sends a routed request (a read, a tool call, a prompt) to its upstream on behalf of `ctx`, with
 * everything a call needs: progress relayed under the downstream's token, cancellation and timeouts
 * mapped per call, and whatever the upstream needs from the client on the way (see interaction/).
 */
export type UpstreamCaller = (
  ctx: RequestContext,
  upstream: UpstreamConnection,
  params: Record<string, unknown>,
) => Promise<Record<string, unknown>>;
