import { definePlugin } from '@switchyard/core';
import { AccessGuard, type AccessMetrics } from './guard.js';
import { accessOptions } from './options.js';
import { PACKAGE } from './package-info.js';
import { AccessPolicy } from './policy.js';

export type { AccessOptions, AccessRule, Effect } from './options.js';

const CACHE_PLUGIN = '@switchyard/plugin-cache';

/**
 * Access control: allow/deny rules over client identity, groups, servers, URI globs, tool and prompt
 * name globs and methods, first match wins. Denied resources, templates, tools and prompts vanish from
 * lists; reads, subscriptions, tool calls, prompt gets and completions on them get `forbidden` (-32007).
 *
 * @example
 * // switchyard.json
 * "plugins": [["@switchyard/plugin-access", {
 *   "default": "deny",
 *   "rules": [
 *     { "effect": "deny", "uris": ["docs+file:///private/**"], "tools": ["*__delete_*"] },
 *     { "effect": "allow", "groups": ["platform"] },
 *     { "effect": "allow", "servers": ["docs"], "methods": ["resources/read", "resources/list"] }
 *   ]
 * }]]
 */
export default definePlugin({
  name: PACKAGE.name,
  version: PACKAGE.version,
  // Released in lockstep with @switchyard/core; the contract suite checks them together.
  core: '>=0.1.0 <1.0.0',
  options: accessOptions,
  setup(options, ctx) {
    if (ctx.loaded.includes(CACHE_PLUGIN)) {
      throw new Error(
        `list ${PACKAGE.name} before ${CACHE_PLUGIN} in "plugins": a cache outside access control answers cache hits without asking it, so it would serve denied resources`,
      );
    }
    const policy = AccessPolicy.of(options);
    for (const warning of policy.warnings) ctx.logger.warn(warning);
    const denied = ctx.meter.createCounter('switchyard.access.denied', {
      description: 'Requests refused with forbidden by the access rules',
    });
    const hidden = ctx.meter.createCounter('switchyard.access.hidden', {
      description: 'List items hidden, and resources withheld from results, by the access rules',
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
