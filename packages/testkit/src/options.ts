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
   * Page size of `resources/list` and `resources/templates/list`; default 0 = everything in one page.
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
  /** Delay before answering list/read/templates/complete (cancellable); default 0. */
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
}

/** Options that stay optional after resolution (unset = SDK default). */
type UnsetByDefault = 'modern' | 'cacheTtlMs' | 'cacheScope';

/** Options with every default applied. */
export type ResolvedTestServerOptions = Required<Omit<TestServerOptions, UnsetByDefault>> &
  Pick<TestServerOptions, UnsetByDefault>;

export const DEFAULT_COMPLETIONS: readonly string[] = ['alpha', 'beta', 'gamma'];

function count(value: number | undefined, fallback: number, field: string): number {
  const n = value ?? fallback;
  if (!Number.isInteger(n) || n < 0)
    throw new RangeError(`${field} must be a non-negative integer, got ${n}`);
  return n;
}

/** Applies the defaults and validates the numeric fields (non-negative integers). */
export function resolveOptions(options: TestServerOptions = {}): ResolvedTestServerOptions {
  const name = options.name ?? 'testkit';
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
    latencyMs: count(options.latencyMs, 0, 'latencyMs'),
    progress: count(options.progress, 0, 'progress'),
    fixture: options.fixture ?? 'none',
    ...(options.modern === undefined ? {} : { modern: options.modern }),
    ...(options.cacheTtlMs === undefined ? {} : { cacheTtlMs: count(options.cacheTtlMs, 0, 'cacheTtlMs') }),
    ...(options.cacheScope === undefined ? {} : { cacheScope: scope(options.cacheScope) }),
  };
}

function scope(value: string): 'public' | 'private' {
  if (value !== 'public' && value !== 'private')
    throw new RangeError(`cacheScope must be 'public' or 'private', got ${value}`);
  return value;
}
