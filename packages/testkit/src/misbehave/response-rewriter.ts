import type { MisbehaveMode } from './modes.js';

/**
 * The `_meta` key a misbehave tool puts on its (valid) result to ask the wire layer to replace that result:
 * the SDK validates what a `tools/call` handler returns, so an invalid result can only be made on the wire.
 */
export const REWRITE_MARKER = 'testkit/misbehave-rewrite';

/** What a marked result becomes on the wire. */
export type ResultRewrite = 'invalid-result' | 'non-object-result';

/** The six notifications `malformed-notifications` sends after every response. */
export const MALFORMED_NOTIFICATIONS: readonly object[] = [
  { jsonrpc: '2.0', method: 'notifications/resources/updated', params: {} },
  { jsonrpc: '2.0', method: 'notifications/resources/updated', params: { uri: 42 } },
  { jsonrpc: '2.0', method: 'notifications/progress', params: { progressToken: {}, progress: 'x' } },
  { jsonrpc: '2.0', method: 'notifications/message', params: { level: 42 } },
  { jsonrpc: '2.0', method: 'notifications/tools/list_changed', params: 'oops' },
  { jsonrpc: '2.0', method: 'notifications/x-unknown', params: {} },
];

/** Modes that change or add JSON-RPC messages around the responses a server sends. */
const RESPONSE_MODES: readonly MisbehaveMode[] = [
  'no-result-type',
  'invalid-result',
  'unknown-ids',
  'duplicate-ids',
  'malformed-notifications',
];

type Json = Record<string, unknown>;

function isObject(value: unknown): value is Json {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/** A JSON-RPC response (result or error), as opposed to a request or a notification. */
export function isResponse(message: unknown): message is Json {
  return (
    isObject(message) &&
    'id' in message &&
    !('method' in message) &&
    ('result' in message || 'error' in message)
  );
}

/** Whether any of `modes` rewrites responses (so a wire layer must look at every outbound message). */
export function rewritesResponses(modes: ReadonlySet<MisbehaveMode>): boolean {
  return RESPONSE_MODES.some((mode) => modes.has(mode));
}

/**
 * Turns each outbound JSON-RPC message into what actually goes on the wire, per the response modes: a
 * response to an id nobody used before it (`unknown-ids`), the response itself (marked results replaced,
 * `resultType` removed under `no-result-type`), again (`duplicate-ids`), then the malformed notifications.
 * Requests and notifications pass unchanged. Shared by the stdio transport wrapper and the HTTP shim.
 */
export class ResponseRewriter {
  readonly #modes: ReadonlySet<MisbehaveMode>;
  #unknown = 0;

  constructor(modes: ReadonlySet<MisbehaveMode>) {
    this.#modes = modes;
  }

  rewrite(message: unknown): unknown[] {
    if (!isResponse(message)) return [message];
    const out: unknown[] = [];
    if (this.#modes.has('unknown-ids')) {
      this.#unknown += 1;
      out.push({ jsonrpc: '2.0', id: `unknown-${this.#unknown}`, result: {} });
    }
    const response = this.#response(message);
    out.push(response);
    if (this.#modes.has('duplicate-ids')) out.push(response);
    if (this.#modes.has('malformed-notifications')) out.push(...MALFORMED_NOTIFICATIONS);
    return out;
  }

  #response(message: Json): Json {
    if (!isObject(message.result)) return message;
    let result: unknown = message.result;
    const rewrite = isObject(message.result._meta) ? message.result._meta[REWRITE_MARKER] : undefined;
    if (rewrite === 'invalid-result') {
      const resultType = message.result.resultType;
      result = { content: 'not-an-array', ...(resultType === undefined ? {} : { resultType }) };
    } else if (rewrite === 'non-object-result') {
      result = 'not an object';
    }
    if (this.#modes.has('no-result-type') && isObject(result) && 'resultType' in result) {
      const { resultType: _dropped, ...rest } = result;
      result = rest;
    }
    return result === message.result ? message : { ...message, result };
  }
}
