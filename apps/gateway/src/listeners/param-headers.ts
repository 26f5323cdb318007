import type { IncomingMessage } from 'node:http';
import { ErrorCode, type Gateway, GatewayError } from '@switchyard/core';
import { checkParamHeaders, toolHeaders } from '@switchyard/core/listener';

/**
 * SEP-2243 on the 2026-07-28 HTTP wire: a `tools/call` carries in `Mcp-Param-<Name>` headers the
 * arguments its tool marks with `x-mcp-header`, and a server refuses a missing, malformed or
 * disagreeing one with HTTP 400 and -32020. The SDK's handler checks this only for tools of its own
 * `McpServer`; the gateway's tools are its upstreams', so it checks them here, against what each
 * upstream declared, before the call goes anywhere. Undefined when the call may go on.
 */
export function refuseParamHeaders(
  gateway: Gateway,
  req: IncomingMessage,
  message: { params?: unknown },
): GatewayError | undefined {
  const params = message.params as { name?: unknown; arguments?: unknown } | undefined;
  if (typeof params?.name !== 'string') return undefined;
  const declarations = toolHeaders(gateway, params.name);
  if (declarations === undefined) return undefined;
  const mismatch = checkParamHeaders(declarations, params.arguments, (name) => headerOf(req, name));
  if (mismatch === undefined) return undefined;
  return new GatewayError(
    ErrorCode.HeaderMismatch,
    `Bad Request: the request headers and body disagree: ${mismatch.body}`,
    { reason: 'header_mismatch', mismatch },
  );
}

/** One request header (node lower-cases names and joins repeated ones), undefined when absent. */
function headerOf(req: IncomingMessage, name: string): string | undefined {
  const value = req.headers[name.toLowerCase()];
  return Array.isArray(value) ? value.join(', ') : value;
}
