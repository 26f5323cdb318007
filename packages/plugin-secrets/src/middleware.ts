import {
  GatewayError,
  type Outcome,
  type RequestContext,
  type RequestMiddleware,
  type RequestTarget,
  SECRETS_FINDINGS_KEY,
} from '@switchyard/core';
import { secretDetected, unscannable, type Where } from './errors.js';
import { inspect } from './inspect.js';
import type { ResolvedSecretsOptions } from './options.js';
import type { Scanner } from './scanner.js';
import type { WalkLimits } from './walker.js';

/**
 * The answers scanned under `results`: tool results (also when fetched as a task's result), prompt
 * messages, resource reads, completion values. Lists (the upstreams' catalogs) are not.
 */
export const RESULT_METHODS: ReadonlySet<string> = new Set([
  'tools/call',
  'tasks/result',
  'tasks/get',
  'prompts/get',
  'resources/read',
  'completion/complete',
]);

/** Requests whose params are not scanned under `arguments`: lists carry only a gateway-made cursor. */
const isList = (method: string) => method.endsWith('/list');

/** What the middleware reports (to metrics and the debug log): rule names, never a credential. */
export interface SecretsReport {
  found(where: Where, method: string, rules: readonly string[]): void;
  refused(where: Where, method: string, reason: 'secret_detected' | 'unscannable'): void;
}

/**
 * The request hook. With `arguments`, a request's params are scanned before `next()`: a credential
 * refuses the request (`secret_detected`), and `ctx.params` is replaced by its redacted copy, so that
 * the plugins outside this one (an audit log) never see the credential either. With `results`, the
 * answer is scanned after `next()`: credentials are redacted, or the answer is refused (`block`). An
 * error the upstream answered with is redacted likewise (or refused with `block`).
 */
export function secretsMiddleware(
  options: ResolvedSecretsOptions,
  scanner: Scanner,
  limits: WalkLimits,
  report: SecretsReport,
): RequestMiddleware {
  const scanArguments = options.scan.has('arguments');
  const scanResults = options.scan.has('results');

  const note = (ctx: RequestContext, rules: readonly string[]) => {
    const earlier = ctx.state.get(SECRETS_FINDINGS_KEY);
    const all = new Set([...(Array.isArray(earlier) ? (earlier as string[]) : []), ...rules]);
    ctx.state.set(SECRETS_FINDINGS_KEY, [...all].sort());
  };

  const refuse = (where: Where, ctx: RequestContext, error: GatewayError): Outcome => {
    report.refused(where, ctx.method, error.reason as 'secret_detected' | 'unscannable');
    return { ok: false, error };
  };

  const checkArguments = async (ctx: RequestContext): Promise<Outcome | undefined> => {
    const found = await inspect(ctx.params, scanner, limits);
    if (found.kind === 'clean') return undefined;
    if (found.kind === 'unscannable') {
      return refuse('arguments', ctx, unscannable(ctx.method, 'arguments', found.limit, limits));
    }
    report.found('arguments', ctx.method, found.rules);
    note(ctx, found.rules);
    ctx.params = found.redacted();
    // Where it was routed carries the same strings (a URI, a name): plugins before this one see no secret
    // there either (the audit record's upstreamUri, upstreamName).
    if (ctx.target) ctx.target = await redactedTarget(ctx.target);
    return refuse('arguments', ctx, secretDetected(ctx.method, 'arguments', found.rules));
  };

  /** `target` with what the scanner finds in its strings redacted (as it stands when nothing is found). */
  const redactedTarget = async (target: RequestTarget): Promise<RequestTarget> => {
    const found = await inspect(target, scanner, limits);
    return found.kind === 'found' ? found.redacted() : target;
  };

  const checkResult = async (ctx: RequestContext, outcome: Outcome): Promise<Outcome> => {
    const answer = outcome.ok ? outcome.result : { message: outcome.error.message, data: outcome.error.data };
    const found = await inspect(answer, scanner, limits, 'skip');
    if (found.kind === 'clean') return outcome;
    if (found.kind === 'unscannable') {
      return refuse('result', ctx, unscannable(ctx.method, 'result', found.limit, limits));
    }
    report.found('result', ctx.method, found.rules);
    note(ctx, found.rules);
    if (options.action === 'block')
      return refuse('result', ctx, secretDetected(ctx.method, 'result', found.rules));
    if (outcome.ok) return { ok: true, result: found.redacted() as Record<string, unknown> };
    const { message, data } = found.redacted() as { message: string; data: GatewayError['data'] };
    return { ok: false, error: new GatewayError(outcome.error.code, message, data) };
  };

  /**
   * What the upstream tells the caller while the request runs (its progress messages, its log messages)
   * is scanned like its answer, in order: a credential is redacted, or with `block` the message is dropped
   * (a progress update keeps its numbers). Settles once every message so far is delivered.
   */
  const scanRelayed = (ctx: RequestContext): (() => Promise<void>) => {
    let queue = Promise.resolve();
    const scanned = async <T>(value: T, method: string): Promise<T | undefined> => {
      const found = await inspect(value, scanner, limits, 'skip');
      if (found.kind === 'clean') return value;
      if (found.kind === 'unscannable') {
        report.refused('result', method, 'unscannable');
        return undefined;
      }
      report.found('result', method, found.rules);
      note(ctx, found.rules);
      return options.action === 'block' ? undefined : found.redacted();
    };
    const inOrder = (deliver: () => Promise<void>): Promise<void> => {
      const turn = queue.then(deliver);
      queue = turn.catch(() => {});
      return turn;
    };
    const notify = ctx.notifyRelated;
    ctx.notifyRelated = (method, params) =>
      inOrder(async () => {
        const clean = await scanned(params, method);
        if (clean) await notify(method, clean);
      });
    const progress = ctx.onProgress;
    if (progress) {
      ctx.onProgress = (update) =>
        void inOrder(async () => {
          if (update.message === undefined) return progress(update);
          const clean = await scanned(update, 'notifications/progress');
          const { message: _dropped, ...numbers } = update;
          progress(clean ?? numbers);
        });
    }
    return () => queue;
  };

  return async function secrets(ctx, next) {
    if (scanArguments && !isList(ctx.method)) {
      const refused = await checkArguments(ctx);
      if (refused) return refused;
    }
    // Every request's own channel is watched, not only the scanned answers': a log message about a call
    // goes out on its session's newest request in flight, which may be a list or a subscribe.
    const relayed = scanResults ? scanRelayed(ctx) : undefined;
    const outcome = await next();
    // What the upstream sent before its answer reaches the caller before the answer does.
    await relayed?.();
    if (!scanResults || !RESULT_METHODS.has(ctx.method)) return outcome;
    return checkResult(ctx, outcome);
  };
}
