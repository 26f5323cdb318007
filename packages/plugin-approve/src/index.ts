import { definePlugin } from '@switchyard/core';
import { approveAdmin } from './admin.js';
import { ToolAnnotations } from './annotations.js';
import { ApprovalBoard } from './board.js';
import { ApprovedContinuations } from './continuations.js';
import { approveMiddleware } from './middleware.js';
import { approveOptionsSchema } from './options.js';
import { PACKAGE } from './package-info.js';
import { PendingApprovals } from './pending.js';

export type { PendingApprovalView } from './admin.js';
export { ApproveReasons } from './errors.js';
export type { ApprovalRuleOptions, ApproveOptions, Hint } from './options.js';

/**
 * Human approval of tool calls (DESIGN §8): a `tools/call` that a rule matches (tool name globs, the
 * tool's annotations, a CEL `when`) is held until approved — by the caller through elicitation
 * (`by: "caller"`, bridged to 2026-07-28 clients as an input-required result), or by a member of the
 * rule's groups on the admin listener (`GET /admin/approvals`, `POST /admin/approvals/<id>`, the status
 * page). Declined → `-32013 approval_denied`; no answer within `timeoutMs` → `-32014 approval_timeout`;
 * a caller that cannot be asked → `-32015 approval_required`. The upstream never sees a call that was
 * not approved.
 *
 * @example
 * ["@switchyard/plugin-approve", { "rules": [
 *   { "tools": ["github__delete_*"], "by": ["platform-leads"] },
 *   { "annotations": { "destructiveHint": true }, "by": "caller" }
 * ] }]
 */
export default definePlugin({
  name: PACKAGE.name,
  version: PACKAGE.version,
  core: '>=0.1.0 <1.0.0',
  options: approveOptionsSchema,
  setup(options, ctx) {
    const annotations = new ToolAnnotations();
    const pending = new PendingApprovals();
    const continuations = new ApprovedContinuations();
    const board = new ApprovalBoard(pending, ctx.store, ctx.logger);
    return {
      // Every tools/list page an upstream answers (the gateway's own index listings too): the annotations.
      upstreamCall: async (call, next) => {
        const outcome = await next();
        if (call.method === 'tools/list' && outcome.ok) annotations.record(call.upstream, outcome.result);
        return outcome;
      },
      request: approveMiddleware({ options, annotations, pending, continuations, log: ctx.logger }),
      admin: approveAdmin(options, board),
      stats: () => ({ pending: pending.size }),
      ready: () => board.start(),
      close: async () => {
        pending.close();
        await board.close();
      },
    };
  },
});
