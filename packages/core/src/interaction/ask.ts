import { jsonDigest } from '../canonical-json.js';
import type { RequestContext } from '../context.js';
import { missingCapability } from './capabilities.js';
import { InputRequired } from './input-required.js';
import type { AskedState, RequestStateSeal } from './request-state.js';

/** A question a plugin puts to the caller of a request: a server-to-client request, in either era. */
export interface Question {
  /** Names the answer among the request's questions (the input request's key on 2026-07-28). */
  key: string;
  /** `elicitation/create`, `sampling/createMessage` or `roots/list`. */
  method: string;
  params: Record<string, unknown>;
  /** How long the caller has to answer, counted from when the question was first put. */
  timeoutMs?: number;
}

/**
 * Asks the caller of the request, whatever its era: a 2025 client is asked on the request's own
 * stream and the promise settles with its answer; a 2026-07-28 client gets an input-required result
 * (thrown as `InputRequired`, which the chain turns into the layer's outcome) and its retry, which runs
 * the request through the plugins again, settles the same question with the answer. Rejects with
 * `AskFailed` when the client cannot be asked (`unsupported`) or does not answer in time (`timeout`).
 */
export type Ask = (question: Question) => Promise<Record<string, unknown>>;

export class AskFailed extends Error {
  constructor(
    readonly reason: 'unsupported' | 'timeout',
    message: string,
  ) {
    super(message);
    this.name = 'AskFailed';
  }
}

/** What binds an asked round to its request: the caller, the method and target, the parameters. */
export function askedBinding(ctx: RequestContext): Omit<AskedState, 'askedAt' | 'answers'> {
  const { _meta, inputResponses, requestState, ...params } = ctx.params;
  return {
    upstream: ctx.target?.upstream ?? '',
    identity: ctx.identity.id,
    target: `${ctx.method}\u0000${ctx.target?.exposed ?? ''}`,
    params: jsonDigest(params),
  };
}

/** The `ask` of one request; `asked` is the round a 2026-07-28 client's retry answers, if it is one. */
export function askerFor(
  ctx: RequestContext,
  seal: RequestStateSeal,
  asked: AskedState | undefined,
  now: () => number = Date.now,
): Ask {
  return async (question) => {
    const client = ctx.client;
    if (!client) throw new AskFailed('unsupported', 'The request has no client that could be asked.');
    if (client.request) {
      refuseUnless(question, client.capabilities);
      return askNow(client.request, question, ctx.signal);
    }
    const answers = asked?.answers ?? {};
    if (Object.hasOwn(answers, question.key)) {
      const late = question.timeoutMs !== undefined && now() - (asked?.askedAt ?? 0) > question.timeoutMs;
      if (late) throw timedOut(question);
      return answers[question.key] as Record<string, unknown>;
    }
    refuseUnless(question, client.capabilities);
    throw new InputRequired({
      resultType: 'input_required',
      inputRequests: { [question.key]: { method: question.method, params: question.params } },
      requestState: seal.sealAsked({
        ...askedBinding(ctx),
        askedAt: asked?.askedAt ?? now(),
        answers,
      }),
    });
  };
}

async function askNow(
  request: NonNullable<NonNullable<RequestContext['client']>['request']>,
  question: Question,
  signal: AbortSignal,
): Promise<Record<string, unknown>> {
  const timeout = question.timeoutMs === undefined ? undefined : AbortSignal.timeout(question.timeoutMs);
  try {
    return await request(question.method, question.params, {
      signal: timeout ? AbortSignal.any([signal, timeout]) : signal,
    });
  } catch (error) {
    if (timeout?.aborted && !signal.aborted) throw timedOut(question);
    throw error;
  }
}

function refuseUnless(question: Question, capabilities: Readonly<Record<string, unknown>> | undefined) {
  const missing = missingCapability(question.method, question.params, capabilities);
  if (missing !== undefined) {
    throw new AskFailed(
      'unsupported',
      `The client did not declare the '${missing}' capability, so it cannot be asked (${question.method}).`,
    );
  }
}

function timedOut(question: Question): AskFailed {
  return new AskFailed(
    'timeout',
    `The client did not answer ${question.method} within ${question.timeoutMs} ms.`,
  );
}
