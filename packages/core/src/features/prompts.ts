import type { MergedListing } from '../listing/merged.js';
import type { NamedCatalog } from '../routing/named-catalog.js';
import type { UpstreamPool } from '../upstream/pool.js';
import { exposePromptMessages } from './content.js';
import type { Feature } from './feature.js';
import { namedListKind, namedTarget, withUpstreamName } from './named.js';
import { checkArguments, requireName } from './params.js';
import type { UpstreamCaller } from './upstream-caller.js';

export interface PromptsDeps {
  pool: UpstreamPool;
  catalog: NamedCatalog;
  listing: MergedListing;
  call: UpstreamCaller;
}

/**
 * Prompts (DESIGN §4b): a merged `prompts/list` named like tools, and `prompts/get` routed by the name
 * index; resources the messages embed or link come back with exposed URIs.
 */
export function promptsFeature({ pool, catalog, listing, call }: PromptsDeps): Feature {
  const kind = namedListKind(catalog, 'p');
  return {
    handlers: {
      'prompts/list': (ctx) => listing.list(kind, ctx),
      'prompts/get': async (ctx) => {
        const exposed = requireName(ctx.params, 'prompt');
        checkArguments(ctx.params, 'prompt');
        const target = await catalog.locate(exposed);
        // A name indexed only now (the upstream added it unannounced) is routed all the same.
        ctx.target ??= { kind: 'prompt', upstream: target.upstream, name: target.name, exposed };
        const upstream = pool.require(target.upstream);
        const result = await call(ctx, upstream, withUpstreamName(ctx, target.name));
        return exposePromptMessages(upstream, result);
      },
    },
    target: (ctx) =>
      ctx.method === 'prompts/get' ? namedTarget(catalog, 'prompt', ctx.params.name) : undefined,
  };
}
