import { GatewayError } from './errors.js';

/** The outcome of a request travels as a value, so every outer middleware sees successes and failures alike. */
export type Outcome<T = Record<string, unknown>> =
  | { ok: true; result: T }
  | { ok: false; error: GatewayError };

export type Next = () => Promise<Outcome>;
export type Middleware<C> = (ctx: C, next: Next) => Promise<Outcome>;

/**
 * Composes middleware into an onion around `terminal`: the first middleware is outermost, `next()` may
 * be called at most once, and anything thrown becomes an error outcome the outer layers can read.
 */
export function compose<C>(middleware: readonly Middleware<C>[], terminal: (ctx: C) => Promise<Outcome>) {
  return function run(ctx: C): Promise<Outcome> {
    let index = -1;
    const dispatch = async (i: number): Promise<Outcome> => {
      if (i <= index) throw new Error('next() called more than once in one middleware');
      index = i;
      const layer = middleware[i];
      try {
        if (layer === undefined) return await terminal(ctx);
        return await layer(ctx, () => dispatch(i + 1));
      } catch (error) {
        return { ok: false, error: GatewayError.fromUnknown(error) };
      }
    };
    return dispatch(0);
  };
}
