import type { RequestContext, RequestTarget } from '../context.js';
import type { ListKind, MergedListing } from '../listing/merged.js';
import type { NamedCatalog } from '../routing/named-catalog.js';
import { unknownNamed } from '../routing/named-catalog.js';
import type { UpstreamConnection } from '../upstream/connection.js';
import type { UpstreamPool } from '../upstream/pool.js';
import type { Feature } from './feature.js';
import { checkArguments, requireName } from './params.js';
import type { UpstreamCaller } from './upstream-caller.js';

/** What a name-addressed feature (tools, prompts) is built from. */
export interface NamedFeatureDeps {
  pool: UpstreamPool;
  catalog: NamedCatalog;
  listing: MergedListing;
  call: UpstreamCaller;
}

/** How one name-addressed feature differs from the other. */
export interface NamedFeatureSpec {
  /** `tool` or `prompt`. */
  noun: 'tool' | 'prompt';
  /** The method that uses one item by name (`tools/call`, `prompts/get`). */
  use: string;
  /** Tags the merged list's cursors. */
  cursorKind: string;
  /** The result as clients see it (resource URIs it carries exposed). */
  expose(upstream: UpstreamConnection, result: Record<string, unknown>): Record<string, unknown>;
  /** A listed item as the client of `ctx` sees it, when that depends on the client (e.g. its era). */
  listed?(
    ctx: RequestContext,
    upstream: UpstreamConnection,
    item: Record<string, unknown>,
  ): Record<string, unknown>;
}

/**
 * A feature addressed by exposed names: the merged `<kind>/list` of `<server>__<name>` items, and the
 * use of one item routed by the name index to the upstream's own name. Arguments are the upstream's to
 * judge; only their shape is checked here.
 */
export function namedFeature(deps: NamedFeatureDeps, spec: NamedFeatureSpec): Feature {
  const { pool, catalog, listing, call } = deps;
  const kind = namedListKind(catalog, spec.cursorKind);
  const target = (exposed: unknown): RequestTarget | undefined => {
    if (typeof exposed !== 'string') return undefined;
    const found = catalog.index.resolve(exposed);
    return found && { kind: spec.noun, upstream: found.upstream, name: found.name, exposed };
  };
  return {
    handlers: {
      [kind.method]: (ctx) => listing.list(spec.listed ? forClient(kind, ctx, spec.listed) : kind, ctx),
      [spec.use]: async (ctx) => {
        const exposed = requireName(ctx.params, spec.noun);
        checkArguments(ctx.params, spec.noun);
        // Resolved once, as the request entered (`ctx.target`, a name the upstream added unannounced
        // included: `locate`); without one the name exists nowhere.
        const routed = ctx.target;
        if (routed?.kind !== spec.noun || routed.exposed !== exposed || routed.name === undefined) {
          throw unknownNamed(catalog.kind, exposed);
        }
        const upstream = pool.require(routed.upstream);
        const result = await call(ctx, upstream, { ...ctx.params, name: routed.name });
        return spec.expose(upstream, result);
      },
    },
    target: (ctx) => (ctx.method === spec.use ? target(ctx.params.name) : undefined),
    locate: async (ctx) => {
      const exposed = ctx.method === spec.use ? ctx.params.name : undefined;
      if (typeof exposed !== 'string') return undefined;
      const found = await catalog.locate(exposed);
      return { kind: spec.noun, upstream: found.upstream, name: found.name, exposed };
    },
  };
}

/** `kind` with each item it exposes passed through `listed` for the client of `ctx`. */
function forClient(
  kind: ListKind,
  ctx: RequestContext,
  listed: NonNullable<NamedFeatureSpec['listed']>,
): ListKind {
  return {
    ...kind,
    expose: (upstream, item) => {
      const exposed = kind.expose(upstream, item);
      return exposed && listed(ctx, upstream, exposed);
    },
  };
}

/**
 * The list kind of a name-addressed feature: each item renamed to its exposed name, curated items left
 * out, and an item whose exposed name another upstream (or another of its own names) owns left out
 * too, so a collision never lists two items under one name; nor does an upstream listing one name twice
 * on a page (`key`).
 */
function namedListKind(catalog: NamedCatalog, cursorKind: string): ListKind {
  const { kind, index } = catalog;
  return {
    method: `${kind}/list`,
    field: kind,
    cursorKind,
    feature: kind,
    key: 'name',
    expose(upstream: UpstreamConnection, item: Record<string, unknown>) {
      if (typeof item.name !== 'string') return undefined;
      const exposed = index.expose(upstream.name, item.name);
      if (exposed === undefined || !index.claims(upstream.name, item.name, exposed)) return undefined;
      return exposed === item.name ? item : { ...item, name: exposed };
    },
  };
}
