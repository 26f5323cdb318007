import {
  APPROVAL_KEY,
  type ApprovalRecord,
  ErrorCode,
  GatewayError,
  jsonDigest,
  type Logger,
  type Outcome,
  type RequestContext,
  type RequestMiddleware,
  type RequestTarget,
} from '@switchyard/core';
import type { ToolAnnotations } from './annotations.js';
import { askCaller } from './caller.js';
import type { ApprovedContinuations } from './continuations.js';
import {
  approvalDenied,
  approvalRequired,
  approvalTimedOut,
  argumentsTooLarge,
  notApprovedContinuation,
} from './errors.js';
import { MAX_ARGUMENT_DEPTH, MAX_ARGUMENT_VALUES, withinBounds } from './json.js';
import type { ApprovalRule, ResolvedApproveOptions } from './options.js';
import { MAX_PENDING, type PendingApprovals } from './pending.js';
import { matchingRule } from './rules.js';

export interface ApproveParts {
  options: ResolvedApproveOptions;
  annotations: ToolAnnotations;
  pending: PendingApprovals;
  continuations: ApprovedContinuations;
  log: Logger;
}

/**
 * Holds each `tools/call` a rule matches until it is approved (DESIGN §8): by the caller through
 * elicitation, or by a member of the rule's groups on the admin listener. The upstream never sees a
 * call that was not approved; an approval binds to the digest of (identity, tool, arguments) and is
 * spent by the one call it was given for.
 */
export function approveMiddleware(parts: ApproveParts): RequestMiddleware {
  const { options, annotations, continuations } = parts;
  return async (ctx, next) => {
    const target = ctx.target;
    if (ctx.method !== 'tools/call' || target?.kind !== 'tool') return next();
    const rule = matchingRule(options.rules, ctx, target, annotations);
    if (!rule) return next();
    const args = ctx.params.arguments ?? {};
    if (!withinBounds(args)) {
      return refuse(argumentsTooLarge(target.exposed, MAX_ARGUMENT_DEPTH, MAX_ARGUMENT_VALUES));
    }
    const digest = jsonDigest({ identity: ctx.identity.id, tool: target.exposed, arguments: args });
    const state = ctx.client?.requestState;
    if (state !== undefined) {
      // A retry that continues an approved call the upstream asked something during.
      if (!continuations.take(state, digest)) return refuse(notApprovedContinuation(target.exposed));
      return forward(next, digest, continuations);
    }
    const verdict = await decide(ctx, target, rule, args, digest, parts);
    ctx.state.set(APPROVAL_KEY, verdict.record);
    if (verdict.error) return refuse(verdict.error);
    return forward(next, digest, continuations);
  };
}

interface Verdict {
  record: ApprovalRecord;
  error?: GatewayError;
}

async function decide(
  ctx: RequestContext,
  target: RequestTarget,
  rule: ApprovalRule,
  args: unknown,
  digest: string,
  { options, pending, log }: ApproveParts,
): Promise<Verdict> {
  const tool = target.exposed;
  const { timeoutMs } = options;
  if (rule.by === 'caller') {
    const asked = await askCaller(ctx, { tool, server: target.upstream, arguments: args }, timeoutMs);
    const record: ApprovalRecord = { by: 'caller', decision: asked.decision };
    if (asked.decision === 'approved') return { record };
    if (asked.decision === 'denied') return { record, error: approvalDenied(tool, 'the caller') };
    if (asked.decision === 'timeout')
      return { record, error: approvalTimedOut(tool, timeoutMs, 'the caller') };
    return { record, error: approvalRequired(tool, asked.why) };
  }
  const groups = rule.by;
  const who = `a member of ${groups.join(', ')}`;
  let reminder: NodeJS.Timeout | undefined;
  const held = pending.hold(
    { identity: ctx.identity.id, tool, server: target.upstream, arguments: args, digest, groups },
    timeoutMs,
    ctx.signal,
    (approval) => {
      log.info('call held for approval', { id: approval.id, identity: approval.identity, tool, groups });
      const report = ctx.onProgress;
      if (!report) return;
      const waiting = `Waiting for approval by ${who} (id ${approval.id})`;
      report({ progress: 0, message: waiting });
      // A held call can outlast a client's request timeout (60 s in the official SDKs): progress now and
      // then keeps a client that resets its timeout on progress waiting, and shows the wait is alive.
      reminder = setInterval(() => {
        const elapsed = Math.round((Date.now() - approval.createdAt) / 1000);
        const left = Math.max(0, Math.round((approval.expiresAt - Date.now()) / 1000));
        report({ progress: elapsed, message: `${waiting}: ${elapsed} s so far, ${left} s left` });
      }, HELD_PROGRESS_MS);
      reminder.unref?.();
    },
  );
  if (!held) {
    return {
      record: { by: 'group', decision: 'required' },
      error: new GatewayError(
        ErrorCode.GatewayRefused,
        `Too many calls are waiting for approval (${MAX_PENDING}); try again later.`,
        { reason: 'busy' },
      ),
    };
  }
  const decided = await held.finally(() => clearInterval(reminder));
  if (decided.decision === 'timeout') {
    return { record: { by: 'group', decision: 'timeout' }, error: approvalTimedOut(tool, timeoutMs, who) };
  }
  if (decided.decision === 'withdrawn') {
    log.info('held call withdrawn by its caller', { tool, identity: ctx.identity.id });
    return { record: { by: 'group', decision: 'withdrawn' }, error: GatewayError.cancelled(ctx.method) };
  }
  const record: ApprovalRecord = {
    by: 'group',
    decision: decided.decision === 'approve' ? 'approved' : 'denied',
    approver: decided.approver,
  };
  log.info('approval decided', { tool, identity: ctx.identity.id, ...record });
  if (decided.decision === 'approve') return { record };
  return { record, error: approvalDenied(tool, decided.approver) };
}

/** Sends the approved call on; a continuation it comes back with may continue it once. */
async function forward(
  next: () => Promise<Outcome>,
  digest: string,
  continuations: ApprovedContinuations,
): Promise<Outcome> {
  const outcome = await next();
  if (outcome.ok && outcome.result.resultType === 'input_required') {
    const state = outcome.result.requestState;
    if (typeof state === 'string') continuations.remember(state, digest);
  }
  return outcome;
}

/** How often a call held for an approver group reports progress to a caller that asked for it. */
export const HELD_PROGRESS_MS = 15_000;

function refuse(error: GatewayError): Outcome {
  return { ok: false, error };
}
