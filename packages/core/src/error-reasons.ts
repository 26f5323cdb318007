import { CORE_ERROR_REASONS, ErrorCode, GatewayError, type GatewayErrorData } from './errors.js';
import { PluginError } from './plugins/error.js';

/** What a plugin (or the gateway app) declares about one of its own `data.reason` strings. */
export interface ErrorReasonSpec {
  /**
   * The JSON-RPC code its errors carry: one of -32010..-32015 and -32017..-32019 (the part of the
   * gateway's range core has not taken; several reasons may share one, clients act on the reason),
   * -32000 (a refusal before any upstream is involved), or a JSON-RPC standard code (-32700, -32600..-32603).
   */
  code: number;
  /** What happened and what to do, in one line (docs, the error-table test). */
  summary: string;
  /** The HTTP status a listener answers when it refuses with this reason outside a session's exchange. */
  httpStatus?: number;
  /** Counted as a refusal (a policy said no) on the status page, rather than as a failure. */
  refusal?: boolean;
}

/** One registered reason: its spec, its name and who registered it, and a factory for its errors. */
export interface ErrorReason<R extends string = string> extends Readonly<ErrorReasonSpec> {
  readonly reason: R;
  /** The package (or app) that registered it, e.g. `@switchyard/plugin-secrets`. */
  readonly owner: string;
  /** A `GatewayError` with this reason's code and `data.reason`, and `data` beside it. */
  error(message: string, data?: Omit<GatewayErrorData, 'reason'>, options?: ErrorOptions): GatewayError;
}

/** What `defineErrorReasons` returns: each reason's registered entry, by name, its spec's literal types kept. */
export type ErrorReasons<T extends Record<string, ErrorReasonSpec>> = {
  readonly [R in keyof T & string]: ErrorReason<R> & Readonly<T[R]>;
};

/** The spec's range (-32020..-32099: MCP assigns these, -32020..-32022 and -32042 so far). */
const SPEC_RESERVED = { from: -32099, to: -32020 } as const;
/** JSON-RPC's own codes, whose meaning any owner may use with its own reason (e.g. -32602 bad params). */
const JSON_RPC_CODES: ReadonlySet<number> = new Set([-32700, -32600, -32601, -32602, -32603]);
/**
 * Codes of -32000..-32019 core has taken: its own failures (-32003..-32009, -32016), the legacy era's
 * resource-not-found (-32002) and the SDKs' session-not-found (-32001). -32000 is not among them: it is
 * the gateway's "refused before any upstream is involved", shared by every owner of a refusal.
 */
const CORE_CODES: ReadonlySet<number> = new Set(
  [-32001, ...Object.values(ErrorCode)].filter(
    (code) => code > -32020 && code <= -32000 && code !== ErrorCode.GatewayRefused,
  ),
);
const CORE_REASONS: ReadonlySet<string> = new Set(CORE_ERROR_REASONS);
const REASON_PATTERN = /^[a-z][a-z0-9_]*$/;

// One registry per process, even with two copies of core loaded (a plugin's own node_modules): keyed by
// a global symbol, as a registration made through either copy must be seen by both.
const REGISTRY_KEY = Symbol.for('switchyard.errorReasons');
const shared = globalThis as { [REGISTRY_KEY]?: Map<string, ErrorReason> };
shared[REGISTRY_KEY] ??= new Map();
const registry = shared[REGISTRY_KEY];

/**
 * Registers a plugin's (or an app's) own error reasons, so core need not know them: the error table,
 * the status page and listeners read them from the registry. Call it once, at the top of a module, so a
 * conflict stops the plugin's load: a reason core declares, a reason registered with another code, a
 * code in the specification's range (-32020..-32099) or one core has taken throw a `PluginError`
 * (`PLUGIN_INVALID_ERROR_REASON`). Registering the same reason with the same code again is allowed.
 * Augment `GatewayErrorReasons` to type the reasons in TypeScript.
 *
 * @example
 * export const QuotaReasons = defineErrorReasons('@acme/switchyard-quota', {
 *   quota_exceeded: { code: -32017, summary: 'the client read its quota for today: retry tomorrow' },
 * });
 * declare module '@switchyard/core' {
 *   interface GatewayErrorReasons extends ReasonsOf<typeof QuotaReasons> {}
 * }
 * // in the middleware:
 * return { ok: false, error: QuotaReasons.quota_exceeded.error('Quota exceeded: …', { quota: 'reads' }) };
 */
export function defineErrorReasons<const T extends Record<string, ErrorReasonSpec>>(
  owner: string,
  reasons: T,
): ErrorReasons<T> {
  // All or nothing: a table with one bad reason registers none of them.
  for (const [reason, spec] of Object.entries(reasons)) refuseConflict(owner, reason, spec);
  const made: Record<string, ErrorReason> = {};
  for (const [reason, spec] of Object.entries(reasons)) {
    const known = registry.get(reason);
    const entry = known ?? makeReason(owner, reason, spec);
    if (!known) registry.set(reason, entry);
    made[reason] = entry;
  }
  return Object.freeze(made) as ErrorReasons<T>;
}

/** The reasons a `defineErrorReasons` table declares, for `interface GatewayErrorReasons extends …`. */
export type ReasonsOf<T> = { [R in keyof T & string]: true };

/** What has been registered for `reason` (undefined for core's own reasons and unknown strings). */
export function registeredErrorReason(reason: string): ErrorReason | undefined {
  return registry.get(reason);
}

/** Every registered reason, in registration order. */
export function registeredErrorReasons(): ErrorReason[] {
  return [...registry.values()];
}

function makeReason(owner: string, reason: string, spec: ErrorReasonSpec): ErrorReason {
  const { code } = spec;
  return Object.freeze({
    ...spec,
    reason,
    owner,
    error: (message: string, data?: Omit<GatewayErrorData, 'reason'>, options?: ErrorOptions) =>
      // The reason is registered, not one of core's: typed through GatewayErrorReasons by its owner.
      new GatewayError(code, message, { ...data, reason } as GatewayErrorData, options),
  });
}

function refuseConflict(owner: string, reason: string, spec: ErrorReasonSpec): void {
  const fail = (why: string): never => {
    throw new PluginError(
      'PLUGIN_INVALID_ERROR_REASON',
      owner,
      `${owner} cannot register error reason "${reason}": ${why}`,
    );
  };
  if (!REASON_PATTERN.test(reason))
    fail('a reason is snake_case ASCII (a-z, 0-9, _), starting with a letter');
  if (CORE_REASONS.has(reason))
    fail('core declares it already; raise it with the GatewayError factory (or code) core gives it');
  const { code } = spec;
  if (!Number.isInteger(code)) fail(`its code ${String(code)} is not an integer`);
  if (code >= SPEC_RESERVED.from && code <= SPEC_RESERVED.to)
    fail(
      `its code ${code} is in -32020..-32099, which the MCP specification reserves; use one of -32010..-32015 or -32017..-32019`,
    );
  if (CORE_CODES.has(code))
    fail(
      `its code ${code} is one core has taken (-32001..-32009, -32016); use one of -32010..-32015 or -32017..-32019`,
    );
  if (code < -32019 && !JSON_RPC_CODES.has(code))
    fail(
      `its code ${code} is outside the gateway's range: use one of -32000..-32019 (not one core has taken) or a JSON-RPC standard code`,
    );
  if (code > -32000) fail(`its code ${code} is outside the gateway's range -32000..-32019`);
  const known = registry.get(reason);
  if (known && known.code !== code)
    fail(`${known.owner} registered it with code ${known.code}; one reason has one code`);
}
