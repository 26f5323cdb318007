import type { IncomingMessage } from 'node:http';
import {
  classifyInboundRequest,
  type InboundModernRoute,
  UnsupportedProtocolVersionError,
} from '@modelcontextprotocol/server';
import { ErrorCode, GatewayError, type GatewayErrorReason } from '@switchyard/core';
import { decodeParamValue, MODERN_VERSIONS } from '@switchyard/core/listener';
import { header } from './http-io.js';

/** A refusal before anything answers the message: the HTTP status and the one error form. */
export interface Refusal {
  readonly status: number;
  readonly error: GatewayError;
}

/** What a POST without a session is, decided once from its parsed body and its headers. */
export type PostRoute =
  /** A 2025 message (the `initialize` opening a session, a batch, a response): the legacy session path. */
  | { readonly kind: 'legacy' }
  /** A 2026-07-28 message, its revision one this gateway serves and its standard headers right. */
  | { readonly kind: 'modern'; readonly route: InboundModernRoute }
  | { readonly kind: 'refused'; readonly refusal: Refusal };

/**
 * The era and validity of a sessionless POST, from the SDK's own body-primary classifier (the
 * specification's era rules and their 400s: envelope, header/body cross-checks, batches) and, for a
 * 2026-07-28 request, the revision served and the SEP-2243 standard headers the HTTP binding requires
 * (`MCP-Protocol-Version`, `Mcp-Method`, `Mcp-Name`). Nothing after this decides the era again.
 */
export function classifyPost(req: IncomingMessage, body: unknown): PostRoute {
  const headers = {
    protocolVersionHeader: header(req, 'mcp-protocol-version'),
    mcpMethodHeader: header(req, 'mcp-method'),
    mcpNameHeader: header(req, 'mcp-name'),
  };
  const outcome = classifyInboundRequest({ httpMethod: 'POST', ...headers, body });
  if (outcome.kind === 'legacy') return { kind: 'legacy' };
  if (outcome.kind === 'reject') {
    const reason: GatewayErrorReason | undefined =
      outcome.code === ErrorCode.HeaderMismatch ? 'header_mismatch' : undefined;
    const data = { ...(outcome.data as Record<string, unknown> | undefined), ...(reason ? { reason } : {}) };
    return refused(outcome.httpStatus, new GatewayError(outcome.code, outcome.message, data));
  }
  const revision = outcome.classification.revision;
  if (revision === undefined || !MODERN_VERSIONS.includes(revision)) {
    const error = new UnsupportedProtocolVersionError({
      supported: [...MODERN_VERSIONS],
      requested: revision ?? 'unknown',
    });
    // The specification's own error (-32022, `data.supported`), as the SDK's entry answered it.
    return refused(400, new GatewayError(error.code, error.message, error.data as Record<string, unknown>));
  }
  if (outcome.messageKind === 'request') {
    const mismatch = standardHeaderMismatch(outcome, headers);
    if (mismatch) {
      return refused(
        400,
        new GatewayError(
          ErrorCode.HeaderMismatch,
          `Bad Request: the request headers and body disagree: ${mismatch}`,
          {
            reason: 'header_mismatch',
          },
        ),
      );
    }
  }
  return { kind: 'modern', route: outcome };
}

function refused(status: number, error: GatewayError): PostRoute {
  return { kind: 'refused', refusal: { status, error } };
}

/** The body field a request's `Mcp-Name` header mirrors (SEP-2243; `tasks/*`: SEP-2663's binding). */
const NAME_SOURCE = new Map([
  ['tools/call', 'name'],
  ['prompts/get', 'name'],
  ['resources/read', 'uri'],
  ['tasks/get', 'taskId'],
  ['tasks/update', 'taskId'],
  ['tasks/cancel', 'taskId'],
]);

/**
 * What the SDK's entry checks after its classifier (`validateStandardRequestHeaders`, not exported):
 * a 2026-07-28 request carries `MCP-Protocol-Version` and `Mcp-Method`, and `Mcp-Name` saying the
 * body's name, URI or task id. Undefined when they are right.
 */
function standardHeaderMismatch(
  route: InboundModernRoute,
  headers: { protocolVersionHeader?: string; mcpMethodHeader?: string; mcpNameHeader?: string },
): string | undefined {
  const { method, params } = route.message as { method: string; params?: Record<string, unknown> };
  if (headers.protocolVersionHeader === undefined) {
    return `the body envelope names protocol version ${route.classification.revision} but the required MCP-Protocol-Version header is absent`;
  }
  if (headers.mcpMethodHeader === undefined) {
    return `the body names method ${method} but the required Mcp-Method header is absent`;
  }
  const field = NAME_SOURCE.get(method);
  if (field === undefined) return undefined;
  const value = params?.[field];
  const bodyValue = typeof value === 'string' ? value : undefined;
  if (headers.mcpNameHeader === undefined) {
    return bodyValue === undefined
      ? undefined
      : `the body carries params.${field}="${bodyValue}" but the required Mcp-Name header is absent`;
  }
  const decoded = decodeParamValue(headers.mcpNameHeader.trim());
  if (decoded === undefined) return 'the Mcp-Name header carries an invalid Base64 sentinel value';
  if (bodyValue !== undefined && decoded !== bodyValue) {
    return `the body carries params.${field}="${bodyValue}" but the Mcp-Name header names "${decoded}"`;
  }
  return undefined;
}
