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
 * @property {number} windowMs        window length (default 60 000 ms)
 * @property {() => number} [now]     clock (tests only)
 */

const KNOWN = ['bytesPerWindow', 'windowMs', 'now'];
const positiveInteger = (value) => Number.isInteger(value) && value > 0;

/**
 * The options schema: a Standard Schema v1 (https://standardschema.dev), here written by hand so the
 * example needs no dependency; a zod 4 schema is one (`z.strictObject({ bytesPerWindow: z.number()
 * .int().positive(), windowMs: z.number().int().positive().default(60_000), ... })`). The gateway
 * validates the config's options with it before `setup`, and a failure stops the start with
 * PLUGIN_INVALID_OPTIONS naming the plugin and the option, e.g.
 * `Plugin @acme/switchyard-read-quota ($.plugins[4]): options.bytesPerWindow: expected a positive integer (bytes per window), got -1`.
 *
 * @type {import('@switchyard/core').OptionsSchema<ReadQuotaOptions>}
 */
export const readQuotaOptions = {
  '~standard': {
    version: 1,
    vendor: 'acme',
    validate(value) {
      if (typeof value !== 'object' || value === null || Array.isArray(value))
        return { issues: [{ message: 'expected an object such as { "bytesPerWindow": 1048576 }' }] };
      const { bytesPerWindow, windowMs = 60_000, now } = value;
      const issues = Object.keys(value)
        .filter((key) => !KNOWN.includes(key))
        .map((key) => ({ message: `unknown option (known: ${KNOWN.join(', ')})`, path: [key] }));
      if (!positiveInteger(bytesPerWindow))
        issues.push({ message: 'expected a positive integer (bytes per window)', path: ['bytesPerWindow'] });
      if (!positiveInteger(windowMs))
        issues.push({ message: 'expected a positive integer (milliseconds)', path: ['windowMs'] });
      if (now !== undefined && typeof now !== 'function')
        issues.push({ message: 'expected a clock function (tests only)', path: ['now'] });
      return issues.length > 0 ? { issues } : { value: { bytesPerWindow, windowMs, now } };
    },
  },
};

/** @type {import('@switchyard/core').SwitchyardPlugin<ReadQuotaOptions>} */
export default definePlugin({
  name: '@acme/switchyard-read-quota',
  version: '0.0.0',
  core: '>=0.1.0 <1.0.0', // the core versions this plugin is tested with
  options: readQuotaOptions, // checked by the gateway before setup, which receives them defaults applied
  setup(options, { logger, meter, store }) {
    const { bytesPerWindow: limit, windowMs } = options;
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
