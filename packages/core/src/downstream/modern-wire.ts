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
 * `{method, result}` are not the specification's and are left out, as the SDK does. `header` (HTTP) reads
 * the request's headers for the client. Rest destructuring, not `delete` (which turns an object into a
 * dictionary) nor `{ ...a, key }` (see {@link encodeModernResult}).
 */
export function liftModernRequest(
  params: Record<string, unknown> | undefined,
  header?: (name: string) => string | undefined,
): ModernRequest {
  const { inputResponses: answers, requestState, _meta, ...lifted } = params ?? {};
  let capabilities: unknown;
  let logLevel: unknown;
  if (isRecord(_meta)) {
    const {
      [PROTOCOL_VERSION_META_KEY]: _version,
      [CLIENT_INFO_META_KEY]: _info,
      [CLIENT_CAPABILITIES_META_KEY]: declared,
      [LOG_LEVEL_META_KEY]: level,
      ...rest
    } = _meta;
    capabilities = declared;
    logLevel = level;
    if (Object.keys(rest).length > 0) lifted._meta = rest;
  } else if (_meta !== undefined) lifted._meta = _meta;
  const inputResponses = bareResponses(answers);
  return {
    params: lifted,
    client: {
      era: 'modern',
      capabilities: isRecord(capabilities) ? capabilities : undefined,
      ...(inputResponses === undefined ? {} : { inputResponses }),
      ...(typeof requestState === 'string' ? { requestState } : {}),
      ...(typeof logLevel === 'string' ? { logLevel } : {}),
      ...(header === undefined ? {} : { header }),
    },
  };
}

/**
 * A handler's result as a 2026-07-28 client receives it: `resultType` (`complete` unless the method may
 * be answered otherwise), the cache fields of a cacheable result (`ttlMs` 0 and `cacheScope` private
 * unless the result carries valid ones), and the server's identity in `_meta`.
 *
 * Built as one literal with the result spread last, then its own fields overwritten: on Node 20's V8 an
 * object spread that then gains keys (`{ ...result, resultType }`, or assigning a new key to a spread
 * copy) makes a new hidden class every time — about 1.5 µs and old-space garbage per key per request.
 */
export function encodeModernResult(method: string, result: Record<string, unknown>): Record<string, unknown> {
  const type = result.resultType === undefined ? 'complete' : result.resultType;
  if (type !== 'complete' && !EXTENDED_RESULT_TYPE.has(method)) {
    throw new Error(
      `a ${method} result may only be complete in protocol revision 2026-07-28, not ${String(type)}`,
    );
  }
  const cacheable = type === 'complete' && CACHEABLE.has(method);
  const encoded: Record<string, unknown> = cacheable
    ? { resultType: undefined, ttlMs: undefined, cacheScope: undefined, _meta: undefined, ...result }
    : { resultType: undefined, _meta: undefined, ...result };
  encoded.resultType = type;
  if (cacheable) {
    encoded.ttlMs = validTtl(result.ttlMs) ? result.ttlMs : 0;
    encoded.cacheScope = result.cacheScope === 'public' ? 'public' : 'private';
  }
  encoded._meta = withServerInfo(result._meta);
  return encoded;
}

/** The server's identity in a result's `_meta` (a `_meta` that is not an object is left as it is). */
function withServerInfo(meta: unknown): unknown {
  if (meta === undefined) return SERVER_META;
  if (!isRecord(meta) || meta[SERVER_INFO_META_KEY] !== undefined) return meta;
  return { ...meta, [SERVER_INFO_META_KEY]: SERVER_INFO };
}

/** A result without `_meta` gets this one (never changed after: the result is serialized next). */
const SERVER_META: Readonly<Record<string, unknown>> = Object.freeze({ [SERVER_INFO_META_KEY]: SERVER_INFO });

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
