import { isJSONRPCRequest, type StandardSchemaV1Sync, specTypeSchemas } from '@modelcontextprotocol/server';
import { ErrorCode, GatewayError } from '../errors.js';
import { DEFAULT_MAX_JSON_DEPTH, jsonTextTooDeep } from '../json-depth.js';
import { claimsEnvelope } from './era.js';

/** A JSON-RPC error response for input that never reached a handler (or was refused before one). */
export interface JsonRpcErrorResponse {
  jsonrpc: '2.0';
  id: string | number | null;
  error: { code: number; message: string; data?: unknown };
}

/** The error response a transport sends itself for request `id` (e.g. a listen refused before the SDK saw it). */
export function errorResponse(id: unknown, error: GatewayError): JsonRpcErrorResponse {
  return {
    jsonrpc: '2.0',
    id: typeof id === 'string' || typeof id === 'number' ? id : null,
    error: { code: error.code, message: error.message, data: error.data },
  };
}

/** A message refused before anything answers it: the id to answer, and why (HTTP 400 where there is a status). */
export interface InvalidMessage {
  readonly id: string | number | null;
  readonly error: GatewayError;
  /**
   * For a malformed response to a request the gateway sent the client (an upstream's sampling,
   * elicitation or roots request): the error response dispatched in its place, so that request fails at
   * once instead of waiting out its timeout (the SDK drops a response it cannot read). In a batch of
   * responses only, every malformed one's.
   */
  readonly answers?: readonly JsonRpcErrorResponse[];
}

/**
 * Checks the JSON-RPC 2.0 envelope of one parsed message (or a batch) of the legacy era (a session's
 * message: its era was decided before, by the listener) before it reaches the SDK, so malformed input gets
 * -32600 (or -32602 for a request the SDK would not recognise, and for `initialize` and `logging/setLevel`,
 * which the SDK answers, params that do not fit their schema) with the request's id instead of being
 * dropped or mislabelled. A batch holding a 2026-07-28 message is refused whole (`modernBatchRefusal`).
 * Undefined when the message is well-formed.
 */
export function checkEnvelope(message: unknown): InvalidMessage | undefined {
  if (!Array.isArray(message)) return checkMessage(message);
  if (message.length === 0) return invalidRequest(null, 'an empty batch is not a valid request');
  const modern = modernBatchRefusal(message);
  if (modern) return { id: null, error: modern };
  let first: InvalidMessage | undefined;
  const answers: JsonRpcErrorResponse[] = [];
  for (const item of message) {
    const invalid = checkMessage(item);
    if (!invalid) continue;
    // Anything but a malformed response refuses the batch as it is.
    if (!invalid.answers) return invalid;
    first ??= invalid;
    answers.push(...invalid.answers);
  }
  return first && { ...first, answers };
}

/** {@link checkEnvelope} of one message (a batch's item too: a batch inside a batch is no message). */
function checkMessage(message: unknown): InvalidMessage | undefined {
  if (typeof message !== 'object' || message === null || Array.isArray(message)) {
    return invalidRequest(null, 'a JSON-RPC message must be an object');
  }
  const m = message as Record<string, unknown>;
  const id = typeof m.id === 'string' || typeof m.id === 'number' ? m.id : null;
  if (m.jsonrpc !== '2.0') return invalidRequest(id, '"jsonrpc" must be "2.0"');
  if ('method' in m) {
    if (typeof m.method !== 'string' || m.method.length === 0)
      return invalidRequest(id, '"method" must be a non-empty string');
    if ('id' in m && id === null) return invalidRequest(null, '"id" must be a string or a number');
    if ('params' in m && (typeof m.params !== 'object' || m.params === null)) {
      return invalidRequest(id, '"params" must be an object or an array');
    }
    // A request the SDK cannot recognize would be dropped by it, leaving the client waiting forever.
    if ('id' in m && !isJSONRPCRequest(m)) return invalidParams(id, requestShapeProblem(m.params));
    const schema = SDK_ANSWERED.get(m.method as string);
    if (schema && 'id' in m) {
      const checked = schema['~standard'].validate(m);
      if (checked.issues) return invalidParams(id, `${m.method}: ${firstIssue(checked.issues)}`);
    }
    return undefined;
  }
  if (!('result' in m) && !('error' in m)) {
    const refusal = invalidRequest(
      id,
      'a message needs "method" (request or notification) or "result"/"error" (response)',
    );
    return id === null ? refusal : { ...refusal, answers: [failedAnswer(id, 'has no "result" or "error"')] };
  }
  const problem = responseProblem(m);
  if (problem === undefined) return undefined;
  // A response without a usable id answers nothing the gateway is waiting for: refused, nothing to fail.
  if (id === null) return invalidRequest(null, `a response ${problem}`);
  return { ...invalidRequest(id, `a response ${problem}`), answers: [failedAnswer(id, problem)] };
}

/** What is wrong with a response's shape (JSON-RPC 2.0 §5, MCP results are objects), or undefined. */
function responseProblem(m: Record<string, unknown>): string | undefined {
  if (!('id' in m) || (typeof m.id !== 'string' && typeof m.id !== 'number' && m.id !== null))
    return 'needs an "id" that is a string or a number';
  if ('result' in m && 'error' in m) return 'has both "result" and "error"';
  if ('result' in m) {
    const { result } = m;
    return typeof result === 'object' && result !== null && !Array.isArray(result)
      ? undefined
      : 'needs a "result" that is an object';
  }
  const error = m.error as { code?: unknown; message?: unknown } | null;
  if (typeof error !== 'object' || error === null || Array.isArray(error))
    return 'needs an "error" that is an object';
  if (!Number.isInteger(error.code)) return 'needs an "error.code" that is an integer';
  if (typeof error.message !== 'string') return 'needs an "error.message" that is a string';
  return undefined;
}

/** The error response dispatched in place of a client's malformed one (see {@link InvalidMessage.answer}). */
function failedAnswer(id: string | number, problem: string): JsonRpcErrorResponse {
  return {
    jsonrpc: '2.0',
    id,
    error: {
      code: ErrorCode.InternalError,
      message: `The client answered with an invalid response: it ${problem}.`,
    },
  };
}

export function parseError(detail: string): JsonRpcErrorResponse {
  return {
    jsonrpc: '2.0',
    id: null,
    error: { code: ErrorCode.ParseError, message: `Parse error: ${detail}` },
  };
}

/**
 * Requests the SDK `Server` validates and answers itself, by the spec schema it validates them with. A Map:
 * the method is the client's, and `__proto__` or `toString` must find nothing, not Object.prototype's.
 */
const SDK_ANSWERED: ReadonlyMap<string, StandardSchemaV1Sync<unknown>> = new Map<
  string,
  StandardSchemaV1Sync<unknown>
>([
  ['initialize', specTypeSchemas.InitializeRequest],
  ['logging/setLevel', specTypeSchemas.SetLevelRequest],
]);

type Issue = { message: string; path?: readonly (PropertyKey | { key: PropertyKey })[] | undefined };

function firstIssue(issues: readonly Issue[]): string {
  const issue = issues[0];
  if (!issue) return 'the request does not match the MCP schema';
  const path = (issue.path ?? []).map((p) => String(typeof p === 'object' ? p.key : p)).join('.');
  return path ? `${path}: ${issue.message}` : issue.message;
}

/** Why a request with a valid JSON-RPC envelope still is not an MCP request. */
function requestShapeProblem(params: unknown): string {
  if (Array.isArray(params)) return '"params" must be an object: MCP requests take named parameters';
  const meta = (params as Record<string, unknown> | undefined)?._meta;
  if (meta !== undefined) {
    if (typeof meta !== 'object' || meta === null || Array.isArray(meta))
      return '"params._meta" must be an object';
    const token = (meta as Record<string, unknown>).progressToken;
    if (token !== undefined && typeof token !== 'string' && typeof token !== 'number') {
      return '"params._meta.progressToken" must be a string or a number';
    }
  }
  return 'the request does not match the MCP request schema';
}

function invalidParams(id: string | number | null, detail: string): InvalidMessage {
  return { id, error: new GatewayError(ErrorCode.InvalidParams, `Invalid params: ${detail}`) };
}

function invalidRequest(id: string | number | null, detail: string): InvalidMessage {
  return { id, error: new GatewayError(ErrorCode.InvalidRequest, `Invalid request: ${detail}`) };
}

/**
 * The refusal of a message nested deeper than `limit` levels (`limits.maxJsonDepth`): -32600 with
 * `data.reason: "too_deep"` (HTTP 400 where there is a status). Its id is unknown: the text is not parsed.
 */
export function tooDeep(limit: number): GatewayError {
  return new GatewayError(
    ErrorCode.InvalidRequest,
    `Invalid request: the message nests arrays and objects deeper than ${limit} levels (limits.maxJsonDepth); send flatter params`,
    { reason: 'too_deep', limit },
  );
}

/**
 * The refusal of a batch holding a 2026-07-28 message (a request or notification whose params carry the
 * envelope claim): that revision has no batches. Every wire answers it with the error the SDK's classifier
 * gives such a body POSTed without a session (HTTP 400 there), whatever the session negotiated, and serves
 * none of it. Undefined for a batch of earlier revisions, which every wire still serves.
 */
function modernBatchRefusal(batch: readonly unknown[]): GatewayError | undefined {
  const modern = batch.some(
    (item) =>
      typeof item === 'object' && item !== null && claimsEnvelope((item as { params?: unknown }).params),
  );
  if (!modern) return undefined;
  return new GatewayError(
    ErrorCode.InvalidRequest,
    'Bad Request: JSON-RPC batches may not contain requests for protocol revision 2026-07-28 or later',
    {},
  );
}

/** What one text frame holds: the messages to dispatch, and the error responses to send back. */
export interface DecodedFrame {
  messages: unknown[];
  errors: JsonRpcErrorResponse[];
}

/**
 * Decodes one text-framed message (a stdio line, a WebSocket frame): the messages to dispatch, and the
 * error responses to send back. A text nested deeper than `maxDepth` (-32600 `too_deep`, checked before it
 * is parsed), that is not JSON (-32700) or not a JSON-RPC message (-32600) is answered once. A batch is
 * checked message by message (JSON-RPC 2.0, section 6): a malformed one is answered with its own error and
 * id, the others are dispatched, so no request with an id goes unanswered on a wire with no status to carry
 * a refusal. A batch holding a 2026-07-28 message is refused whole, once (`modernBatchRefusal`).
 */
export function decodeFrame(text: string, maxDepth: number = DEFAULT_MAX_JSON_DEPTH): DecodedFrame {
  if (jsonTextTooDeep(text, maxDepth)) return refused(errorResponse(null, tooDeep(maxDepth)));
  let message: unknown;
  try {
    message = JSON.parse(text);
  } catch (error) {
    return refused(parseError((error as Error).message));
  }
  const batch = Array.isArray(message) && message.length > 0 ? message : undefined;
  const modern = batch && modernBatchRefusal(batch);
  if (modern) {
    // Every request of it hears the refusal by its own id (a wire without a status has no other way).
    const ids = batch.map(requestIdOf).filter((id) => id !== undefined);
    return { messages: [], errors: (ids.length > 0 ? ids : [null]).map((id) => errorResponse(id, modern)) };
  }
  const decoded: DecodedFrame = { messages: [], errors: [] };
  for (const item of batch ?? [message]) {
    const invalid = batch ? checkMessage(item) : checkEnvelope(item);
    if (!invalid) decoded.messages.push(item);
    else {
      decoded.errors.push(errorResponse(invalid.id, invalid.error));
      if (invalid.answers) decoded.messages.push(...invalid.answers);
    }
  }
  return decoded;
}

function refused(error: JsonRpcErrorResponse): DecodedFrame {
  return { messages: [], errors: [error] };
}

/** The id of a request (a message with a method and a string or number id), else undefined. */
function requestIdOf(item: unknown): string | number | undefined {
  if (typeof item !== 'object' || item === null) return undefined;
  const { id, method } = item as { id?: unknown; method?: unknown };
  return typeof method === 'string' && (typeof id === 'string' || typeof id === 'number') ? id : undefined;
}
