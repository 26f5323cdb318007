import { type PluginGateway, type RequestContext, splitExposedName, uriReadings } from '@switchyard/core';
import type { AccessPolicy, Decision } from './policy.js';
import type { WhenArguments } from './when.js';

/** What a guarded request addresses, as the rules see it. */
export interface Target {
  readonly kind: 'resource' | 'tool' | 'prompt';
  /** The URI (or template) or the exposed name, as the client wrote it. */
  readonly shown: string;
  /** Resources: the canonical readings; undefined = not canonicalizable (denied). */
  readonly readings?: readonly string[] | undefined;
  /**
   * The upstreams the gateway may send it to: one when routed, every `"prefix": false` upstream for a
   * name no upstream is known to serve, none when nothing could serve it.
   */
  readonly servers: readonly string[];
}

/** The method a list item is decided as: listing an item shows what a read, call or get would use. */
export const ITEM_METHOD = { resource: 'resources/read', tool: 'tools/call', prompt: 'prompts/get' } as const;

/** The methods on one task: each is decided as a call of the tool that created the task. */
export const TASK_METHODS: ReadonlySet<string> = new Set([
  'tasks/get',
  'tasks/result',
  'tasks/cancel',
  'tasks/update',
]);

/**
 * Decides a request for `target`: a resource on every canonical reading, a tool or prompt on every
 * upstream it may go to (so a name's decision never depends on whether it exists). A task's methods are
 * decided as a `tools/call` of its tool: a caller that may no longer call a tool may not use its tasks.
 */
export function decideTarget(
  policy: AccessPolicy,
  request: Pick<RequestContext, 'identity' | 'method' | 'params'>,
  target: Target,
): Decision {
  const { identity } = request;
  const method = TASK_METHODS.has(request.method) ? ITEM_METHOD.tool : request.method;
  if (target.kind === 'resource') {
    return policy.decideReadings({ identity, method, server: target.servers[0] }, target.readings);
  }
  const subject = { identity, method, [target.kind]: target.shown, arguments: argumentsOf(request) };
  return policy.decideServers(subject, target.servers);
}

/**
 * The arguments `when` conditions see for a tool or prompt request: a call's or get's own; for a
 * prompt completion and a task's methods, `'pending'` (the call or get is decided with its arguments;
 * a task's were, when the call that created it was decided).
 */
function argumentsOf(request: Pick<RequestContext, 'method' | 'params'>): WhenArguments {
  if (request.method === 'tools/call' || request.method === 'prompts/get') {
    return { given: request.params.arguments };
  }
  return 'pending';
}

/**
 * The target of a guarded request; undefined for methods that are not guarded (unsubscribing, lists)
 * and for malformed params (the gateway answers those itself).
 */
export function targetOf(ctx: RequestContext, gateway: PluginGateway): Target | undefined {
  const { uri, name, ref } = ctx.params;
  switch (ctx.method) {
    case 'resources/read':
    case 'resources/subscribe':
    case 'skills/get':
    case 'resources/directory/read':
      return nonEmpty(uri) ? resourceTarget(uri, routedUpstream(ctx, uri), false) : undefined;
    case 'tools/call':
      return nonEmpty(name) ? namedTarget(ctx, gateway, 'tool', name) : undefined;
    case 'prompts/get':
      return nonEmpty(name) ? namedTarget(ctx, gateway, 'prompt', name) : undefined;
    case 'completion/complete':
      return completionTarget(ctx, gateway, ref);
    default:
      return TASK_METHODS.has(ctx.method) ? taskTarget(ctx) : undefined;
  }
}

/** `ref/resource`: the template URI; `ref/prompt`: the prompt, named as `prompts/get` names it. */
function completionTarget(ctx: RequestContext, gateway: PluginGateway, ref: unknown): Target | undefined {
  if (typeof ref !== 'object' || ref === null) return undefined;
  const { type, uri, name } = ref as Record<string, unknown>;
  if (type === 'ref/resource' && nonEmpty(uri)) {
    const routed = ctx.target?.kind === 'template' ? ctx.target.upstream : undefined;
    return resourceTarget(uri, routed, true);
  }
  if (type === 'ref/prompt' && nonEmpty(name)) return namedTarget(ctx, gateway, 'prompt', name);
  return undefined;
}

/**
 * A task's tool, as the gateway routed the request (from the task id, which it handed to this caller
 * only); an id it does not know has no target, and the gateway answers "not found".
 */
function taskTarget(ctx: RequestContext): Target | undefined {
  const routed = ctx.target;
  return routed?.kind === 'tool'
    ? { kind: 'tool', shown: routed.exposed, servers: [routed.upstream] }
    : undefined;
}

/** The upstream a resource request goes to, as the gateway routed it on entry (none: it exists nowhere). */
function routedUpstream(ctx: RequestContext, uri: string): string | undefined {
  const routed = ctx.target;
  return routed?.kind === 'resource' && routed.exposed === uri ? routed.upstream : undefined;
}

function resourceTarget(uri: string, server: string | undefined, template: boolean): Target {
  return {
    kind: 'resource',
    shown: uri,
    readings: uriReadings(uri, { template }),
    servers: server === undefined ? [] : [server],
  };
}

function namedTarget(
  ctx: RequestContext,
  gateway: PluginGateway,
  kind: 'tool' | 'prompt',
  exposed: string,
): Target {
  return { kind, shown: exposed, servers: namedServers(ctx, gateway, kind, exposed) };
}

/**
 * The upstreams an exposed tool or prompt name leads to: the one the gateway routed it to as it entered
 * (`ctx.target`); for a name it leads nowhere (unknown, or hidden from this endpoint), every upstream it
 * could have been: the server a `<server>__` prefix names, else any unprefixed upstream — so that a
 * name's decision never tells whether it exists.
 */
function namedServers(
  ctx: RequestContext,
  gateway: PluginGateway,
  kind: 'tool' | 'prompt',
  exposed: string,
): string[] {
  const routed = ctx.target;
  if (routed?.kind === kind && routed.exposed === exposed) return [routed.upstream];
  const upstreams = gateway.upstreams();
  const split = splitExposedName(exposed);
  if (split && upstreams.includes(split.server) && gateway.prefixed(split.server)) return [split.server];
  return upstreams.filter((u) => !gateway.prefixed(u));
}

function nonEmpty(value: unknown): value is string {
  return typeof value === 'string' && value.length > 0;
}
