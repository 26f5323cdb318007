import type { RequestContext, RequestTarget } from '../context.js';
import type { GatewayError } from '../errors.js';
import { unknownCompletionRef } from '../features/completion.js';
import { taskNotFound } from '../features/tasks.js';
import { unknownNamed } from '../routing/named-catalog.js';
import { unownedUri } from '../routing/resource-router.js';
import type { EndpointView } from './endpoint-view.js';

/**
 * Set in `ctx.state` by the gateway when a request addresses something its caller may not see there (its
 * endpoint hides it, or tool search's `call_tool` named a tool the caller cannot use): the request goes
 * through the plugins as one for an unknown name would, and is refused where unknown names are.
 */
export const NOT_EXPOSED_KEY = 'switchyard.not-exposed';

/** The requests that address one item (everything else is a list, or addresses none). */
const TARGETED: ReadonlySet<string> = new Set([
  'tools/call',
  'prompts/get',
  'resources/read',
  'resources/subscribe',
  'resources/unsubscribe',
  'completion/complete',
  'skills/get',
  'resources/directory/read',
  'tasks/get',
  'tasks/result',
  'tasks/cancel',
  'tasks/update',
]);

/** Whether `method` addresses one item that an endpoint may or may not expose. */
export function addressesOneItem(method: string): boolean {
  return TARGETED.has(method);
}

/** Whether `target` lies outside what `view` exposes. */
export function hiddenBy(view: EndpointView | undefined, target: RequestTarget): boolean {
  if (!view || view.whole) return false;
  switch (target.kind) {
    case 'tool':
      return !view.tool(target.exposed, target.upstream);
    case 'prompt':
      return !view.prompt(target.exposed, target.upstream);
    default:
      return !view.resource(target.exposed, target.upstream, target.kind === 'template');
  }
}

/**
 * The refusal of a request for something its endpoint does not expose: exactly what a request for a name
 * or URI nobody serves gets, so a virtual server's clients cannot tell the two apart.
 */
export function notExposed(ctx: RequestContext): GatewayError {
  const { params } = ctx;
  const text = (value: unknown) => (typeof value === 'string' ? value : String(value));
  switch (ctx.method) {
    case 'tools/call':
      return unknownNamed('tools', text(params.name));
    case 'prompts/get':
      return unknownNamed('prompts', text(params.name));
    case 'completion/complete':
      return unknownCompletionRef(params.ref);
    case 'tasks/get':
    case 'tasks/result':
    case 'tasks/cancel':
    case 'tasks/update':
      return taskNotFound(text(params.taskId));
    default:
      return unownedUri(text(params.uri));
  }
}
