import {
  CLIENT_CAPABILITIES_META_KEY,
  CLIENT_INFO_META_KEY,
  LOG_LEVEL_META_KEY,
  PROTOCOL_VERSION_META_KEY,
  SERVER_INFO_META_KEY,
} from '@modelcontextprotocol/server';
import type { DownstreamClient } from '../context.js';
import { isRecord } from '../payload.js';
import { SERVER_INFO } from './server-adapter.js';

// The 2026-07-28 request and result, as the specification frames them around what a handler sees. This
// is what the SDK's per-request `Server` did for the gateway (its 2026 codec's inbound lift and encode
// contract), done once per request without building one; `modern-wire.test.ts` holds the two to the same
// output.

/** The envelope keys a 2026-07-28 request carries in `params._meta`; handlers never see them. */
const ENVELOPE_KEYS = [
  PROTOCOL_VERSION_META_KEY,
  CLIENT_INFO_META_KEY,
  CLIENT_CAPABILITIES_META_KEY,
  LOG_LEVEL_META_KEY,
] as const;

/** Methods whose 2026-07-28 results are cacheable (`CacheableResult`: `ttlMs` and `cacheScope` required). */
const CACHEABLE = new Set([
  'tools/list',
  'prompts/list',
  'resources/list',
  'resources/templates/list',
  'resources/read',
  'server/discover',
]);

/** Methods whose results may be other than `complete` (multi round-trip requests, tasks). */
const EXTENDED_RESULT_TYPE = new Set(['tools/call', 'prompts/get', 'resources/read']);

/** A 2026-07-28 request as the gateway handles it: its params without the wire-only material. */
export interface ModernRequest {
  readonly params: Record<string, unknown>;
  /** The client as this request declares it (its capabilities, log level, a retry's answers and state). */
  readonly client: DownstreamClient;
}

/**
 * Lifts the wire-only material out of a request's params: the envelope keys of `_meta` (the client's
 * capabilities and log level), and a retry's `inputResponses` and `requestState`. Responses wrapped as
 * `{method, result}` are not the specification's and are left out, as the SDK does.
 */
export function liftModernRequest(params: Record<string, unknown> | undefined): ModernRequest {
  const source = params ?? {};
  const meta = isRecord(source._meta) ? source._meta : undefined;
  const lifted: Record<string, unknown> = { ...source };
  delete lifted.inputResponses;
  delete lifted.requestState;
  if (meta !== undefined) {
    const rest: Record<string, unknown> = { ...meta };
    for (const key of ENVELOPE_KEYS) delete rest[key];
    if (Object.keys(rest).length > 0) lifted._meta = rest;
    else delete lifted._meta;
  }
  const capabilities = meta?.[CLIENT_CAPABILITIES_META_KEY];
  const logLevel = meta?.[LOG_LEVEL_META_KEY];
  const requestState = source.requestState;
  const inputResponses = bareResponses(source.inputResponses);
  return {
    params: lifted,
    client: {
      era: 'modern',
      capabilities: isRecord(capabilities) ? capabilities : undefined,
      ...(inputResponses === undefined ? {} : { inputResponses }),
      ...(typeof requestState === 'string' ? { requestState } : {}),
      ...(typeof logLevel === 'string' ? { logLevel } : {}),
    },
  };
}

/**
 * A handler's result as a 2026-07-28 client receives it: `resultType` (`complete` unless the method may
 * be answered otherwise), the cache fields of a cacheable result (`ttlMs` 0 and `cacheScope` private
 * unless the result carries valid ones), and the server's identity in `_meta`.
 */
export function encodeModernResult(method: string, result: Record<string, unknown>): Record<string, unknown> {
  const encoded: Record<string, unknown> = { ...result };
  const type = encoded.resultType;
  if (type === undefined) encoded.resultType = 'complete';
  else if (type !== 'complete' && !EXTENDED_RESULT_TYPE.has(method)) {
    throw new Error(
      `a ${method} result may only be complete in protocol revision 2026-07-28, not ${String(type)}`,
    );
  }
  if (encoded.resultType === 'complete' && CACHEABLE.has(method)) {
    if (!validTtl(encoded.ttlMs)) encoded.ttlMs = 0;
    if (encoded.cacheScope !== 'public' && encoded.cacheScope !== 'private') encoded.cacheScope = 'private';
  }
  const meta = encoded._meta;
  if (meta === undefined) encoded._meta = { [SERVER_INFO_META_KEY]: SERVER_INFO };
  else if (isRecord(meta) && meta[SERVER_INFO_META_KEY] === undefined) {
    encoded._meta = { ...meta, [SERVER_INFO_META_KEY]: SERVER_INFO };
  }
  return encoded;
}

function validTtl(value: unknown): boolean {
  return typeof value === 'number' && Number.isSafeInteger(value) && value >= 0;
}

function bareResponses(value: unknown): Record<string, unknown> | undefined {
  if (value === undefined) return undefined;
  // A null prototype: a response keyed `__proto__` is an entry like any other.
  const accepted: Record<string, unknown> = Object.create(null);
  if (!isRecord(value)) return accepted;
  for (const [key, entry] of Object.entries(value)) {
    if (isRecord(entry) && !('method' in entry) && !('result' in entry)) accepted[key] = entry;
  }
  return accepted;
}
