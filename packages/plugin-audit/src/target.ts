import type { PluginGateway, RequestContext, RequestTarget } from '@switchyard/core';

/**
 * Where the gateway routed a request: `ctx.target`, which the gateway sets before the plugins run, or —
 * when it could not yet (a tool or prompt name it indexed while serving the request) — the route the
 * gateway view gives now. Undefined for lists and for what routes nowhere.
 */
export function routedTarget(ctx: RequestContext, gateway: PluginGateway): RequestTarget | undefined {
  if (ctx.target !== undefined) return ctx.target;
  try {
    return routeNow(ctx, gateway);
  } catch {
    return undefined;
  }
}

function routeNow(ctx: RequestContext, gateway: PluginGateway): RequestTarget | undefined {
  const { uri, name, ref } = ctx.params;
  if (ctx.method === 'tools/call' && typeof name === 'string') {
    const route = gateway.tool(name);
    return route && { kind: 'tool', ...route, exposed: name };
  }
  if (ctx.method === 'prompts/get' && typeof name === 'string') {
    const route = gateway.prompt(name);
    return route && { kind: 'prompt', ...route, exposed: name };
  }
  if (ctx.method.startsWith('resources/') && typeof uri === 'string') {
    const route = gateway.route(uri);
    return route && { kind: 'resource', ...route, exposed: uri };
  }
  if (ctx.method !== 'completion/complete' || typeof ref !== 'object' || ref === null) return undefined;
  const { type, uri: template, name: promptName } = ref as Record<string, unknown>;
  if (type === 'ref/prompt' && typeof promptName === 'string') {
    const route = gateway.prompt(promptName);
    return route && { kind: 'prompt', ...route, exposed: promptName };
  }
  const upstream = type === 'ref/resource' ? gateway.completionTarget(ref) : undefined;
  return upstream === undefined || typeof template !== 'string'
    ? undefined
    : { kind: 'template', upstream, exposed: template };
}
