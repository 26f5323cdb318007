import type { RequestContext, RequestTarget } from '../context.js';
import type { ListKind } from '../listing/merged.js';
import type { NamedCatalog } from '../routing/named-catalog.js';
import type { UpstreamConnection } from '../upstream/connection.js';

/**
 * The list kind of a name-addressed feature (tools, prompts): each item renamed to its exposed name,
 * curated items left out, and an item whose exposed name another upstream (or another of its own
 * names) owns left out too, so a collision never lists two items under one name.
 */
export function namedListKind(catalog: NamedCatalog, cursorKind: string): ListKind {
  const { kind, index } = catalog;
  return {
    method: `${kind}/list`,
    field: kind,
    cursorKind,
    feature: kind,
    expose(upstream: UpstreamConnection, item: Record<string, unknown>) {
      if (typeof item.name !== 'string') return undefined;
      const exposed = index.expose(upstream.name, item.name);
      if (exposed === undefined || !index.claims(upstream.name, item.name, exposed)) return undefined;
      return exposed === item.name ? item : { ...item, name: exposed };
    },
  };
}

/** Where a call naming a tool or prompt by its exposed name goes (as far as the index knows now). */
export function namedTarget(
  catalog: NamedCatalog,
  kind: 'tool' | 'prompt',
  exposed: unknown,
): RequestTarget | undefined {
  if (typeof exposed !== 'string') return undefined;
  const target = catalog.index.resolve(exposed);
  return target && { kind, upstream: target.upstream, name: target.name, exposed };
}

/** The params an upstream gets: the exposed name replaced by its own. */
export function withUpstreamName(ctx: RequestContext, name: string): Record<string, unknown> {
  return { ...ctx.params, name };
}
