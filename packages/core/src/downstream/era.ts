import type { DownstreamClient, RequestContext } from '../context.js';
import { ErrorCode, GatewayError } from '../errors.js';

/** Fields only the modern era defines; legacy clients never see them. */
const MODERN_ONLY_FIELDS = ['ttlMs', 'cacheScope', 'resultType'] as const;

/** The era of the client a request came from (a request of no client, e.g. the gateway's own: legacy). */
export function eraOf(ctx: Pick<RequestContext, 'client'>): 'legacy' | 'modern' {
  return ctx.client?.era ?? 'legacy';
}

/** Protocol revisions before 2026 use the legacy wire era. */
export function isLegacyVersion(version: string | undefined): boolean {
  return version === undefined || version < '2026-01-01';
}

const PROTOCOL_VERSION_META_KEY = 'io.modelcontextprotocol/protocolVersion';

/** The protocol revision a request's envelope names (`_meta["io.modelcontextprotocol/protocolVersion"]`). */
export function envelopeVersion(params: unknown): string | undefined {
  const meta = (params as { _meta?: Record<string, unknown> } | undefined)?._meta;
  const version = meta?.[PROTOCOL_VERSION_META_KEY];
  return typeof version === 'string' ? version : undefined;
}

/**
 * Whether a message's params carry the 2026-07-28 envelope claim at all, whatever its value (a malformed
 * claim still claims the era), as the SDK's classifier decides it.
 */
export function claimsEnvelope(params: unknown): boolean {
  if (typeof params !== 'object' || params === null || Array.isArray(params)) return false;
  const meta = (params as { _meta?: unknown })._meta;
  return (
    typeof meta === 'object' && meta !== null && !Array.isArray(meta) && PROTOCOL_VERSION_META_KEY in meta
  );
}

/**
 * The era adapter for errors: legacy revisions (2024-11-05 … 2025-11-25) specify -32002 for a missing
 * resource, the modern era -32602. The gateway raises one error (reason `resource_not_found`) and the
 * request chain gives it the code of the caller's era as soon as it becomes an outcome, so every plugin
 * sees the error the client receives. Anything else, and a request of no known era, is returned as is.
 */
export function errorForEra(error: GatewayError, client: DownstreamClient | undefined): GatewayError {
  if (client === undefined || error.reason !== 'resource_not_found') return error;
  const code = client.era === 'legacy' ? ErrorCode.ResourceNotFoundLegacy : ErrorCode.InvalidParams;
  if (error.code === code) return error;
  return new GatewayError(code, error.message, error.data, { cause: error.cause });
}

/** A result as a client of `era` receives it: a legacy client never sees the modern-only fields. */
export function resultForEra(
  result: Record<string, unknown>,
  era: 'legacy' | 'modern',
): Record<string, unknown> {
  if (era === 'modern' || !MODERN_ONLY_FIELDS.some((f) => f in result)) return result;
  const legacy = { ...result };
  for (const field of MODERN_ONLY_FIELDS) delete legacy[field];
  return legacy;
}
