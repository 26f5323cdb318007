import { DEFAULT_MAX_JSON_DEPTH, jsonTextTooDeep } from '@switchyard/core/listener';
import fc from 'fast-check';

// The bad-input sweep's inputs: valid requests of both eras, mutated (fields dropped or given the wrong
// type, odd ids, Object.prototype names as methods, names and keys, huge and deep values, batches), then
// sometimes broken as text; and, on HTTP, odd methods, paths and headers. Every choice is a fast-check
// value, so a case is reproducible from the seed and shrinks to a small one.

export type Json = null | boolean | number | string | Json[] | { [key: string]: Json };
type JsonObject = { [key: string]: Json };

/** Names of Object.prototype members: the keys a lookup on a plain object would find without being given. */
export const PROTO_NAMES = [
  '__proto__',
  'constructor',
  'prototype',
  'toString',
  'hasOwnProperty',
  'valueOf',
  '__defineGetter__',
  'isPrototypeOf',
] as const;

/** Methods the gateway (or the SDK in front of it) serves; `subscriptions/listen` streams, so it is left out. */
const METHODS = [
  'initialize',
  'ping',
  'tools/list',
  'tools/call',
  'prompts/list',
  'prompts/get',
  'resources/list',
  'resources/templates/list',
  'resources/read',
  'resources/subscribe',
  'resources/unsubscribe',
  'completion/complete',
  'logging/setLevel',
  'server/discover',
  'tasks/get',
  'tasks/list',
  'tasks/cancel',
  'skills/list',
  'notifications/initialized',
  'notifications/cancelled',
  'notifications/roots/list_changed',
] as const;

/** The requests the sweep starts from (the upstream `docs` is a testkit with tools, prompts and resources). */
const BASES: readonly { method: string; params?: JsonObject; notification?: boolean }[] = [
  { method: 'ping' },
  { method: 'tools/list', params: {} },
  { method: 'tools/call', params: { name: 'docs__echo', arguments: { text: 'hello' } } },
  { method: 'tools/call', params: { name: 'docs__tool_0', arguments: { text: 'x', n: 1 } } },
  { method: 'tools/call', params: { name: 'docs__tool_1', arguments: { text: 'held for approval' } } },
  { method: 'tools/call', params: { name: 'docs__fail', arguments: {} } },
  { method: 'tools/call', params: { name: 'docs__throw', arguments: {} } },
  { method: 'tools/call', params: { name: 'docs__link', arguments: {} } },
  { method: 'tools/call', params: { name: 'docs__elicit', arguments: { message: 'ok?' } } },
  { method: 'prompts/list', params: {} },
  { method: 'prompts/get', params: { name: 'docs__prompt_0', arguments: { topic: 'a' } } },
  { method: 'resources/list', params: {} },
  { method: 'resources/templates/list', params: {} },
  { method: 'resources/read', params: { uri: 'docs+test://docs/r/0' } },
  { method: 'resources/subscribe', params: { uri: 'docs+test://docs/r/1' } },
  { method: 'resources/unsubscribe', params: { uri: 'docs+test://docs/r/1' } },
  {
    method: 'completion/complete',
    params: {
      ref: { type: 'ref/resource', uri: 'docs+test://docs/items/{id}' },
      argument: { name: 'id', value: '1' },
    },
  },
  { method: 'logging/setLevel', params: { level: 'info' } },
  {
    method: 'initialize',
    params: { protocolVersion: '2025-06-18', capabilities: {}, clientInfo: { name: 'fuzz', version: '1' } },
  },
  { method: 'notifications/initialized', notification: true },
  { method: 'notifications/cancelled', params: { requestId: 7, reason: 'fuzz' }, notification: true },
];

/** The 2026-07-28 envelope every modern request carries in `params._meta`. */
export const MODERN_META: JsonObject = {
  'io.modelcontextprotocol/protocolVersion': '2026-07-28',
  'io.modelcontextprotocol/clientCapabilities': {},
  'io.modelcontextprotocol/clientInfo': { name: 'fuzz', version: '1' },
};

/** Where a mutation acts: a field of the message, of its params, or of the arguments. */
const PLACES = [
  'jsonrpc',
  'id',
  'method',
  'params',
  'params.name',
  'params.uri',
  'params.arguments',
  'params._meta',
  'params.cursor',
  'params.ref',
  'params.argument',
  'params.level',
  'params.protocolVersion',
  'params.capabilities',
  'params.arguments.text',
  'params._meta.progressToken',
  'params._meta.io.modelcontextprotocol/protocolVersion',
] as const;

/** A value built as text, so that a depth of 100,000 costs no recursion anywhere (JSON.stringify included). */
export interface Raw {
  raw: string;
}

type Value = Json | Raw;

function isRaw(value: unknown): value is Raw {
  return (
    typeof value === 'object' &&
    value !== null &&
    !Array.isArray(value) &&
    'raw' in value &&
    Object.keys(value).length === 1
  );
}

const deep = fc
  .record({
    depth: fc.constantFrom(2, 30, 60, 94, 95, 96, 97, 98, 99, 100, 101, 200, 1_000, 10_000, 100_000),
    kind: fc.constantFrom('arrays', 'objects', 'mixed'),
  })
  .map(({ depth, kind }): Raw => {
    if (kind === 'arrays') return { raw: `${'['.repeat(depth)}${']'.repeat(depth)}` };
    if (kind === 'objects') return { raw: `${'{"a":'.repeat(depth)}1${'}'.repeat(depth)}` };
    return { raw: `${'[{"k":'.repeat(depth >> 1)}0${'}]'.repeat(depth >> 1)}` };
  });

const huge = fc
  .record({
    // Up to ~3.6 MB of JSON (a NUL is written as 6 bytes): under the 4 MiB body limit, but the last size.
    bytes: fc.constantFrom(1_000, 100_000, 600_000, 600_000, 5_000_000),
    char: fc.constantFrom('x', 'é', '"', '\\', '\u0000', '😀'),
  })
  .map(({ bytes, char }) => char.repeat(Math.ceil(bytes / Math.max(1, Buffer.byteLength(char)))));

/** An object whose keys are Object.prototype names (own keys: JSON.parse keeps `__proto__` one). */
const protoObject = fc
  .subarray([...PROTO_NAMES], { minLength: 1 })
  .chain((keys) =>
    fc
      .tuple(
        ...keys.map(() => fc.oneof(fc.constant(1), fc.constant('x'), fc.constant({}), fc.constant(null))),
      )
      .map(
        (values): Json => JSON.parse(JSON.stringify(Object.fromEntries(keys.map((k, i) => [k, values[i]!])))),
      ),
  );

/** Values of the wrong type (or the right type with odd content) for any field. */
const wild: fc.Arbitrary<Value> = fc.oneof(
  {
    weight: 3,
    arbitrary: fc.constantFrom<Json>(
      null,
      true,
      false,
      0,
      -1,
      1.5,
      1e308,
      -0,
      '',
      ' ',
      [],
      {},
      [1, 2],
      [[]],
      { a: {} },
    ),
  },
  { weight: 2, arbitrary: fc.constantFrom<Json>(...PROTO_NAMES) },
  { weight: 2, arbitrary: fc.string({ maxLength: 40 }) },
  { weight: 1, arbitrary: fc.string({ unit: 'binary', maxLength: 20 }) },
  { weight: 1, arbitrary: fc.integer() },
  { weight: 1, arbitrary: fc.double() },
  { weight: 1, arbitrary: protoObject },
  { weight: 1, arbitrary: deep },
  { weight: 1, arbitrary: huge },
  {
    weight: 1,
    arbitrary: fc.constantFrom<Json>(
      'docs+test://docs/r/%2e%2e/x',
      'docs+',
      '%zz',
      'file:///etc/passwd',
      'docs__',
      'docs____proto__',
      'x'.repeat(65),
      '\u202e\u0000\ud800',
    ),
  },
);

const oddId = fc.oneof(
  fc.constantFrom<Json>(
    0,
    -1,
    1.5,
    2 ** 53 + 2,
    1e308,
    '',
    '__proto__',
    'constructor',
    null,
    true,
    {},
    [],
    [1],
  ),
  fc.string({ maxLength: 30 }),
  fc.integer(),
);

export type Mutation =
  | { kind: 'drop'; place: (typeof PLACES)[number] }
  | { kind: 'set'; place: (typeof PLACES)[number]; value: Value }
  | { kind: 'key'; where: 'top' | 'params' | 'arguments' | '_meta'; key: string; value: Value }
  | { kind: 'method'; method: string }
  | { kind: 'id'; id: Json }
  | { kind: 'batch'; size: 0 | 1 | 2 | 3 };

const mutation: fc.Arbitrary<Mutation> = fc.oneof(
  fc.record({ kind: fc.constant('drop' as const), place: fc.constantFrom(...PLACES) }),
  {
    weight: 3,
    arbitrary: fc.record({
      kind: fc.constant('set' as const),
      place: fc.constantFrom(...PLACES),
      value: wild,
    }),
  },
  {
    weight: 2,
    arbitrary: fc.record({
      kind: fc.constant('key' as const),
      where: fc.constantFrom('top' as const, 'params' as const, 'arguments' as const, '_meta' as const),
      key: fc.oneof(fc.constantFrom(...PROTO_NAMES), fc.string({ maxLength: 12 })),
      value: wild,
    }),
  },
  {
    weight: 2,
    arbitrary: fc.record({
      kind: fc.constant('method' as const),
      method: fc.oneof(
        fc.constantFrom(...METHODS),
        fc.constantFrom(...PROTO_NAMES),
        fc.constantFrom(
          '',
          'rpc.discover',
          'tools/',
          '/tools/list',
          'TOOLS/LIST',
          'notifications/x',
          'x'.repeat(5000),
        ),
        fc.string({ maxLength: 20 }),
      ),
    }),
  },
  fc.record({ kind: fc.constant('id' as const), id: oddId }),
  fc.record({
    kind: fc.constant('batch' as const),
    size: fc.constantFrom(0 as const, 1 as const, 2 as const, 3 as const),
  }),
);

export type TextMutation =
  | { kind: 'truncate'; at: number }
  | { kind: 'insert'; at: number; text: string }
  | { kind: 'replace'; text: string }
  | { kind: 'duplicate-key' };

const textMutation: fc.Arbitrary<TextMutation> = fc.oneof(
  fc.record({ kind: fc.constant('truncate' as const), at: fc.nat() }),
  fc.record({
    kind: fc.constant('insert' as const),
    at: fc.nat(),
    text: fc.oneof(
      fc.constantFrom(',', '}', ']', '"', '\\', '\u0000', '\ufeff', 'NaN', '//', '\n'),
      fc.string({ maxLength: 4 }),
    ),
  }),
  fc.record({
    kind: fc.constant('replace' as const),
    text: fc.oneof(
      fc.constantFrom(
        '',
        ' ',
        'null',
        '0',
        '"x"',
        '[]',
        '{}',
        '[[]]',
        '{"jsonrpc":"2.0"}',
        '\ufeff{}',
        'undefined',
        '{"a":1}{"b":2}',
      ),
      fc.string({ maxLength: 30 }),
    ),
  }),
  fc.constant({ kind: 'duplicate-key' as const }),
);

/** One MCP case: a base request, mutations, and maybe a text mutation. */
export interface MessageCase {
  base: number;
  mutations: Mutation[];
  text: TextMutation | undefined;
}

export const messageCase: fc.Arbitrary<MessageCase> = fc.record({
  base: fc.nat({ max: BASES.length - 1 }),
  mutations: fc.array(mutation, { maxLength: 3 }),
  // One case in seven is also broken as text (the rest stay JSON, to reach the handlers).
  text: fc.oneof({ weight: 6, arbitrary: fc.constant(undefined) }, { weight: 1, arbitrary: textMutation }),
});

/** What the case's text is, and which requests in it carry an id the gateway must answer. */
export interface BuiltMessage {
  text: string;
  /** The method of the (first) message, when it has a string one: the modern wire mirrors it in `Mcp-Method`. */
  method: string | undefined;
  /** The value `Mcp-Name` mirrors (`params.name`, `params.uri`), when a string. */
  name: string | undefined;
}

/** Builds the text of `c` for `era` (modern requests carry the 2026-07-28 envelope). */
export function buildMessage(c: MessageCase, era: 'legacy' | 'modern'): BuiltMessage {
  const base = BASES[c.base]!;
  let message: JsonObject = { jsonrpc: '2.0' };
  if (!base.notification) message.id = 1;
  message.method = base.method;
  const params: JsonObject = base.params ? structuredClone(base.params) : {};
  if (era === 'modern') params._meta = { ...MODERN_META };
  if (base.params || era === 'modern') message.params = params;
  const raws = new Map<string, string>();
  let batch: number | undefined;
  for (const m of c.mutations) {
    if (m.kind === 'batch') batch = m.size;
    else message = apply(message, m, raws);
  }
  let text = serialize(message, raws);
  if (batch !== undefined) text = `[${Array.from({ length: batch }, () => text).join(',')}]`;
  if (c.text) text = mutateText(text, c.text);
  const params2 =
    typeof message.params === 'object' && message.params !== null ? (message.params as JsonObject) : {};
  const name =
    typeof params2.name === 'string'
      ? params2.name
      : typeof params2.uri === 'string'
        ? params2.uri
        : undefined;
  return { text, method: typeof message.method === 'string' ? message.method : undefined, name };
}

/** A raw value stands in the tree as a unique marker string until the text is written. */
function marker(raws: Map<string, string>, value: Value): Json {
  if (!isRaw(value)) return value;
  const key = `\u0001raw${raws.size}\u0001`;
  raws.set(key, value.raw);
  return key;
}

function apply(
  message: JsonObject,
  m: Exclude<Mutation, { kind: 'batch' }>,
  raws: Map<string, string>,
): JsonObject {
  switch (m.kind) {
    case 'drop':
      return edit(message, m.place.split('.'), undefined);
    case 'set':
      return edit(message, pathOf(m.place), marker(raws, m.value));
    case 'method':
      return edit(message, ['method'], m.method);
    case 'id':
      return edit(message, ['id'], m.id);
    case 'key': {
      const path =
        m.where === 'top'
          ? []
          : m.where === 'params'
            ? ['params']
            : m.where === 'arguments'
              ? ['params', 'arguments']
              : ['params', '_meta'];
      return edit(message, [...path, m.key], marker(raws, m.value));
    }
  }
}

/** `params._meta.io.modelcontextprotocol/protocolVersion` is one key after `_meta`. */
function pathOf(place: string): string[] {
  const meta = 'params._meta.';
  if (place.startsWith(meta)) return ['params', '_meta', place.slice(meta.length)];
  return place.split('.');
}

/**
 * A copy of `node` with the value at `path` set (undefined: removed), creating objects on the way; keys
 * are defined as own properties, so `__proto__` stays a key.
 */
function edit(node: JsonObject, path: string[], value: Json | undefined): JsonObject {
  const [key, ...rest] = path;
  if (key === undefined) return node;
  const copy: JsonObject = {};
  for (const [k, v] of Object.entries(node)) define(copy, k, v);
  if (rest.length === 0) {
    if (value === undefined) delete copy[key];
    else define(copy, key, value);
    return copy;
  }
  const child = Object.hasOwn(copy, key) ? copy[key] : undefined;
  const next = typeof child === 'object' && child !== null && !Array.isArray(child) ? child : {};
  define(copy, key, edit(next, rest, value));
  return copy;
}

function define(target: JsonObject, key: string, value: Json): void {
  Object.defineProperty(target, key, { value, enumerable: true, writable: true, configurable: true });
}

function serialize(message: JsonObject, raws: Map<string, string>): string {
  let text = JSON.stringify(message);
  for (const [key, raw] of raws) text = text.split(JSON.stringify(key)).join(raw);
  return text;
}

function mutateText(text: string, m: TextMutation): string {
  switch (m.kind) {
    case 'truncate':
      return text.slice(0, m.at % (text.length + 1));
    case 'insert': {
      const at = m.at % (text.length + 1);
      return `${text.slice(0, at)}${m.text}${text.slice(at)}`;
    }
    case 'replace':
      return m.text;
    case 'duplicate-key':
      return text.startsWith('{') ? `{"id":"dup","method":"ping",${text.slice(1)}` : text;
  }
}

/**
 * The requests in `text` a gateway must answer: those with a string or number id and a string method.
 * `parses` is false for text that is no JSON or nests deeper than the default `limits.maxJsonDepth`: it is
 * refused whole (id null) before anyone reads an id in it.
 */
export function expectedIds(text: string): { ids: (string | number)[]; parses: boolean } {
  if (jsonTextTooDeep(text, DEFAULT_MAX_JSON_DEPTH)) return { ids: [], parses: false };
  let parsed: unknown;
  try {
    parsed = JSON.parse(text);
  } catch {
    return { ids: [], parses: false };
  }
  const messages = Array.isArray(parsed) ? parsed : [parsed];
  const ids: (string | number)[] = [];
  for (const m of messages) {
    if (typeof m !== 'object' || m === null || Array.isArray(m)) continue;
    const { id, method } = m as { id?: unknown; method?: unknown };
    if (typeof method === 'string' && (typeof id === 'string' || typeof id === 'number')) ids.push(id);
  }
  return { ids, parses: true };
}

/** HTTP around a message: the HTTP method, the path, and each header as sent, altered or left out. */
export interface HttpVariant {
  method: string;
  path: string;
  contentType: string | null;
  accept: string | null;
  version: 'right' | 'none' | string;
  session: 'valid' | 'none' | 'bogus' | 'foreign' | 'deleted' | 'proto' | 'long';
  authorization: string | null;
  /** Modern: `Mcp-Method` / `Mcp-Name` as the body says them, left out, or other. */
  mirror: 'right' | 'none' | 'wrong';
}

export const httpVariant: fc.Arbitrary<HttpVariant> = fc.record({
  method: fc.oneof(
    { weight: 12, arbitrary: fc.constant('POST') },
    fc.constantFrom('GET', 'DELETE', 'PUT', 'OPTIONS', 'PATCH', 'HEAD'),
  ),
  path: fc.oneof(
    { weight: 12, arbitrary: fc.constant('/mcp') },
    fc.constantFrom(
      '/mcp/',
      '/MCP',
      '/mcp?x=%zz',
      '/mcp/%zz',
      '//[',
      '/',
      '/mcp/../mcp',
      '/mcp#x',
      `/${'a'.repeat(9000)}`,
    ),
  ),
  contentType: fc.oneof(
    { weight: 8, arbitrary: fc.constant('application/json') },
    fc.constantFrom(null, 'text/plain', 'application/json; charset=latin1', 'multipart/form-data', '\u00ff'),
  ),
  accept: fc.oneof(
    { weight: 8, arbitrary: fc.constant('application/json, text/event-stream') },
    fc.constantFrom(null, 'text/html', '*/*', 'text/event-stream', 'application/json'),
  ),
  version: fc.oneof(
    { weight: 8, arbitrary: fc.constant('right') },
    fc.constantFrom('none', '2025-06-18', '2026-07-28', '1999-01-01', '__proto__', 'x'.repeat(300)),
  ),
  session: fc.oneof(
    { weight: 8, arbitrary: fc.constant('valid' as const) },
    fc.constantFrom(
      'none' as const,
      'bogus' as const,
      'foreign' as const,
      'deleted' as const,
      'proto' as const,
      'long' as const,
    ),
  ),
  authorization: fc.oneof(
    { weight: 10, arbitrary: fc.constant(null) },
    fc.constantFrom(
      'Bearer fuzz-admin',
      'Bearer fuzz-user',
      'Bearer nope',
      'Basic Zm9vOmJhcg==',
      'Bearer',
      '__proto__',
    ),
  ),
  mirror: fc.oneof(
    { weight: 8, arbitrary: fc.constant('right' as const) },
    fc.constantFrom('none' as const, 'wrong' as const),
  ),
});

/** An admin listener request: method, path, token and body. */
export interface AdminCase {
  method: string;
  path: string;
  token: string | null;
  body: string | null;
}

export const adminCase: fc.Arbitrary<AdminCase> = fc.record({
  method: fc.constantFrom('GET', 'POST', 'DELETE', 'PUT', 'HEAD', 'OPTIONS'),
  path: fc.oneof(
    fc.constantFrom(
      '/admin/status',
      '/admin/approvals',
      '/admin/pins/approve',
      '/healthz',
      '/readyz',
      '/',
      '/admin/credentials',
      '/admin/',
      '/admin',
      '/admin/approvals/%zz',
      '/admin/approvals/%E0%A4%A',
      '//[',
      '/admin/../admin/status',
      `/admin/${'a'.repeat(9000)}`,
    ),
    fc
      .oneof(fc.constantFrom(...PROTO_NAMES), fc.string({ maxLength: 20 }), fc.uuid())
      .map((id) => `/admin/approvals/${encodeURIComponent(id)}`),
    fc.constantFrom(...PROTO_NAMES).map((p) => `/admin/${p}`),
  ),
  token: fc.constantFrom(null, 'fuzz-admin', 'fuzz-user', 'nope', '', '__proto__'),
  body: fc.oneof(
    fc.constant(null),
    fc.constantFrom(
      '{"decision":"approve"}',
      '{"decision":"deny"}',
      '{"decision":"__proto__"}',
      '{"name":"docs__echo"}',
      '{"name":"__proto__"}',
      '{"__proto__":{"decision":"approve"}}',
      '{"constructor":{"name":"x"}}',
      '[]',
      'null',
      '{',
      '"x"',
      `{"name":${'['.repeat(50_000)}${']'.repeat(50_000)}}`,
      `{"name":"${'x'.repeat(70_000)}"}`,
    ),
    fc.string({ maxLength: 30 }),
  ),
});
