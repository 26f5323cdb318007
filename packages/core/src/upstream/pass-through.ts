import type { StandardSchemaV1 } from '@modelcontextprotocol/client';
import { anyObject } from '../payload.js';

/**
 * Results are relayed, not consumed: the gateway reads only the few fields it routes on (and checks
 * those itself), and the downstream client validates what it receives. Skipping the SDK's per-method
 * result schema keeps a full schema parse off every hop.
 */
export const PASS_THROUGH: StandardSchemaV1<Record<string, unknown>> = anyObject('result');

const ENVELOPE_PREFIX = 'io.modelcontextprotocol/';

/** Drops the upstream's reserved `_meta` envelope keys (its serverInfo etc.): the gateway is the server downstream. */
export function withoutEnvelope(result: Record<string, unknown>): Record<string, unknown> {
  const meta = result._meta;
  if (typeof meta !== 'object' || meta === null) return result;
  const keys = Object.keys(meta);
  if (!keys.some((k) => k.startsWith(ENVELOPE_PREFIX))) return result;
  const kept = Object.fromEntries(Object.entries(meta).filter(([k]) => !k.startsWith(ENVELOPE_PREFIX)));
  const copy = { ...result };
  if (Object.keys(kept).length > 0) copy._meta = kept;
  else delete copy._meta;
  return copy;
}
