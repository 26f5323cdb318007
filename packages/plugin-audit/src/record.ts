import {
  CACHE_STATUS_KEY,
  type CacheStatus,
  type DownstreamTransportKind,
  type Outcome,
  type RequestContext,
} from '@switchyard/core';
import { encodedSize } from './size.js';

/**
 * One line of the audit log. Field names are stable; optional fields are left out when they do not
 * apply (no `uri` on a list, no `errorCode` on success). Bearer tokens are never part of a record.
 */
export interface AuditRecord {
  /** When the request reached the plugin (ISO 8601, UTC). */
  time: string;
  /** The caller's identity (`clients.<name>`, or the anonymous identity). */
  identity: string;
  /** The caller's groups, when it has any. */
  groups?: readonly string[];
  /** The downstream session id. */
  session: string;
  transport: DownstreamTransportKind;
  /** The JSON-RPC method, e.g. `resources/read`. */
  method: string;
  /** The exposed URI the request names (`params.uri`, or `params.ref.uri` for completions). */
  uri?: string;
  /** The upstream that serves `uri`, when the gateway routes it. */
  upstream?: string;
  /** Small request parameters worth auditing: the completion `argument`. */
  params?: { argument?: { name: string; value: string } };
  outcome: 'ok' | 'error';
  /** The JSON-RPC error code, on error. */
  errorCode?: number;
  /** The error's stable `data.reason` (`forbidden`, `rate_limited`, `resource_not_found`, …). */
  reason?: string;
  /** Time spent in the plugin and everything inside it, in ms. */
  durationMs: number;
  /** Size of the JSON result (or error) the gateway answered with, in UTF-8 bytes (see `encodedSize`). */
  bytes?: number;
  /** The cache's verdict, when a cache plugin inside this one served the request. */
  cache?: CacheStatus;
}

/** Every top-level record field (the names `redact` paths start with). */
export const RECORD_FIELDS = [
  'time',
  'identity',
  'groups',
  'session',
  'transport',
  'method',
  'uri',
  'upstream',
  'params',
  'outcome',
  'errorCode',
  'reason',
  'durationMs',
  'bytes',
  'cache',
] as const satisfies readonly (keyof AuditRecord)[];

/** Record fields that hold objects a `redact` path may reach into. */
export const NESTED_FIELDS = ['params'] as const satisfies readonly (keyof AuditRecord)[];

/** What the plugin observed about one request. */
export interface Observation {
  ctx: RequestContext;
  outcome: Outcome;
  /** Epoch ms when the request reached the plugin. */
  startedAt: number;
  durationMs: number;
  /** Routes an exposed URI to its upstream's name. */
  route: (uri: string) => string | undefined;
}

/** Builds the audit record of one answered request, its fields in the documented order. */
export function buildRecord({ ctx, outcome, startedAt, durationMs, route }: Observation): AuditRecord {
  const record: Partial<AuditRecord> = {
    time: new Date(startedAt).toISOString(),
    identity: ctx.identity.id,
  };
  if (ctx.identity.groups.length > 0) record.groups = ctx.identity.groups;
  record.session = ctx.session.id;
  record.transport = ctx.session.transport;
  record.method = ctx.method;
  const uri = requestUri(ctx);
  if (uri !== undefined) {
    record.uri = clip(uri, MAX_URI_CHARS);
    const upstream = route(uri);
    if (upstream !== undefined) record.upstream = upstream;
  }
  const argument = ctx.method === 'completion/complete' ? completionArgument(ctx.params.argument) : undefined;
  if (argument !== undefined) record.params = { argument };
  record.outcome = outcome.ok ? 'ok' : 'error';
  if (!outcome.ok) {
    record.errorCode = outcome.error.code;
    const reason = outcome.error.data?.reason;
    if (typeof reason === 'string') record.reason = reason;
  }
  record.durationMs = Math.round(durationMs * 1000) / 1000;
  const bytes = encodedSize(outcome.ok ? outcome.result : outcome.error.toJSON());
  if (bytes !== undefined) record.bytes = bytes;
  const cache = ctx.state.get(CACHE_STATUS_KEY);
  if (typeof cache === 'string') record.cache = cache as CacheStatus;
  return record as AuditRecord;
}

/** The exposed URI a request names: `params.uri`, or `params.ref.uri` (completions). */
export function requestUri(ctx: Pick<RequestContext, 'params'>): string | undefined {
  const { uri, ref } = ctx.params;
  if (typeof uri === 'string') return uri;
  if (typeof ref === 'object' && ref !== null && typeof (ref as { uri?: unknown }).uri === 'string') {
    return (ref as { uri: string }).uri;
  }
  return undefined;
}

/** Longest URI recorded; longer ones are cut and end with `…` (a client must not be able to bloat the log). */
export const MAX_URI_CHARS = 4096;
/** Longest completion argument name or value recorded. */
export const MAX_ARGUMENT_CHARS = 256;

function completionArgument(value: unknown): { name: string; value: string } | undefined {
  if (typeof value !== 'object' || value === null) return undefined;
  const { name, value: text } = value as { name?: unknown; value?: unknown };
  if (typeof name !== 'string' || typeof text !== 'string') return undefined;
  return { name: clip(name, MAX_ARGUMENT_CHARS), value: clip(text, MAX_ARGUMENT_CHARS) };
}

/** `text`, cut to `max` characters (the last one becoming `…`) when longer. */
export function clip(text: string, max: number): string {
  return text.length <= max ? text : `${text.slice(0, max - 1)}…`;
}
