import {
  CLIENT_CAPABILITIES_META_KEY,
  type ClientCapabilities,
  type InputRequest,
  type InputRequiredResult,
  inputRequired,
  inputResponse,
  type McpServer,
  type ServerContext,
} from '@modelcontextprotocol/server';
import type { FixtureState, RoundState } from './state.js';

/** The embedded requests the multi-round fixtures ask for, by the keys the scenarios expect. */
export const ASK = {
  userName: (message = 'What is your name?'): InputRequest =>
    inputRequired.elicit({
      message,
      requestedSchema: { type: 'object', properties: { name: { type: 'string' } }, required: ['name'] },
    }),
  confirm: (): InputRequest =>
    inputRequired.elicit({
      message: 'Please confirm',
      requestedSchema: { type: 'object', properties: { ok: { type: 'boolean' } }, required: ['ok'] },
    }),
  color: (): InputRequest =>
    inputRequired.elicit({
      message: 'Step 2: What is your favorite color?',
      requestedSchema: { type: 'object', properties: { color: { type: 'string' } }, required: ['color'] },
    }),
  context: (): InputRequest =>
    inputRequired.elicit({
      message: 'What context should the prompt use?',
      requestedSchema: { type: 'object', properties: { context: { type: 'string' } }, required: ['context'] },
    }),
  sample: (text: string, maxTokens = 100): InputRequest =>
    inputRequired.createMessage({ messages: [{ role: 'user', content: { type: 'text', text } }], maxTokens }),
  roots: (): InputRequest => inputRequired.listRoots(),
} as const;

/** A string field of an accepted elicitation answer, or undefined (missing, declined, wrong shape). */
export function acceptedString(ctx: ServerContext, key: string, field: string): string | undefined {
  const view = inputResponse(ctx.mcpReq.inputResponses, key);
  if (view.kind !== 'elicit' || view.action !== 'accept') return undefined;
  const value = view.content?.[field];
  return typeof value === 'string' ? value : undefined;
}

/** Whether the retried request answers `key` with a response of the right kind. */
export function answered(ctx: ServerContext, key: string, kind: 'elicit' | 'sampling' | 'roots'): boolean {
  const view = inputResponse(ctx.mcpReq.inputResponses, key);
  return view.kind === kind && (kind !== 'elicit' || (view.kind === 'elicit' && view.action === 'accept'));
}

/**
 * The verified round state of this flow, or undefined. The SDK has already checked the HMAC (the
 * `requestState.verify` hook) before the handler runs; a state minted by another flow is ignored.
 */
export function roundState(ctx: ServerContext, flow: string): RoundState | undefined {
  const payload = ctx.mcpReq.requestState<RoundState>();
  return payload !== undefined && typeof payload === 'object' && payload.flow === flow ? payload : undefined;
}

/** An input-required result carrying signed state for the next round. */
export async function askWithState(
  state: FixtureState,
  ctx: ServerContext,
  round: RoundState,
  inputRequests: Record<string, InputRequest>,
): Promise<InputRequiredResult> {
  return inputRequired({ inputRequests, requestState: await state.requestState.mint(round, ctx) });
}

/**
 * The client capabilities the current request declared: the per-request envelope on the 2026-07-28 era,
 * the `initialize` capabilities on a 2025 session.
 */
export function declaredCapabilities(mcp: McpServer, ctx: ServerContext): ClientCapabilities {
  const envelope = ctx.mcpReq.envelope as Record<string, unknown> | undefined;
  const fromEnvelope = envelope?.[CLIENT_CAPABILITIES_META_KEY] as ClientCapabilities | undefined;
  // getClientCapabilities is the 2025 session's view; the envelope supersedes it per request.
  return fromEnvelope ?? mcp.server.getClientCapabilities() ?? {};
}
