/**
 * Well-known keys of `RequestContext.state`, the scratch map plugins use to tell each other about a
 * request (e.g. the cache telling the audit log whether a read was served from cache).
 */
export const CACHE_STATUS_KEY = 'switchyard.cache';

/**
 * `hit`: served from cache; `miss`: read upstream (and stored when allowed); `coalesced`: joined an
 * identical read already in flight; `bypass`: not cacheable (e.g. `ttlMs: 0`, or the cache is off for it).
 */
export type CacheStatus = 'hit' | 'miss' | 'coalesced' | 'bypass';

/**
 * The rule names (e.g. `github`, `aws`) of the credentials the secrets plugin found in a request's
 * arguments or in its answer, sorted and without repeats: never the credentials themselves.
 */
export const SECRETS_FINDINGS_KEY = 'switchyard.secrets';

/**
 * The exposed names of the tools and prompts the pin plugin found new or changed against its lock file
 * in a request: left out of a list's answer (or listed, under `warn`), or a call it refused (or let
 * through, under `warn`). Sorted, without repeats.
 */
export const PIN_QUARANTINED_KEY = 'switchyard.pins';

/**
 * How the approve plugin decided a held tool call (an `ApprovalRecord`): who was asked, the decision,
 * and who gave it. Never the arguments.
 */
export const APPROVAL_KEY = 'switchyard.approval';

export interface ApprovalRecord {
  /** `caller`: asked the caller through elicitation; `group`: an approver of the rule's groups. */
  by: 'caller' | 'group';
  decision: 'approved' | 'denied' | 'timeout' | 'required';
  /** The identity that decided (a group approver), when one did. */
  approver?: string;
  /** The pending approval's id (group approvals). */
  id?: string;
}
