// Well-known keys of `RequestContext.state`, the scratch map plugins use to tell each other about a
// request. Unlike a plugin's reasons (registered by the plugin, see error-reasons.ts), these stay here on
// purpose: each is a contract between a plugin that writes it and readers that must not depend on that
// plugin. The audit log records them all without installing the secrets, pin, approve or cache plugins
// (nor their secretlint, CEL, lru-cache), and core's status page counts the cache's; an in-house scanner
// or cache that writes the same key in the same shape is recorded and counted the same way. Core itself
// writes only GATEWAY_REQUEST_KEY. A key only one plugin reads belongs in that plugin.

/**
 * `true` on a request the gateway makes itself on a caller's behalf, not one the client sent: tool search's
 * own `tools/list` of the tools its caller may use, and the subscriptions a replica replays when it takes
 * over a session whose replica died (the client was charged and audited for them when it sent them). The plugins that decide (access rules, pins, curation)
 * treat it as the caller's; those that account for the client's requests leave it out: the audit log writes
 * no record of it, rate limits charge nothing for it, the status page does not count it (DESIGN §13:
 * `call_tool` costs exactly what `tools/call` does). Written by core; read by `@switchyard/plugin-audit`,
 * `@switchyard/plugin-rate-limit` and core's status page.
 */
export const GATEWAY_REQUEST_KEY = 'switchyard.gateway-request';

/**
 * How a cache answered a read (a `CacheStatus`). Written by `@switchyard/plugin-cache` (or any cache);
 * read by core's status page (`GatewayStats`) and the audit log.
 */
export const CACHE_STATUS_KEY = 'switchyard.cache';

/**
 * `hit`: served from cache; `miss`: read upstream (and stored when allowed); `coalesced`: joined an
 * identical read already in flight; `bypass`: not cacheable (e.g. `ttlMs: 0`, or the cache is off for it).
 */
export type CacheStatus = 'hit' | 'miss' | 'coalesced' | 'bypass';

/**
 * The rule names (e.g. `github`, `aws`) of the credentials found in a request's arguments or in its
 * answer, sorted and without repeats: never the credentials themselves. Written by
 * `@switchyard/plugin-secrets` (or any scanner); read by the audit log (`secrets`).
 */
export const SECRETS_FINDINGS_KEY = 'switchyard.secrets';

/**
 * The exposed names of the tools and prompts found new or changed against their pins in a request: left
 * out of a list's answer (or listed, under `warn`), or a call refused (or let through, under `warn`).
 * Sorted, without repeats. Written by `@switchyard/plugin-pin`; read by the audit log (`quarantined`).
 */
export const PIN_QUARANTINED_KEY = 'switchyard.pins';

/**
 * How a held tool call was decided (an `ApprovalRecord`): who was asked, the decision, and who gave it.
 * Never the arguments. Written by `@switchyard/plugin-approve`; read by the audit log (`approval`).
 */
export const APPROVAL_KEY = 'switchyard.approval';

export interface ApprovalRecord {
  /** `caller`: asked the caller through elicitation; `group`: an approver of the rule's groups. */
  by: 'caller' | 'group';
  /** `withdrawn`: the caller cancelled (or its request went away) while the call was held. */
  decision: 'approved' | 'denied' | 'timeout' | 'required' | 'withdrawn';
  /** The identity that decided (a group approver), when one did. */
  approver?: string;
  /** The pending approval's id (group approvals). */
  id?: string;
}
