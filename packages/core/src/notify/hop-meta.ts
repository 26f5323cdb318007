import { SUBSCRIPTION_ID_META_KEY } from '@modelcontextprotocol/server';

/**
 * An upstream notification's params without what names the upstream's own hop: the id of the gateway's
 * listen stream to the upstream (`io.modelcontextprotocol/subscriptionId`) means nothing to a client,
 * which gets its own stream's id (2026-07-28) or none (2025); `_meta` goes when nothing else is left in it.
 */
export function withoutHopMeta(params: Record<string, unknown>): Record<string, unknown> {
  const meta = params._meta;
  if (typeof meta !== 'object' || meta === null || !Object.hasOwn(meta, SUBSCRIPTION_ID_META_KEY))
    return params;
  const { [SUBSCRIPTION_ID_META_KEY]: _hop, ...rest } = meta as Record<string, unknown>;
  const { _meta: _dropped, ...others } = params;
  return Object.keys(rest).length === 0 ? others : { ...others, _meta: rest };
}
