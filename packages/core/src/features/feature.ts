import type { RequestContext, RequestTarget } from '../context.js';

/** Answers one method: a plain result, or a thrown GatewayError. */
export type MethodHandler = (ctx: RequestContext) => Promise<Record<string, unknown>>;

/**
 * One feature area of the gateway (resources, tools, prompts, completion): the methods it answers, and
 * where a request to one of them is routed, worked out without calling anyone (for plugins to see).
 */
export interface Feature {
  readonly handlers: Readonly<Record<string, MethodHandler>>;
  target?(ctx: RequestContext): RequestTarget | undefined;
}
