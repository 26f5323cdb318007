import type { RequestContext, RequestTarget } from '../context.js';

/** Answers one method: a plain result, or a thrown GatewayError. */
export type MethodHandler = (ctx: RequestContext) => Promise<Record<string, unknown>>;

/**
 * One feature area of the gateway (resources, tools, prompts, completion): the methods it answers, and
 * where a request to one of them is routed (`ctx.target`, resolved once as the request enters, before the
 * plugins run; the handlers route by it).
 */
export interface Feature {
  readonly handlers: Readonly<Record<string, MethodHandler>>;
  /** Where the request goes, from what the gateway already knows (no call to anyone). */
  target?(ctx: RequestContext): RequestTarget | undefined;
  /**
   * Where the request goes when `target` does not know yet: a name the upstreams added unannounced is
   * looked for once (their listings refreshed, throttled per upstream). Undefined: it exists nowhere.
   */
  locate?(ctx: RequestContext): Promise<RequestTarget | undefined>;
}
