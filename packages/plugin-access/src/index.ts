import { definePlugin } from '@switchyard/core';
import { AccessGuard, type AccessMetrics } from './guard.js';
import { type AccessOptions, AccessPolicy } from './policy.js';

export { compileUriGlob, type UriGlob } from './glob.js';
export {
  type NormalizeOptions,
  normalizePattern,
  normalizeUri,
  percentDecode,
  uriReadings,
} from './normalize.js';
export {
  type AccessOptions,
  AccessPolicy,
  type AccessRule,
  DEFAULT_MAX_SKIPPED_PAGES,
  type Decision,
  type Effect,
  RULE_METHODS,
  type Subject,
} from './policy.js';

export const PLUGIN_NAME = '@switchyard/plugin-access';
const CACHE_PLUGIN = '@switchyard/plugin-cache';

/**
 * Access control: allow/deny rules over client identity, groups, servers, URI globs and methods, first
 * match wins. Denied resources and templates vanish from lists; reads, subscriptions and completions on
 * them get `forbidden` (-32034).
 *
 * @example
 * // switchyard.json
 * "plugins": [["@switchyard/plugin-access", {
 *   "default": "deny",
 *   "rules": [
 *     { "effect": "deny", "uris": ["docs+file:///private/**"] },
 *     { "effect": "allow", "groups": ["platform"] },
 *     { "effect": "allow", "servers": ["docs"], "methods": ["resources/read", "resources/list"] }
 *   ]
 * }]]
 */
export default definePlugin<AccessOptions>({
  name: PLUGIN_NAME,
  version: '0.1.0',
  // Released in lockstep with @switchyard/core; the contract suite checks them together.
  core: '>=0.1.0 <1.0.0',
  setup(options, ctx) {
    if (ctx.loaded.includes(CACHE_PLUGIN)) {
      throw new Error(
        `list ${PLUGIN_NAME} before ${CACHE_PLUGIN} in "plugins": a cache outside access control answers cache hits without asking it, so it would serve denied resources`,
      );
    }
    const policy = AccessPolicy.compile(options);
    for (const warning of policy.warnings) ctx.logger.warn(warning);
    const denied = ctx.meter.createCounter('switchyard.access.denied', {
      description: 'Requests refused with forbidden by the access rules',
    });
    const hidden = ctx.meter.createCounter('switchyard.access.hidden', {
      description: 'List items hidden from clients by the access rules',
    });
    const metrics: AccessMetrics = {
      denied: (method) => denied.add(1, { method }),
      hidden: (method, count) => hidden.add(count, { method }),
    };
    const guard = new AccessGuard(policy, ctx.gateway, ctx.logger, metrics);
    return {
      request: (request, next) => guard.request(request, next),
      upstreamCall: (call, next) => guard.upstreamCall(call, next),
      ready: () => {
        for (const warning of policy.unknownServers(ctx.gateway.upstreams())) ctx.logger.warn(warning);
      },
    };
  },
});
