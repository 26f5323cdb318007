// An in-house Switchyard policy plugin, written the way a platform team would: each client may read at
// most `bytesPerWindow` bytes of resource content per `windowMs`; past that, reads are refused with
// `rate_limited` and a `retryAfterMs` that says when its window resets. The counts live in the gateway's
// store: in memory by default, and with `store.redis` one quota per client across every replica.
//
// Load it from the gateway config by path (relative to the config file):
//   "plugins": [["./read-quota/index.js", { "bytesPerWindow": 1048576, "windowMs": 60000 }]]
import { definePlugin, GatewayError } from '@switchyard/core';

/**
 * @typedef {object} ReadQuotaOptions
 * @property {number} bytesPerWindow  bytes of resource content one client may read per window
 * @property {number} [windowMs]      window length (default 60 000 ms)
 * @property {() => number} [now]     clock (tests only)
 */

/** @type {import('@switchyard/core').SwitchyardPlugin<ReadQuotaOptions>} */
export default definePlugin({
  name: '@acme/switchyard-read-quota',
  version: '0.0.0',
  core: '>=0.1.0 <1.0.0', // the core versions this plugin is tested with
  setup(options, { logger, meter, store }) {
    // Validate options at start-up: a bad value stops the gateway with PLUGIN_SETUP_FAILED (exit 2).
    const limit = options.bytesPerWindow;
    const windowMs = options.windowMs ?? 60_000;
    if (!Number.isInteger(limit) || limit <= 0) {
      throw new Error('options.bytesPerWindow must be a positive integer (bytes per window)');
    }
    if (!Number.isInteger(windowMs) || windowMs <= 0) {
      throw new Error('options.windowMs must be a positive integer (milliseconds)');
    }
    const now = options.now ?? Date.now;
    const readBytes = meter.createCounter('acme.quota.bytes_read', { description: 'Bytes read, per client' });
    const refused = meter.createCounter('acme.quota.refused', { description: 'Reads refused by the quota' });
    /** One counter per client and window (windows aligned on multiples of windowMs), gone after two. */
    const usedKey = (id, window) => `used:${window}:${id}`;

    return {
      request: async (ctx, next) => {
        if (ctx.method !== 'resources/read') return next();
        const id = ctx.identity.id;
        const window = Math.floor(now() / windowMs);
        let used;
        try {
          used = Number((await store.get(usedKey(id, window))) ?? 0);
        } catch {
          // The shared store does not answer (StoreUnavailableError): do what the config says.
          if (store.onUnavailable === 'refuse')
            return { ok: false, error: GatewayError.storeUnavailable('the read quota is kept in the store') };
          used = 0; // "local": the quota is not enforced until the store is back
        }
        if (used >= limit) {
          refused.add(1, { client: id });
          const retryAfterMs = (window + 1) * windowMs - now();
          // Errors are values: return the outcome instead of throwing, so outer plugins (audit) see it.
          return { ok: false, error: GatewayError.rateLimited(retryAfterMs, { quota: 'read-bytes' }) };
        }
        const outcome = await next();
        if (outcome.ok) {
          const bytes = contentBytes(outcome.result);
          readBytes.add(bytes, { client: id });
          // Atomic across replicas; the count outlives its window by one, then expires.
          const total = await store.counters
            ?.increment(usedKey(id, window), bytes, 2 * windowMs)
            .catch(() => undefined);
          if (total !== undefined && total >= limit)
            logger.info('client reached its read quota', { client: id, bytes: total });
        }
        return outcome;
      },
    };
  },
});

/** The size of what a read returned: UTF-8 text bytes, and decoded blob bytes. */
export function contentBytes(result) {
  let total = 0;
  for (const content of Array.isArray(result.contents) ? result.contents : []) {
    if (typeof content.text === 'string') total += Buffer.byteLength(content.text, 'utf8');
    if (typeof content.blob === 'string') total += Buffer.from(content.blob, 'base64').length;
  }
  return total;
}
