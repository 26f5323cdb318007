import { z } from 'zod';
import type { EndedApproval, PendingApproval } from './pending.js';

const text = z.string().min(1).max(1024);
const groups = z.array(text).max(256);

const pending = z.object({
  id: text,
  identity: z.string().max(1024),
  tool: z.string().max(1024),
  server: z.string().max(1024),
  arguments: z.unknown(),
  digest: text,
  groups,
  createdAt: z.number(),
  expiresAt: z.number(),
});

const ended = z.object({
  id: text,
  groups,
  outcome: z.enum(['approved', 'denied', 'timed_out', 'withdrawn']),
  by: z.string().max(1024).optional(),
  at: z.number(),
});

const message = z.discriminatedUnion('t', [
  z.object({ t: z.literal('hello') }),
  z.object({ t: z.literal('held'), approval: pending }),
  z.object({ t: z.literal('gone'), id: text, ended: ended.optional() }),
  z.object({ t: z.literal('decide'), id: text, decision: z.enum(['approve', 'deny']), approver: text }),
]);

/** What replicas tell each other about held calls on the plugin's channel. */
export type BoardMessage =
  | { t: 'hello' }
  | { t: 'held'; approval: PendingApproval }
  | { t: 'gone'; id: string; ended?: EndedApproval }
  | { t: 'decide'; id: string; decision: 'approve' | 'deny'; approver: string };

/** A message another replica published, or undefined for anything that is not one (never a throw). */
export function readBoardMessage(raw: string): BoardMessage | undefined {
  let parsed: unknown;
  try {
    parsed = JSON.parse(raw);
  } catch {
    return undefined;
  }
  const result = message.safeParse(parsed);
  return result.success ? (result.data as BoardMessage) : undefined;
}
