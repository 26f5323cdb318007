import { ErrorCode, GatewayError } from './errors.js';
import { InputRequired } from './interaction/input-required.js';

/** The outcome of a request travels as a value, so every outer middleware sees successes and failures alike. */
export type Outcome<T = Record<string, unknown>> =
  | { ok: true; result: T }
  | { ok: false; error: GatewayError };

export type Next = () => Promise<Outcome>;
export type Middleware<C> = (ctx: C, next: Next) => Promise<Outcome>;

/** Gives an error outcome its final form for one request (e.g. the code of the client's wire era). */
export type ErrorForm<C> = (error: GatewayError, ctx: C) => GatewayError;

/**
 * Composes middleware into an onion around `terminal`: the first middleware is outermost, `next()` may
 * be called at most once, and anything thrown becomes an error outcome the outer layers can read (but
 * `InputRequired`, which becomes the input-required result it carries). Every
 * error outcome, thrown or returned, passes through `errorForm` before the next layer out sees it, so
 * what the outer layers see is what the client gets.
 */
export function compose<C>(
  middleware: readonly Middleware<C>[],
  terminal: (ctx: C) => Promise<Outcome>,
  errorForm?: ErrorForm<C>,
) {
  /** One step's outcome: a throw taken as its outcome, an error given its form. */
  const settle = async (step: () => Promise<Outcome>, ctx: C): Promise<Outcome> => {
    let outcome: Outcome;
    try {
      outcome = asOutcome(await step());
    } catch (error) {
      // A layer that needs the client's input first answers with an input-required result.
      outcome =
        error instanceof InputRequired
          ? { ok: true, result: error.result }
          : { ok: false, error: GatewayError.fromUnknown(error) };
    }
    if (outcome.ok) return outcome;
    const error = errorForm === undefined ? outcome.error : errorForm(outcome.error, ctx);
    settledErrors.add(error);
    return error === outcome.error ? outcome : { ok: false, error };
  };
  // No layers: the terminal alone, without the onion.
  if (middleware.length === 0) return (ctx: C) => settle(() => terminal(ctx), ctx);
  return function run(ctx: C): Promise<Outcome> {
    let index = -1;
    const dispatch = (i: number): Promise<Outcome> => {
      if (i <= index) return Promise.reject(new Error('next() called more than once in one middleware'));
      index = i;
      const layer = middleware[i];
      return settle(() => (layer === undefined ? terminal(ctx) : layer(ctx, () => dispatch(i + 1))), ctx);
    };
    return dispatch(0);
  };
}

/** Every error a step settled on: what a layer gets from `next()` (or a `repeat`), already in its final form. */
const settledErrors = new WeakSet<GatewayError>();

/** True for an error a layer got from the layers inside it (not one it made itself). */
export function settledError(error: GatewayError): boolean {
  return settledErrors.has(error);
}

/**
 * What a layer answered, as an outcome: a mistake (no outcome, `ok: true` without an object result,
 * `ok: false` without an error, an error that is no `GatewayError`; a plugin's hook is held to the same
 * contract, naming the plugin, by `guardedHook`) fails its request with a clear error instead of reaching
 * the wire as it is (a result the era mapping cannot read took the gateway down; an error without a
 * code is no JSON-RPC error).
 */
function asOutcome(value: unknown): Outcome {
  const outcome = value as { ok?: unknown; result?: unknown; error?: unknown } | null | undefined;
  if (outcome?.ok === true) {
    const { result } = outcome;
    if (typeof result === 'object' && result !== null && !Array.isArray(result)) return value as Outcome;
    return noOutcome(
      `{ ok: true } with ${result === undefined ? 'no result' : `a result that is no object (${typeof result})`}`,
    );
  }
  if (outcome?.ok === false) {
    if (outcome.error === undefined) return noOutcome('{ ok: false } without an error');
    return outcome.error instanceof GatewayError
      ? (value as Outcome)
      : { ok: false, error: GatewayError.fromUnknown(outcome.error) };
  }
  return noOutcome(value === null || typeof value !== 'object' ? String(value) : 'an object without ok');
}

function noOutcome(what: string): Outcome {
  return {
    ok: false,
    error: new GatewayError(
      ErrorCode.InternalError,
      `Internal gateway error: a layer answered ${what}; a layer must return next()'s outcome, { ok: true, result: {…} } or { ok: false, error }.`,
      { reason: 'internal' },
    ),
  };
}
