import {
  isRecord,
  type PluginAdmin,
  type PluginAdminRequest,
  type PluginAdminResponse,
} from '@switchyard/core';
import type { ApprovalBoard } from './board.js';
import type { ResolvedApproveOptions } from './options.js';
import type { EndedApproval, PendingApproval } from './pending.js';

/** A pending approval as the admin API and the status page show it. */
export interface PendingApprovalView {
  id: string;
  identity: string;
  tool: string;
  server: string;
  arguments: unknown;
  groups: readonly string[];
  createdAt: string;
  expiresAt: string;
}

/**
 * The plugin's part of the admin listener: `approvals` in `/admin/status` (every pending approval),
 * `GET /admin/approvals` (those the caller may decide) and `POST /admin/approvals/<id>` with
 * `{ "decision": "approve" | "deny" }`; both admit the rules' groups beside `listen.admin.groups`.
 */
export function approveAdmin(options: ResolvedApproveOptions, board: ApprovalBoard): PluginAdmin {
  const groups = [...new Set(options.rules.flatMap((r) => (r.by === 'caller' ? [] : r.by)))];
  return {
    status: {
      key: 'approvals',
      read: () => ({
        timeoutMs: options.timeoutMs,
        groups,
        pending: board.all().map(view),
      }),
    },
    routes: [
      {
        method: 'GET',
        path: 'approvals',
        groups: () => groups,
        handle: (request) => ({
          body: { pending: board.visibleTo(request.identity, request.admin).map(view) },
        }),
      },
      {
        method: 'POST',
        path: 'approvals/:id',
        groups: () => groups,
        handle: (request) => decide(board, request),
      },
    ],
  };
}

async function decide(board: ApprovalBoard, request: PluginAdminRequest): Promise<PluginAdminResponse> {
  const body = request.body;
  const decision = isRecord(body) ? body.decision : undefined;
  if (decision !== 'approve' && decision !== 'deny') {
    return { status: 400, body: { error: 'Expected a JSON body { "decision": "approve" | "deny" }' } };
  }
  const id = request.params.id ?? '';
  const refused = await board.decide(id, decision, request.identity, request.admin);
  if (refused === 'unavailable') {
    return {
      status: 503,
      body: { error: 'The shared store does not answer: the decision cannot be claimed. Retry.' },
    };
  }
  if (typeof refused === 'object') return tooLate(refused.ended);
  // An approval the caller may not decide answers like one that does not exist: ids are not disclosed.
  if (refused) {
    return {
      status: 404,
      body: { error: `No pending approval ${id} that you may decide (decided, timed out, or never held).` },
    };
  }
  return { body: { id, decision } };
}

/** 409 for a call that stopped waiting before this decision: what happened to it, and when. */
function tooLate(ended: EndedApproval): PluginAdminResponse {
  const at = new Date(ended.at).toISOString();
  const what = {
    approved: `it was already approved by ${ended.by} at ${at}`,
    denied: `it was already denied by ${ended.by} at ${at}`,
    timed_out: `nobody decided it within the plugin's timeoutMs; it was refused with approval_timeout at ${at}`,
    withdrawn: `the caller stopped waiting for it (cancelled the call or went away) at ${at}, before anyone decided; nothing ran`,
  }[ended.outcome];
  return {
    status: 409,
    body: {
      error: `Approval ${ended.id} cannot be decided any more: ${what}.`,
      id: ended.id,
      outcome: ended.outcome,
      ...(ended.by === undefined ? {} : { by: ended.by }),
      at,
    },
  };
}

function view(approval: PendingApproval): PendingApprovalView {
  return {
    id: approval.id,
    identity: approval.identity,
    tool: approval.tool,
    server: approval.server,
    arguments: approval.arguments,
    groups: approval.groups,
    createdAt: new Date(approval.createdAt).toISOString(),
    expiresAt: new Date(approval.expiresAt).toISOString(),
  };
}
