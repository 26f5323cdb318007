import type { RequestContext, RequestTarget } from '../context.js';
import { GatewayError, isResourceNotFound } from '../errors.js';
import type { ListKind, MergedListing } from '../listing/merged.js';
import { exposeUri } from '../naming/uris.js';
import type { SessionRegistry } from '../notify/sessions.js';
import { heldSubscriptions } from '../routing/held-subscriptions.js';
import { type ResourceRouter, unownedUri } from '../routing/resource-router.js';
import type { SubscriptionTable } from '../subscriptions.js';
import type { UpstreamConnection } from '../upstream/connection.js';
import { originOf, type RequestOrigin } from '../upstream/origin.js';
import { exposeReadContents } from './content.js';
import type { Feature } from './feature.js';
import { requireUri } from './params.js';
import type { UpstreamCaller } from './upstream-caller.js';

export interface ResourcesDeps {
  router: ResourceRouter;
  listing: MergedListing;
  subscriptions: SubscriptionTable<RequestOrigin>;
  sessions: SessionRegistry;
  call: UpstreamCaller;
}

/** Resources (DESIGN §4, §5, §7): merged lists, routed reads, reference-counted subscriptions. */
export function resourcesFeature(deps: ResourcesDeps): Feature {
  const { router, listing, subscriptions, sessions, call } = deps;
  const resources: ListKind = {
    method: 'resources/list',
    field: 'resources',
    cursorKind: 'r',
    feature: 'resources',
    expose: (u, item) => exposeListed(router, u, item, 'uri'),
  };
  const templates: ListKind = {
    method: 'resources/templates/list',
    field: 'resourceTemplates',
    cursorKind: 't',
    feature: 'resources',
    expose: (u, item) => exposeListed(router, u, item, 'uriTemplate'),
  };

  const read = async (ctx: RequestContext) => {
    const exposed = requireUri(ctx.params);
    const { upstream, uri } = router.route(exposed, ctx.target);
    try {
      const result = await call(ctx, upstream, { ...ctx.params, uri });
      return exposeReadContents(upstream, result);
    } catch (error) {
      throw notFoundAware(error, exposed);
    }
  };

  const subscribe = async (ctx: RequestContext) => {
    const exposed = requireUri(ctx.params);
    const { upstream, uri } = router.route(exposed, ctx.target);
    // Subscriptions are shared per (upstream, URI) across sessions: on a personal upstream one person's
    // updates would reach everyone subscribed, and end with that person's connection.
    if (upstream.state === 'personal') {
      throw GatewayError.invalidParams(
        `Upstream '${upstream.name}' acts as each person with their own account, and resource subscriptions on it are not supported: read ${exposed} again instead.`,
        { upstream: upstream.name, uri: exposed },
      );
    }
    if (upstream.state === 'ready' && !subscribable(upstream)) {
      throw GatewayError.invalidParams(
        `Upstream '${upstream.name}' does not support resource subscriptions, so ${exposed} cannot be subscribed to.`,
        { upstream: upstream.name, uri: exposed },
      );
    }
    await subscriptions.subscribe(ctx.session.id, upstream.name, uri, originOf(ctx));
    if (!sessions.has(ctx.session.id)) {
      // The session closed while the subscribe was in flight: do not hold it on a dead session's behalf.
      await subscriptions.unsubscribe(ctx.session.id, upstream.name, uri);
      throw GatewayError.fromUnknown(new Error('session closed before the subscription was established'));
    }
    return {};
  };

  const unsubscribe = async (ctx: RequestContext) => {
    const exposed = requireUri(ctx.params);
    const target = router.resolve(exposed, ctx.target);
    const routed = target && { upstream: target.upstream.name, uri: target.uri };
    // What the session holds is released whichever upstream owns the URI now: a reload may have removed
    // its upstream (and may add it back, which re-establishes what is still held).
    const held = heldSubscriptions(exposed, routed, subscriptions.held(ctx.session.id));
    const releases = held.length > 0 ? held : routed ? [routed] : [];
    if (releases.length === 0) throw unownedUri(exposed);
    await Promise.all(
      releases.map((h) => subscriptions.unsubscribe(ctx.session.id, h.upstream, h.uri, originOf(ctx))),
    );
    return {};
  };

  return {
    handlers: {
      'resources/list': (ctx) => listing.list(resources, ctx),
      'resources/templates/list': (ctx) => listing.list(templates, ctx),
      'resources/read': read,
      'resources/subscribe': subscribe,
      'resources/unsubscribe': unsubscribe,
    },
    target(ctx): RequestTarget | undefined {
      const exposed = ctx.params.uri;
      if (ctx.method.endsWith('/list') || typeof exposed !== 'string') return undefined;
      const found = router.find(exposed);
      return found && { kind: 'resource', upstream: found.upstream.name, uri: found.uri, exposed };
    },
  };
}

/** Connected, and able to follow a resource: `resources/subscribe` (legacy) or a listen stream (modern). */
export function subscribable(upstream: UpstreamConnection | undefined): boolean {
  if (upstream?.state !== 'ready') return false;
  return upstream.era === 'modern' || Boolean(upstream.capabilities?.resources?.subscribe);
}

function exposeListed(
  router: ResourceRouter,
  upstream: UpstreamConnection,
  item: Record<string, unknown>,
  field: 'uri' | 'uriTemplate',
): Record<string, unknown> | undefined {
  const uri = item[field];
  if (typeof uri !== 'string') return undefined;
  if (!upstream.config.prefix) {
    // Colliding unprefixed entries are listed once, under the server that serves them.
    return router.ownsListed(upstream, uri, field === 'uriTemplate') ? item : undefined;
  }
  return { ...item, [field]: exposeUri(upstream.name, uri, true) };
}

/** An upstream's "no such resource" names the exposed URI the client asked for. */
function notFoundAware(error: unknown, exposed: string): GatewayError {
  const e = GatewayError.fromUnknown(error);
  if (!isResourceNotFound(e)) return e;
  const upstream = typeof e.data?.upstream === 'string' ? e.data.upstream : undefined;
  const notFound = GatewayError.resourceNotFound(
    exposed,
    upstream ? `Upstream '${upstream}' has no such resource.` : undefined,
  );
  if (upstream && notFound.data) notFound.data.upstream = upstream;
  return notFound;
}
