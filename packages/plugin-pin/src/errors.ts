import { defineErrorReasons, type GatewayError, type ReasonsOf } from '@switchyard/core';
import type { PinKind } from './digest.js';
import { PACKAGE } from './package-info.js';

/** The pin plugin's refusal (DESIGN §8), registered with the gateway's error table when it loads. */
export const PinReasons = defineErrorReasons(PACKAGE.name, {
  tool_not_approved: {
    code: -32012,
    summary: 'the tool or prompt is new or differs from the lock file; the upstream was not called',
  },
});

declare module '@switchyard/core' {
  interface GatewayErrorReasons extends ReasonsOf<typeof PinReasons> {}
}

const NOUN: Record<PinKind, string> = { tools: 'Tool', prompts: 'Prompt' };

/** A call of a quarantined tool or prompt: refused before the upstream. */
export function notApproved(kind: PinKind, exposed: string, server: string): GatewayError {
  return PinReasons.tool_not_approved.error(
    `${NOUN[kind]} '${exposed}' is not approved: its definition is new or differs from the one pinned in the lock file, so the gateway did not call it. An admin can approve it (switchyard pin --approve ${exposed}, or POST /admin/pins/approve).`,
    {
      upstream: server,
      kind: kind === 'tools' ? 'tool' : 'prompt',
      name: exposed,
    },
  );
}
