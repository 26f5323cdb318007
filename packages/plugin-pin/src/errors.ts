import { ErrorCode, GatewayError } from '@switchyard/core';
import type { PinKind } from './digest.js';

const NOUN: Record<PinKind, string> = { tools: 'Tool', prompts: 'Prompt' };

/** A call of a quarantined tool or prompt: refused before the upstream. */
export function notApproved(kind: PinKind, exposed: string, server: string): GatewayError {
  return new GatewayError(
    ErrorCode.ToolNotApproved,
    `${NOUN[kind]} '${exposed}' is not approved: its definition is new or differs from the one pinned in the lock file, so the gateway did not call it. An admin can approve it (switchyard pin --approve ${exposed}, or POST /admin/pins/approve).`,
    {
      reason: 'tool_not_approved',
      upstream: server,
      kind: kind === 'tools' ? 'tool' : 'prompt',
      name: exposed,
    },
  );
}
