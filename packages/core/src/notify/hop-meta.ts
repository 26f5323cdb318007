import { SUBSCRIPTION_ID_META_KEY } from '@modelcontextprotocol/server';
import { withoutMetaKey } from '../payload.js';

/**
 * An upstream notification's params without what names the upstream's own hop: the id of the gateway's
 * listen stream to the upstream (`io.modelcontextprotocol/subscriptionId`) means nothing to a client,
 * which gets its own stream's id (2026-07-28) or none (2025); `_meta` goes when nothing else is left in it.
 */
export function withoutHopMeta(params: Record<string, unknown>): Record<string, unknown> {
  return withoutMetaKey(params, SUBSCRIPTION_ID_META_KEY);
}
