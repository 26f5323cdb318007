import { BAD_TOOL_NAMES, type MisbehaveMode, parseMisbehaveModes } from './misbehave/modes.js';

/** Configuration of a {@link TestServer}; every field is optional. */
export interface TestServerOptions {
  /** `serverInfo.name`; default `'testkit'`. */
  name?: string;
  /** Number of static resources; default 10. */
  resources?: number;
  /**
   * Prefix of every URI; default `test://${name}/`. Resource `i` has uri `${uriBase}r/${i}`
   * (i = 0..N-1), name `r${i}` and mimeType `text/plain`.
   */
  uriBase?: string;
  /**
   * Page size of `resources/list`, `resources/templates/list`, `tools/list` and `prompts/list`; default 0 =
   * everything in one page.
   * `nextCursor` is opaque; a malformed cursor answers -32602.
   */
  pageSize?: number;
  /** Every k-th resource (`i % k === k - 1`) is a base64 blob (`application/octet-stream`); default 0 = none. */
  blobEvery?: number;
  /** Pad each resource's text to at least this many bytes (benchmarks); default 0. */
  payloadBytes?: number;
  /**
   * Number of resource templates; default 1. Template `j` has uriTemplate `${uriBase}items/{id}` for j = 0
   * and `${uriBase}t${j}/{id}` otherwise, name `t${j}`. Reading a matching URI returns `item ${id}`.
   */
  templates?: number;
  /**
   * Values offered by `completion/complete` for `ref/resource` on any template argument, filtered by prefix;
   * default `['alpha', 'beta', 'gamma']`. The `completions` capability is advertised only when non-empty.
   */
  completions?: string[];
  /** Advertise (and serve) `resources/subscribe`; default true. `listChanged` is always advertised. */
  subscribe?: boolean;
  /**
   * Advertise resource subscriptions on the modern (2026-07-28) side too; default: as `subscribe`. False
   * models a server reachable in both eras whose modern side cannot follow resources while its legacy
   * session path can.
   */
  modernSubscribe?: boolean;
  /**
   * Delay before answering resource list/read/templates, complete, `tools/list`, calls of echo tools
   * (generated, named, `echo`), `prompts/list` and `prompts/get` (cancellable); default 0.
   */
  latencyMs?: number;
  /**
   * On `resources/read` carrying `_meta.progressToken`: send this many `notifications/progress` (1..n of n)
   * and one `notifications/message` (level info, logger = name, data `read ${uri}`) first. Default 0.
   */
  progress?: number;
  /** Extra fixed resources, templates and prompts: `'conformance'` = what the MCP conformance suite expects. */
  fixture?: 'none' | 'conformance';
  /**
   * Also serve the modern MCP wire era (protocol revision 2026-07-28) next to the 2025 era: over HTTP at the
   * same URL (stateless, via the SDK's `createMcpHandler`), and over stdio (the opening message picks the
   * era, via the SDK's `serveStdio`). Default false: only the 2025 era, so negotiating clients fall back.
   */
  modern?: boolean;
  /**
   * `ttlMs` stamped on `resources/list`, `resources/templates/list` and `resources/read` results of the
   * modern (2026-07-28) era; default unset = the SDK default (0). 2025-era responses never carry it.
   */
  cacheTtlMs?: number;
  /** `cacheScope` stamped like {@link cacheTtlMs}; default unset = the SDK default (`'private'`). */
  cacheScope?: 'public' | 'private';
  /**
   * Number of generated tools; default 0. Tool `i` is `tool_${i}` with title `Tool ${i}`, an `inputSchema`
   * (object with a `text` string, `additionalProperties: true`), an `outputSchema` (`tool` string and
   * `arguments` object), `annotations: { readOnlyHint: true }`, one data: URI icon and
   * `_meta: { 'testkit/index': i }`. Calling it echoes: a text item with `JSON.stringify({ tool, arguments })`
   * and the same object as `structuredContent`. `setToolCount` changes it live (and notifies).
   */
  tools?: number;
  /**
   * Extra echo tools (shaped like generated ones, without `_meta`) with exactly these names: dots, slashes,
   * spaces, unicode, names over 64 characters. Listed after the generated tools. Duplicates, names of the
   * form `tool_<n>`, and behaviour-tool names (with {@link behaviorTools}) are refused with a RangeError.
   */
  toolNames?: string[];
  /**
   * Add the fixed behaviour tools, listed last; default false:
   * - `echo` — like a generated tool;
   * - `slow` `{ ms, steps? }` — waits `ms` (stops on cancellation); with a progress token, sends `steps`
   *   (default 4) `notifications/progress` spread over `ms`, one as each of `steps` equal slices starts;
   * - `fail` — returns `isError: true`;
   * - `throw` — answers JSON-RPC -32602 naming the tool (an upstream that judges the arguments invalid);
   * - `link` — a `resource_link` to resource 0 and the same resource embedded (`type: 'resource'`);
   * - `elicit` `{ message? }` — a form-mode elicitation (one string property `answer`), returns its result as
   *   JSON text;
   * - `sample` `{ prompt? }` — a `sampling/createMessage` (one user message, `maxTokens` 50), returns the
   *   sampled text;
   * - `roots` — a `roots/list`, returns the roots as JSON text;
   * - `log` `{ message? }` — sends a request-related `notifications/message` (info, logger = name).
   *
   * `elicit`, `sample` and `roots` return an input-required result (2026-07-28 multi round-trip); on a
   * 2025-era session the SDK's legacy shim turns it into a real server-to-client request related to the call.
   */
  behaviorTools?: boolean;
  /**
   * Number of generated prompts; default 0. Prompt `i` is `prompt_${i}` (title `Prompt ${i}`) with one optional
   * argument `topic`. `prompts/get` returns a user text message naming the prompt and its arguments, plus —
   * when there are resources — a user message embedding resource 0. `setPromptCount` changes it live.
   */
  prompts?: number;
  /**
   * Misbehave like a real-world upstream (default none); everything a mode does not name stays healthy, so
   * the next request still gets a normal answer. Names are an interface for gateway tests:
   * - `no-result-type` — 2026-07-28-era results go out without `resultType` (as SDK v1 servers answer);
   * - `invalid-result` — tools `invalid_result` (answers `{"content":"not-an-array"}`, plus `resultType` on
   *   the modern era) and `non_object_result` (the response's `result` is the string `"not an object"`);
   * - `unknown-ids` — before every response, `{"jsonrpc":"2.0","id":"unknown-<n>","result":{}}`;
   * - `duplicate-ids` — every response is sent twice;
   * - `stdout-noise` (stdio only) — a banner line first, then `DEBUG: handled <method>` and `{"jsonrpc":`
   *   before every response;
   * - `malformed-notifications` — after every response, six notifications with malformed params or an
   *   unknown method;
   * - `huge-result` — tool `huge` `{ bytes? }`: one text item of `bytes` characters (default 40 MiB);
   * - `repeating-cursor` / `endless-cursor` — every list answers its first page with `nextCursor` `again`
   *   (always) / `page-1`, `page-2`, … (never repeating); the two exclude each other;
   * - `bad-tool-names` — echo tools `my.tool`, `my tool`, `my/tool`, `my_tool`, `ünïcødé` and `x` × 100;
   * - `list-changed-burst` — tool `burst` `{ count? = 2000, kind? = 'tools' }` sends that many
   *   `notifications/<kind>/list_changed` (2025 era: on the call's stream; modern: to the listen streams);
   * - `server-requests` — tool `ask` `{ method, unrelated?, params? }` sends a server-to-client request (2025
   *   era) and reports the answer, an error or `no answer within 15 s`;
   * - `hang-handshake` — nothing is ever answered (`initialize`/`server/discover` included); requests are
   *   still counted, and the control API still serves;
   * - `http-500` (HTTP only) — a POST calling tool `http_500` gets HTTP 500 with an HTML page, one calling
   *   `http_429` gets HTTP 429 with `Retry-After: 7`.
   *
   * The wire-level modes act on the stdio wire ({@link TestServer.serveStdio}) and HTTP listeners
   * ({@link TestServer.listenHttp}), not on transports a test connects {@link TestServer.createServer} to.
   */
  misbehave?: MisbehaveMode[];
}

/** Options that stay optional after resolution (unset = the SDK default; for `misbehave`, none). */
type UnsetByDefault = 'modern' | 'cacheTtlMs' | 'cacheScope' | 'misbehave';

/** Options with every default applied. */
export type ResolvedTestServerOptions = Required<Omit<TestServerOptions, UnsetByDefault>> &
  Pick<TestServerOptions, UnsetByDefault>;

export const DEFAULT_COMPLETIONS: readonly string[] = ['alpha', 'beta', 'gamma'];

/** The fixed tools `behaviorTools: true` adds, in listing order. */
export const BEHAVIOR_TOOL_NAMES = [
  'echo',
  'slow',
  'fail',
  'throw',
  'link',
  'elicit',
  'sample',
  'roots',
  'log',
] as const;

export type BehaviorToolName = (typeof BEHAVIOR_TOOL_NAMES)[number];

export function isBehaviorToolName(name: string): name is BehaviorToolName {
  return (BEHAVIOR_TOOL_NAMES as readonly string[]).includes(name);
}

/** Whether `name` has the form of a generated tool's name (`tool_<n>`), whatever the current count. */
export function isGeneratedToolName(name: string): boolean {
  return /^tool_(0|[1-9]\d*)$/.test(name);
}

function count(value: number | undefined, fallback: number, field: string): number {
  const n = value ?? fallback;
  if (!Number.isInteger(n) || n < 0)
    throw new RangeError(`${field} must be a non-negative integer, got ${n}`);
  return n;
}

/** Applies the defaults and validates the numeric fields (non-negative integers). */
export function resolveOptions(options: TestServerOptions = {}): ResolvedTestServerOptions {
  const name = options.name ?? 'testkit';
  const misbehave = parseMisbehaveModes(options.misbehave ?? []);
  return {
    name,
    resources: count(options.resources, 10, 'resources'),
    uriBase: options.uriBase ?? `test://${name}/`,
    pageSize: count(options.pageSize, 0, 'pageSize'),
    blobEvery: count(options.blobEvery, 0, 'blobEvery'),
    payloadBytes: count(options.payloadBytes, 0, 'payloadBytes'),
    templates: count(options.templates, 1, 'templates'),
    completions: [...(options.completions ?? DEFAULT_COMPLETIONS)],
    subscribe: options.subscribe ?? true,
    modernSubscribe: options.modernSubscribe ?? options.subscribe ?? true,
    latencyMs: count(options.latencyMs, 0, 'latencyMs'),
    progress: count(options.progress, 0, 'progress'),
    fixture: options.fixture ?? 'none',
    ...(options.modern === undefined ? {} : { modern: options.modern }),
    ...(options.cacheTtlMs === undefined ? {} : { cacheTtlMs: count(options.cacheTtlMs, 0, 'cacheTtlMs') }),
    ...(options.cacheScope === undefined ? {} : { cacheScope: scope(options.cacheScope) }),
    tools: count(options.tools, 0, 'tools'),
    toolNames: withBadToolNames(
      toolNames(options.toolNames ?? [], options.behaviorTools ?? false),
      misbehave,
    ),
    behaviorTools: options.behaviorTools ?? false,
    prompts: count(options.prompts, 0, 'prompts'),
    ...(misbehave.length === 0 ? {} : { misbehave }),
  };
}

/** `bad-tool-names` adds its echo tools to the named ones (a name already there stays once). */
function withBadToolNames(names: string[], misbehave: readonly MisbehaveMode[]): string[] {
  if (!misbehave.includes('bad-tool-names')) return names;
  return [...names, ...BAD_TOOL_NAMES.filter((name) => !names.includes(name))];
}

/** Validates `toolNames`: no duplicates, nothing a generated or behaviour tool could also be called. */
function toolNames(names: readonly string[], behaviorTools: boolean): string[] {
  const seen = new Set<string>();
  for (const name of names) {
    if (typeof name !== 'string') throw new RangeError(`toolNames must be strings, got ${String(name)}`);
    if (seen.has(name)) throw new RangeError(`toolNames has '${name}' twice`);
    if (isGeneratedToolName(name)) throw new RangeError(`toolNames: '${name}' is a generated tool's name`);
    if (behaviorTools && isBehaviorToolName(name))
      throw new RangeError(`toolNames: '${name}' is a behaviour tool's name`);
    seen.add(name);
  }
  return [...names];
}

function scope(value: string): 'public' | 'private' {
  if (value !== 'public' && value !== 'private')
    throw new RangeError(`cacheScope must be 'public' or 'private', got ${value}`);
  return value;
}
