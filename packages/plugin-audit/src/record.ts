import {
  APPROVAL_KEY,
  type ApprovalRecord,
  CACHE_STATUS_KEY,
  type CacheStatus,
  type DownstreamTransportKind,
  isRecord,
  type Outcome,
  PIN_QUARANTINED_KEY,
  type RequestContext,
  type RequestTarget,
  SECRETS_FINDINGS_KEY,
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
  /** The exposed tool name a `tools/call` names. */
  tool?: string;
  /** The exposed prompt name a `prompts/get` (or a prompt completion, `params.ref.name`) names. */
  prompt?: string;
  /** The upstream the gateway routed the request to, when it routes it. */
  upstream?: string;
  /** The resource URI (or template) as that upstream knows it. */
  upstreamUri?: string;
  /** The tool or prompt name as that upstream knows it. */
  upstreamName?: string;
  /**
   * Request parameters worth auditing: the completion `argument`, and — only with the `arguments`
   * option — the `arguments` of a tool call or prompt get.
   */
  params?: { argument?: { name: string; value: string }; arguments?: Record<string, unknown> | string };
  outcome: 'ok' | 'error';
  /** The JSON-RPC error code the client received, on error (a missing resource: -32002 or -32602, by era). */
  errorCode?: number;
  /** The error's stable `data.reason` (`forbidden`, `rate_limited`, `resource_not_found`, …). */
  reason?: string;
  /** Time spent in the plugin and everything inside it, in ms. */
  durationMs: number;
  /** Size of the JSON result (or error) the gateway answered with, in UTF-8 bytes (see `encodedSize`). */
  bytes?: number;
  /** The cache's verdict, when a cache plugin inside this one served the request. */
  cache?: CacheStatus;
  /**
   * The rules (e.g. `github`, `aws`) by which a secrets plugin inside this one found credentials in the
   * request or its answer: names only, never the credentials.
   */
  secrets?: readonly string[];
  /**
   * The exposed names of the tools and prompts a pin plugin inside this one found new or changed
   * against its lock file: quarantined (left out of a list, a call refused), or under `warn` let through.
   */
  quarantined?: readonly string[];
  /** How an approve plugin inside this one decided a held tool call: who was asked, the decision, who gave it. */
  approval?: ApprovalRecord;
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
  'tool',
  'prompt',
  'upstream',
  'upstreamUri',
  'upstreamName',
  'params',
  'outcome',
  'errorCode',
  'reason',
  'durationMs',
  'bytes',
  'cache',
  'secrets',
  'quarantined',
  'approval',
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
  /** Where the gateway routed the request (`ctx.target`). */
  target: RequestTarget | undefined;
  /** Record tool and prompt `arguments` (the `arguments` option). */
  withArguments: boolean;
}

/** Builds the audit record of one answered request, its fields in the documented order. */
export function buildRecord(observation: Observation): AuditRecord {
  const { ctx, outcome, startedAt, durationMs, target } = observation;
  const record: Partial<AuditRecord> = {
    time: new Date(startedAt).toISOString(),
    identity: ctx.identity.id,
  };
  if (ctx.identity.groups.length > 0) record.groups = ctx.identity.groups;
  record.session = ctx.session.id;
  record.transport = ctx.session.transport;
  record.method = ctx.method;
  const uri = requestUri(ctx);
  if (uri !== undefined) record.uri = clip(uri, MAX_URI_CHARS);
  const named = requestName(ctx);
  if (named !== undefined) record[named.kind] = clip(named.name, MAX_NAME_CHARS);
  if (target !== undefined) {
    record.upstream = target.upstream;
    if (target.uri !== undefined) record.upstreamUri = clip(target.uri, MAX_URI_CHARS);
    if (target.name !== undefined) record.upstreamName = clip(target.name, MAX_NAME_CHARS);
  }
  const params = requestParams(ctx, observation.withArguments);
  if (params !== undefined) record.params = params;
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
  const secrets = ctx.state.get(SECRETS_FINDINGS_KEY);
  if (Array.isArray(secrets) && secrets.length > 0) {
    record.secrets = secrets.filter((rule): rule is string => typeof rule === 'string');
  }
  const quarantined = ctx.state.get(PIN_QUARANTINED_KEY);
  if (Array.isArray(quarantined) && quarantined.length > 0) {
    record.quarantined = quarantined.filter((name): name is string => typeof name === 'string');
  }
  const approval = ctx.state.get(APPROVAL_KEY) as ApprovalRecord | undefined;
  if (approval !== undefined) record.approval = { ...approval };
  return record as AuditRecord;
}

/** The exposed URI a request names: `params.uri`, or `params.ref.uri` (completions). */
export function requestUri(ctx: Pick<RequestContext, 'params'>): string | undefined {
  const { uri, ref } = paramsOf(ctx);
  if (typeof uri === 'string') return uri;
  if (typeof ref === 'object' && ref !== null && typeof (ref as { uri?: unknown }).uri === 'string') {
    return (ref as { uri: string }).uri;
  }
  return undefined;
}

/** The exposed tool or prompt name a request names (`params.name`, or `params.ref.name` of a prompt completion). */
function requestName(ctx: Pick<RequestContext, 'method' | 'params'>) {
  const { name, ref } = paramsOf(ctx);
  if (ctx.method === 'tools/call' && typeof name === 'string') return { kind: 'tool' as const, name };
  if (ctx.method === 'prompts/get' && typeof name === 'string') return { kind: 'prompt' as const, name };
  if (isRecord(ref) && ref.type === 'ref/prompt' && typeof ref.name === 'string') {
    return { kind: 'prompt' as const, name: ref.name };
  }
  return undefined;
}

/** The completion argument, and the tool or prompt arguments when they are to be recorded. */
function requestParams(ctx: Pick<RequestContext, 'method' | 'params'>, withArguments: boolean) {
  if (ctx.method === 'completion/complete') {
    const argument = completionArgument(paramsOf(ctx).argument);
    return argument === undefined ? undefined : { argument };
  }
  const args = paramsOf(ctx).arguments;
  if (!withArguments || (ctx.method !== 'tools/call' && ctx.method !== 'prompts/get') || !isRecord(args)) {
    return undefined;
  }
  const bytes = encodedSize(args);
  if (bytes !== undefined && bytes <= MAX_ARGUMENTS_BYTES) return { arguments: args };
  return {
    arguments: `[OMITTED: ${bytes === undefined ? 'not JSON' : `${bytes} bytes`}, over ${MAX_ARGUMENTS_BYTES}]`,
  };
}

/**
 * The request's params as the record reads them: an inner plugin may have replaced `ctx.params` with
 * something that is no object (`null`), and the record is still written, without what they would say.
 */
function paramsOf(ctx: Pick<RequestContext, 'params'>): Record<string, unknown> {
  const params: unknown = ctx.params;
  return isRecord(params) ? params : {};
}

/** Longest URI recorded; longer ones are cut and end with `…` (a client must not be able to bloat the log). */
export const MAX_URI_CHARS = 4096;
/** Longest completion argument name or value recorded. */
export const MAX_ARGUMENT_CHARS = 256;
/** Longest tool or prompt name recorded (exposed names have at most 64 characters; clients may send more). */
export const MAX_NAME_CHARS = 256;
/** Largest `arguments` object recorded, in encoded bytes; a larger one is recorded as a short note. */
export const MAX_ARGUMENTS_BYTES = 16 * 1024;

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
