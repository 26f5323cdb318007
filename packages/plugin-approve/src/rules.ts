import type { RequestContext, RequestTarget } from '@switchyard/core';
import type { ToolAnnotations } from './annotations.js';
import type { ApprovalRule } from './options.js';

/**
 * The first rule that matches a `tools/call` (DESIGN §8): every field a rule names must match. A `when`
 * condition that cannot be evaluated counts as matching: when in doubt, the call is held.
 */
export function matchingRule(
  rules: readonly ApprovalRule[],
  ctx: RequestContext,
  target: RequestTarget,
  annotations: ToolAnnotations,
): ApprovalRule | undefined {
  for (const rule of rules) {
    if (rule.tools && !rule.tools(target.exposed)) continue;
    if (rule.annotations) {
      const hints = annotations.of(target.upstream, target.name ?? target.exposed);
      const entries = Object.entries(rule.annotations) as [keyof typeof hints, boolean][];
      if (!entries.every(([hint, value]) => hints[hint] === value)) continue;
    }
    if (rule.when) {
      const verdict = rule.when.evaluate({
        identity: ctx.identity.id,
        groups: ctx.identity.groups,
        server: target.upstream,
        tool: target.exposed,
        arguments: { given: ctx.params.arguments ?? {} },
      });
      if (verdict === false) continue;
    }
    return rule;
  }
  return undefined;
}
