import { ErrorCode, GatewayError } from '@switchyard/core';

/** The approver said no (DESIGN §8: `approval_denied`). */
export function approvalDenied(tool: string, by: string): GatewayError {
  return new GatewayError(
    ErrorCode.ApprovalDenied,
    `The call of ${tool} was not approved: ${by} declined it. Nothing was sent to the upstream.`,
    { reason: 'approval_denied', tool },
  );
}

/** Nobody answered in time (`approval_timeout`). */
export function approvalTimedOut(tool: string, timeoutMs: number, by: string): GatewayError {
  return new GatewayError(
    ErrorCode.ApprovalTimeout,
    `The call of ${tool} was not approved within ${timeoutMs} ms (asked: ${by}). Nothing was sent to the upstream; call it again to ask again.`,
    { reason: 'approval_timeout', tool, timeoutMs },
  );
}

/** The caller must approve and cannot be asked (`approval_required`). */
export function approvalRequired(tool: string, why: string): GatewayError {
  return new GatewayError(
    ErrorCode.ApprovalRequired,
    `The call of ${tool} needs the caller's approval, and ${why}. Use a client that supports elicitation, or ask an admin to change the approval rule.`,
    { reason: 'approval_required', tool },
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
