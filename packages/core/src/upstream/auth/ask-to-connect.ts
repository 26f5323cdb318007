import { randomUUID } from 'node:crypto';
import type { RequestContext } from '../../context.js';
import { ErrorCode, GatewayError } from '../../errors.js';
import { isRecord } from '../../payload.js';

/**
 * The answer to a caller who has no token for a personal upstream yet (DESIGN §14): a client that
 * declares URL-mode elicitation (MCP 2025-11-25 `elicitation.url`) gets the specification's
 * URLElicitationRequired error (-32042, `data.elicitations`), so it can open the URL for its user and
 * retry; any other client gets -32016 `authorization_required`. Both carry `data.url` and
 * `data.reason`, so a client acting on the reason needs no special case.
 */
export function askToConnect(ctx: RequestContext | undefined, upstream: string, url: string): GatewayError {
  // The link stays out of the message: messages reach logs and traces, and whoever opens the link first
  // connects their account for this caller. It travels only in `data`, to this caller.
  const message = `Upstream '${upstream}' acts as each person with their own account: open the link in data.url in a browser to connect yours (single use, valid 10 minutes), then retry.`;
  const data = { reason: 'authorization_required' as const, upstream, url };
  if (!declaresUrlElicitation(ctx?.client?.capabilities)) {
    return new GatewayError(ErrorCode.AuthorizationRequired, message, data);
  }
  const elicitationId = randomUUID();
  return new GatewayError(ErrorCode.UrlElicitationRequired, message, {
    ...data,
    elicitations: [
      {
        mode: 'url',
        elicitationId,
        url,
        message: `Connect your ${upstream} account to continue (the link is single use and valid 10 minutes).`,
      },
    ],
  });
}

/** Whether client capabilities declare URL-mode elicitation (`elicitation: { url: {} }`). */
export function declaresUrlElicitation(capabilities: Readonly<Record<string, unknown>> | undefined): boolean {
  const elicitation = capabilities?.elicitation;
  return isRecord(elicitation) && isRecord(elicitation.url);
}
