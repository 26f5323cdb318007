import { GatewayError } from './errors.js';
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
  return function run(ctx: C): Promise<Outcome> {
    let index = -1;
    const dispatch = async (i: number): Promise<Outcome> => {
      if (i <= index) throw new Error('next() called more than once in one middleware');
      index = i;
      const layer = middleware[i];
      let outcome: Outcome;
      try {
        outcome = layer === undefined ? await terminal(ctx) : await layer(ctx, () => dispatch(i + 1));
      } catch (error) {
        // A layer that needs the client's input first answers with an input-required result.
        outcome =
          error instanceof InputRequired
            ? { ok: true, result: error.result }
            : { ok: false, error: GatewayError.fromUnknown(error) };
      }
      if (outcome.ok || errorForm === undefined) return outcome;
      const error = errorForm(outcome.error, ctx);
      return error === outcome.error ? outcome : { ok: false, error };
    };
    return dispatch(0);
  };
}
