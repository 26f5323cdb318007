import {
  GatewayError,
  type Logger,
  NOT_EXPOSED_KEY,
  type Outcome,
  type PluginGateway,
  type RequestContext,
  type UpstreamCallContext,
  uriReadings,
} from '@switchyard/core';
import { screenCompletion } from './completion.js';
import { ListFilter } from './list-filter.js';
import { LIST_METHODS } from './options.js';
import type { AccessPolicy, Decision } from './policy.js';
import { screenSkillResult } from './skills.js';
import { decideTarget, ITEM_METHOD, type Target, targetOf } from './targets.js';
import { screenTaskList, screenTaskResult } from './tasks.js';
import { type MayRead, type Screened, withholdReadContents, withholdResources } from './withhold.js';

/** Counts what the plugin refuses and hides (OpenTelemetry counters, or no-ops). */
export interface AccessMetrics {
  denied(method: string): void;
  /** List items hidden, or resources withheld from a result, by the rules. */
  hidden(method: string, count: number): void;
}

const SHOWN_LIMIT = 200;
/** A skill entry naming a file the caller may not read: refused whole, as a listing hides it. */
const DENIED_BY_FILES: Decision = { effect: 'deny', rule: undefined };
/** The gateway's not-found reasons, and the list each points to (a Map: a reason may be an upstream's own). */
const NOT_FOUND: ReadonlyMap<string, 'tools' | 'prompts'> = new Map([
  ['tool_not_found', 'tools'],
  ['prompt_not_found', 'prompts'],
]);
/** Results that may hold resources (or values naming them) the caller may not read, by method. */
const RESULT_SCREENS = new Map<
  string,
  (ctx: RequestContext, result: Record<string, unknown>, mayRead: MayRead) => Screened
>([
  ['tools/call', (ctx, result, mayRead) => withholdResources(ctx.method, result, mayRead)],
  ['prompts/get', (ctx, result, mayRead) => withholdResources(ctx.method, result, mayRead)],
  ['resources/read', (ctx, result, mayRead) => withholdReadContents(ctx.params.uri, result, mayRead)],
  ['completion/complete', (ctx, result, mayRead) => screenCompletion(ctx.params, result, mayRead)],
  // A task's result is its tool call's; 2026-07-28 inlines it in tasks/get.
  ['tasks/result', (_ctx, result, mayRead) => withholdResources('tools/call', result, mayRead)],
  ['tasks/get', (_ctx, result, mayRead) => screenTaskResult(result, mayRead)],
]);

/**
 * Applies an {@link AccessPolicy}: refuses denied requests (reads, subscriptions, tool calls, prompt
 * gets, completions, list requests), filters the upstream pages of list calls, and keeps results and
 * errors from revealing what the caller may not use.
 */
export class AccessGuard {
  readonly #policy: AccessPolicy;
  readonly #gateway: PluginGateway;
  readonly #log: Logger;
  readonly #metrics: AccessMetrics;
  readonly #lists: ListFilter;

  constructor(policy: AccessPolicy, gateway: PluginGateway, log: Logger, metrics: AccessMetrics) {
    this.#policy = policy;
    this.#gateway = gateway;
    this.#log = log;
    this.#metrics = metrics;
    this.#lists = new ListFilter(policy, gateway, (method, count) => metrics.hidden(method, count));
  }

  /** Request middleware: refuses denied requests with `forbidden` before anything else sees them. */
  async request(ctx: RequestContext, next: () => Promise<Outcome>): Promise<Outcome> {
    // The gateway refuses it as an unknown name or URI (its endpoint hides it, or tool search's call_tool
    // named a tool this caller cannot list): judging it would tell "forbidden" from "unknown".
    if (ctx.state.get(NOT_EXPOSED_KEY) === true) return next();
    if (LIST_METHODS.has(ctx.method)) {
      const decision = this.#policy.decideListRequest(ctx.identity, ctx.method);
      return decision.effect === 'allow' ? next() : this.#refuse(ctx, undefined, decision);
    }
    const target = targetOf(ctx, this.#gateway);
    if (target !== undefined) {
      const decision = decideTarget(this.#policy, ctx, target);
      if (decision.effect === 'deny') return this.#refuse(ctx, target, decision);
    }
    return this.#screen(ctx, await next());
  }

  /**
   * Upstream-call middleware: filters the pages of list calls made for a client, and refuses a tool
   * call, prompt get or prompt completion the caller may not make on the upstream it actually reaches
   * (the last check before the upstream). Gateway-internal calls are left alone.
   */
  async upstreamCall(call: UpstreamCallContext, next: () => Promise<Outcome>): Promise<Outcome> {
    const request = call.request;
    if (request === undefined) return next();
    if (this.#lists.handles(call.method)) return this.#lists.filter(call, request, next);
    const target = targetOf(request, this.#gateway);
    if (target !== undefined && target.kind !== 'resource' && call.method === request.method) {
      const decision = decideTarget(this.#policy, request, { ...target, servers: [call.upstream] });
      if (decision.effect === 'deny') return this.#refuse(request, target, decision);
    }
    return next();
  }

  /**
   * What an answered request may show: resources a tool result or prompt links or embeds, and other
   * resources' contents in a read, only when the caller may read them; completion values of a template
   * only when they lead to a resource it may read; a skill entry or directory child only when it may be
   * read; and an unknown tool or prompt is reported without the gateway's sample of existing names (some
   * may be denied to this caller).
   */
  #screen(ctx: RequestContext, outcome: Outcome): Outcome {
    if (!outcome.ok) return this.#screenError(ctx, outcome);
    if (ctx.method === 'skills/get' || ctx.method === 'resources/directory/read') {
      const screened = screenSkillResult(ctx.method, outcome.result, (uri) => this.#mayRead(ctx, uri));
      if (screened.refused) return this.#refuse(ctx, targetOf(ctx, this.#gateway), DENIED_BY_FILES);
      if (screened.hidden > 0) this.#metrics.hidden(ctx.method, screened.hidden);
      return { ok: true, result: screened.result };
    }
    if (ctx.method === 'tasks/list') {
      const screened = screenTaskList(ctx, outcome.result, this.#gateway, (route) =>
        this.#policy.decideServers(
          { identity: ctx.identity, method: ITEM_METHOD.tool, tool: route.exposed, arguments: 'pending' },
          [route.upstream],
        ),
      );
      if (screened.withheld > 0) this.#metrics.hidden(ctx.method, screened.withheld);
      return screened.withheld === 0 ? outcome : { ok: true, result: screened.result };
    }
    const screen = RESULT_SCREENS.get(ctx.method);
    if (screen === undefined) return outcome;
    const { result, withheld } = screen(ctx, outcome.result, (uri) => this.#mayRead(ctx, uri));
    if (withheld > 0) this.#metrics.hidden(ctx.method, withheld);
    // When the rules depend on who asks, so does this answer: not for shared caches (as list pages).
    if (this.#policy.identityDependent && result.cacheScope === 'public') {
      return { ok: true, result: { ...result, cacheScope: 'private' } };
    }
    return withheld === 0 ? outcome : { ok: true, result };
  }

  #screenError(ctx: RequestContext, outcome: Outcome & { ok: false }): Outcome {
    const kind = NOT_FOUND.get(String(outcome.error.data?.reason));
    if (kind === undefined) return outcome;
    const name = abbreviate(String(outcome.error.data?.name ?? ctx.params.name));
    const noun = kind.slice(0, -1);
    const error = new GatewayError(
      outcome.error.code,
      `Unknown ${noun} '${name}'. Call ${kind}/list for the ${kind} this client may use (names are exposed as <server>__<${noun}>).`,
      { reason: outcome.error.data?.reason, name },
    );
    return { ok: false, error };
  }

  #mayRead(ctx: RequestContext, exposedUri: string): boolean {
    const subject = {
      identity: ctx.identity,
      method: ITEM_METHOD.resource,
      server: this.#gateway.route(exposedUri)?.upstream,
    };
    return this.#policy.decideReadings(subject, uriReadings(exposedUri)).effect === 'allow';
  }

  #refuse(ctx: RequestContext, target: Target | undefined, decision: Decision): Outcome {
    this.#metrics.denied(ctx.method);
    const shown = target === undefined ? undefined : abbreviate(target.shown);
    // The target as the client named it: `uri` for resources and templates, `name` for tools and prompts.
    const named = shown === undefined ? {} : { [target?.kind === 'resource' ? 'uri' : 'name']: shown };
    this.#log.debug('access denied', {
      identity: ctx.identity.id,
      method: ctx.method,
      ...named,
      rule: decision.rule,
      description: this.#policy.describe(decision.rule),
    });
    const what = shown === undefined ? '' : ` on ${shown}`;
    const why =
      target?.kind === 'resource' && target.readings === undefined
        ? ' The URI cannot be checked (it needs a scheme, well-formed percent-encoding and no control characters), so it is refused.'
        : '';
    return {
      ok: false,
      error: GatewayError.forbidden(
        `Forbidden: client '${ctx.identity.id}' may not call ${ctx.method}${what}.${why} Ask the gateway operator if you need access.`,
        { method: ctx.method, ...named },
      ),
    };
  }
}

function abbreviate(text: string): string {
  return text.length <= SHOWN_LIMIT ? text : `${text.slice(0, SHOWN_LIMIT)}…`;
}
