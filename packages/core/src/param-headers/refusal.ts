import type { RequestContext } from '../context.js';
import { ErrorCode, GatewayError } from '../errors.js';
import type { UpstreamPool } from '../upstream/pool.js';
import { checkParamHeaders } from './values.js';

/**
 * SEP-2243 on the 2026-07-28 HTTP wire: a `tools/call` carries in `Mcp-Param-<Name>` headers the arguments
 * its tool marks with `x-mcp-header`, and a server refuses a missing, malformed or disagreeing one with
 * HTTP 400 and -32020. The tool is the one the request was routed to (`ctx.target`, resolved once as the
 * request entered), its declarations what its upstream last listed; the headers are the request's own
 * (`client.header`: only a 2026-07-28 HTTP request has them). Undefined when the call may go on.
 */
export function paramHeaderRefusal(ctx: RequestContext, pool: UpstreamPool): GatewayError | undefined {
  const header = ctx.client?.header;
  const target = ctx.target;
  if (header === undefined || ctx.method !== 'tools/call' || target?.kind !== 'tool' || !target.name) {
    return undefined;
  }
  const declarations = pool.get(target.upstream)?.toolHeaders(target.name);
  if (declarations === undefined) return undefined;
  const mismatch = checkParamHeaders(declarations, ctx.params.arguments, header);
  if (mismatch === undefined) return undefined;
  return new GatewayError(
    ErrorCode.HeaderMismatch,
    `Bad Request: the request headers and body disagree: ${mismatch.body}`,
    { reason: 'header_mismatch', mismatch },
  );
}
