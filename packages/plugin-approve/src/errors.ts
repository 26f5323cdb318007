import { defineErrorReasons, GatewayError, type ReasonsOf } from '@switchyard/core';
import { PACKAGE } from './package-info.js';

/** The approve plugin's refusals (DESIGN §8), registered with the gateway's error table when it loads. */
export const ApproveReasons = defineErrorReasons(PACKAGE.name, {
  approval_denied: { code: -32013, summary: "the call's approver declined it; the upstream was not called" },
  approval_timeout: {
    code: -32014,
    summary:
      'nobody approved the call within `timeoutMs`; the upstream was not called: call again to ask again',
  },
  approval_required: {
    code: -32015,
    summary: 'the rule asks the caller, and this client cannot be asked; the upstream was not called',
  },
});

declare module '@switchyard/core' {
  interface GatewayErrorReasons extends ReasonsOf<typeof ApproveReasons> {}
}

/** The approver said no (DESIGN §8: `approval_denied`). */
export function approvalDenied(tool: string, by: string): GatewayError {
  return ApproveReasons.approval_denied.error(
    `The call of ${tool} was not approved: ${by} declined it. Nothing was sent to the upstream.`,
    { tool },
  );
}

/** Nobody answered in time (`approval_timeout`). */
export function approvalTimedOut(tool: string, timeoutMs: number, by: string): GatewayError {
  return ApproveReasons.approval_timeout.error(
    `The call of ${tool} was not approved within ${timeoutMs} ms (asked: ${by}). Nothing was sent to the upstream; call it again to ask again.`,
    { tool, timeoutMs },
  );
}

/** The caller must approve and cannot be asked (`approval_required`). */
export function approvalRequired(tool: string, why: string): GatewayError {
  return ApproveReasons.approval_required.error(
    `The call of ${tool} needs the caller's approval, and ${why}. Use a client that supports elicitation, or ask an admin to change the approval rule.`,
    { tool },
  );
}

/** Arguments too large or too deeply nested to be digested and shown to an approver. */
export function argumentsTooLarge(tool: string, depth: number, values: number): GatewayError {
  return GatewayError.invalidParams(
    `The arguments of ${tool} are too large to be approved (at most ${depth} levels and ${values} values).`,
  );
}

/** A continuation (requestState) that does not continue a call this plugin approved. */
export function notApprovedContinuation(tool: string): GatewayError {
  return GatewayError.invalidParams(
    `The requestState does not continue an approved call of ${tool} with these arguments. Send the request again without requestState and inputResponses to start over.`,
    { reason: 'invalid_request_state' },
  );
}
