import type { RequestContext, RequestTarget } from '../context.js';
import { ErrorCode, GatewayError } from '../errors.js';
import type { Outcome } from '../middleware.js';
import { addressesOneItem, hiddenBy, NOT_EXPOSED_KEY, notExposed } from '../views/not-exposed.js';
import type { Feature, MethodHandler } from './feature.js';
import { callsSearchTools } from './tool-search/search-mode.js';

/**
 * The terminal step of the request chain: sends each method to the feature that answers it. Errors
 * leave as values, so every plugin sees every outcome.
 */
export class Dispatcher {
  readonly #handlers = new Map<string, MethodHandler>();
  readonly #features = new Map<string, Feature>();

  constructor(features: readonly Feature[]) {
    for (const feature of features) {
      for (const [method, handler] of Object.entries(feature.handlers)) {
        this.#handlers.set(method, handler);
        this.#features.set(method, feature);
      }
    }
  }

  get methods(): string[] {
    return [...this.#handlers.keys()];
  }

  /** Whether some feature answers `method`. */
  answers(method: string): boolean {
    return this.#handlers.has(method);
  }

  /** Where a request will be routed (for plugins); undefined for lists and unroutable requests. */
  target(ctx: RequestContext): RequestTarget | undefined {
    return this.#features.get(ctx.method)?.target?.(ctx);
  }

  /** Whether a request `target` did not place may still be placed by looking (see `Feature.locate`). */
  locates(ctx: RequestContext): boolean {
    return this.#features.get(ctx.method)?.locate !== undefined;
  }

  /** Where a request `target` did not place goes, after looking; undefined: nowhere. */
  async locate(ctx: RequestContext): Promise<RequestTarget | undefined> {
    try {
      return await this.#features.get(ctx.method)?.locate?.(ctx);
    } catch {
      return undefined;
    }
  }

  async dispatch(ctx: RequestContext): Promise<Outcome> {
    const handler = this.#handlers.get(ctx.method);
    if (!handler) {
      return {
        ok: false,
        error: new GatewayError(
          ErrorCode.MethodNotFound,
          `Method not found: ${ctx.method}. Switchyard answers ping and ${this.methods.join(', ')}.`,
        ),
      };
    }
    // A request for an item its caller may not see there is refused as if the item did not exist.
    if (ctx.state.get(NOT_EXPOSED_KEY) === true) return { ok: false, error: notExposed(ctx) };
    if (ctx.view && !ctx.view.whole && addressesOneItem(ctx.method) && !callsSearchTools(ctx)) {
      const target = ctx.target ?? this.target(ctx);
      if (!target || hiddenBy(ctx.view, target)) return { ok: false, error: notExposed(ctx) };
    }
    try {
      return { ok: true, result: await handler(ctx) };
    } catch (error) {
      return { ok: false, error: GatewayError.fromUnknown(error) };
    }
  }
}
