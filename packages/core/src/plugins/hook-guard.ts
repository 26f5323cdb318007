import { ErrorCode, GatewayError } from '../errors.js';
import { InputRequired } from '../interaction/input-required.js';
import { type Middleware, type Outcome, settledError } from '../middleware.js';
import type { RateLimitedLog } from '../rate-limited-log.js';
import { errorText } from '../upstream/errors.js';

/** The hooks of a plugin that answer with an outcome. */
export type OutcomeHook = 'request' | 'upstreamCall';

/** The specification's codes (-32020..-32099: -32020..-32022 and -32042 so far): never a plugin's (DESIGN §9). */
const SPEC_RESERVED = { from: -32099, to: -32020 } as const;

/**
 * A plugin's `request` or `upstreamCall` hook as a layer of the onion, held to the outcome contract where
 * the plugin's answer becomes a value (`compose` does the rest: `next()` once, the era's error form).
 * What the plugin passes on from `next()` (or `repeat()`) is not looked at. What it made itself is: no outcome,
 * `{ ok: false }` without an error, an error that is no `GatewayError`, a code that is no safe integer or
 * one the MCP specification assigns (a client would act on its meaning), an error JSON cannot write, and
 * anything it throws (but a `GatewayError`, taken as its answer, and `InputRequired`) fail the request with
 * -32603 `internal` naming the plugin and its hook. The plugin's own text (an exception's message may
 * hold a connection string or a token) goes to the log, once per plugin, hook and kind of mistake in a while, not to the
 * caller.
 */
export function guardedHook<C>(
  plugin: string,
  hook: OutcomeHook,
  layer: Middleware<C>,
  noise: RateLimitedLog,
): Middleware<C> {
  const guarded: Middleware<C> = async (ctx, next) => {
    let inner: Outcome | undefined;
    const passed = () =>
      next().then((outcome) => {
        inner = outcome;
        return outcome;
      });
    let answer: unknown;
    try {
      answer = await layer(ctx, passed);
    } catch (error) {
      if (error instanceof InputRequired) throw error;
      const gatewayError = asGatewayError(error);
      if (gatewayError) return checkedError(gatewayError, { plugin, hook, noise });
      return mistake({ plugin, hook, noise }, 'failed', `threw ${describeThrown(error)}`, errorText(error));
    }
    if (answer === inner) return inner as Outcome;
    return checkedOutcome(answer, { plugin, hook, noise });
  };
  Object.defineProperty(guarded, 'name', { value: `plugin:${plugin}` });
  return guarded;
}

interface Guard {
  plugin: string;
  hook: OutcomeHook;
  noise: RateLimitedLog;
}

function checkedOutcome(answer: unknown, guard: Guard): Outcome {
  const outcome = answer as { ok?: unknown; result?: unknown; error?: unknown } | null | undefined;
  if (outcome?.ok === true) {
    const { result } = outcome;
    if (typeof result === 'object' && result !== null && !Array.isArray(result)) return answer as Outcome;
    const what = result === undefined ? 'no result' : `a result that is no object (${describe(result)})`;
    return noOutcome(guard, `{ ok: true } with ${what}`);
  }
  if (outcome?.ok === false) {
    const { error } = outcome;
    if (error === undefined) return noOutcome(guard, '{ ok: false } without an error');
    const gatewayError = asGatewayError(error);
    if (gatewayError) return checkedError(gatewayError, guard);
    return mistake(
      guard,
      'answered an error that is no GatewayError',
      `answered an error that is no GatewayError (${describeThrown(error)}); return { ok: false, error: GatewayError }`,
      errorText(error),
    );
  }
  return noOutcome(
    guard,
    answer === null || typeof answer !== 'object' ? String(answer) : 'an object without ok',
  );
}

/**
 * A `GatewayError` the plugin answered: one it got from `next()` or `repeat()` passes as it is (an
 * upstream's code is the upstream's); one it made must carry a code and data a client can read.
 */
function checkedError(error: GatewayError, guard: Guard): Outcome {
  if (settledError(error)) return { ok: false, error };
  const { code } = error;
  if (!Number.isSafeInteger(code) || (code >= SPEC_RESERVED.from && code <= SPEC_RESERVED.to)) {
    return mistake(
      guard,
      'answered an error with a code it may not use',
      `answered an error with code ${String(code)}, which ${
        Number.isSafeInteger(code) ? 'the MCP specification assigns (-32020..-32099)' : 'is no integer'
      }; register the plugin's own code and reason with defineErrorReasons`,
      `${String(code)} ${error.message}`,
    );
  }
  if (error.data !== undefined) {
    try {
      JSON.stringify(error.data);
    } catch (unwritable) {
      return mistake(
        guard,
        'answered an error JSON cannot write',
        `answered an error whose data JSON cannot write (${errorText(unwritable)})`,
        error.message,
      );
    }
  }
  return { ok: false, error };
}

function noOutcome(guard: Guard, what: string): Outcome {
  return mistake(
    guard,
    'answered no outcome',
    `answered ${what}; ${guard.hook === 'request' ? 'a' : 'an'} ${guard.hook} hook must return next()'s outcome, { ok: true, result: {…} } or { ok: false, error: GatewayError }`,
    what,
  );
}

/**
 * A plugin's mistake, as the request's outcome: logged (WARN, once per plugin, hook and kind of mistake
 * in a while), and answered -32603 `internal` with a message naming the plugin that says what it did,
 * but not what the plugin's own error said.
 */
function mistake(guard: Guard, kind: string, said: string, detail: string): Outcome {
  const { plugin, hook, noise } = guard;
  noise.warn(`${plugin}\u0000${hook}\u0000${kind}`, `plugin ${hook} hook ${kind}`, {
    plugin,
    hook,
    error: detail,
  });
  return {
    ok: false,
    error: new GatewayError(
      ErrorCode.InternalError,
      `Internal gateway error: plugin ${plugin}'s ${hook} hook ${said}. A bug in the plugin: report it to its maintainers with the gateway's log line (plugin=${plugin}).`,
      { reason: 'internal', plugin },
    ),
  };
}

/**
 * A `GatewayError`, also one made by another copy of core (a plugin's own node_modules: not an instance
 * of this one's class, but its name and a code), or undefined for anything else.
 */
function asGatewayError(error: unknown): GatewayError | undefined {
  if (error instanceof GatewayError) return error;
  if (!(error instanceof Error) || error.name !== 'GatewayError') return undefined;
  const { code } = error as Error & { code?: unknown };
  if (typeof code !== 'number') return undefined;
  return new GatewayError(code, error.message, gatewayData(error), { cause: error });
}

function gatewayData(error: Error): GatewayError['data'] {
  const { data } = error as { data?: unknown };
  return typeof data === 'object' && data !== null && !Array.isArray(data)
    ? (data as GatewayError['data'])
    : undefined;
}

/** What was thrown, for the caller: its kind, never its text. */
function describeThrown(error: unknown): string {
  if (error instanceof Error) return `an error (${error.name})`;
  return `a value that is no Error (${describe(error)})`;
}

function describe(value: unknown): string {
  if (value === null) return 'null';
  if (Array.isArray(value)) return 'an array';
  return typeof value;
}
