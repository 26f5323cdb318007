import type { MergedListing } from '../listing/merged.js';
import type { NamedCatalog } from '../routing/named-catalog.js';
import type { UpstreamPool } from '../upstream/pool.js';
import { exposeToolResult } from './content.js';
import type { Feature } from './feature.js';
import { namedListKind, namedTarget, withUpstreamName } from './named.js';
import { checkArguments, requireName } from './params.js';
import type { UpstreamCaller } from './upstream-caller.js';

export interface ToolsDeps {
  pool: UpstreamPool;
  catalog: NamedCatalog;
  listing: MergedListing;
  call: UpstreamCaller;
}

/**
 * Tools (DESIGN §4b): a merged `tools/list` of `<server>__<tool>` names, and `tools/call` routed by the
 * name index to the upstream's own tool. Schemas, annotations, `structuredContent`, `isError` and
 * `_meta` pass through untouched; only resource URIs in the content are exposed.
 */
export function toolsFeature({ pool, catalog, listing, call }: ToolsDeps): Feature {
  const kind = namedListKind(catalog, 'x');
  return {
    handlers: {
      'tools/list': (ctx) => listing.list(kind, ctx),
      'tools/call': async (ctx) => {
        const exposed = requireName(ctx.params, 'tool');
        checkArguments(ctx.params, 'tool');
        const target = await catalog.locate(exposed);
        // A name indexed only now (the upstream added it unannounced) is routed all the same.
        ctx.target ??= { kind: 'tool', upstream: target.upstream, name: target.name, exposed };
        const upstream = pool.require(target.upstream);
        const result = await call(ctx, upstream, withUpstreamName(ctx, target.name));
        return exposeToolResult(upstream, result);
      },
    },
    target: (ctx) =>
      ctx.method === 'tools/call' ? namedTarget(catalog, 'tool', ctx.params.name) : undefined,
  };
}
