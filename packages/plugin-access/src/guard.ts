import {
  GatewayError,
  type Logger,
  type Outcome,
  type PluginGateway,
  type RequestContext,
  type UpstreamCall,
} from '@switchyard/core';
import { uriReadings } from './normalize.js';
import { type AccessPolicy, type Decision, LIST_METHODS } from './policy.js';

/** Where list items live in a page, and which field names each item. */
const LIST_FIELDS: Readonly<Record<string, { field: string; uriField: string; template: boolean }>> = {
  'resources/list': { field: 'resources', uriField: 'uri', template: false },
  'resources/templates/list': { field: 'resourceTemplates', uriField: 'uriTemplate', template: true },
};

/** What a guarded request targets. */
interface Target {
  /** The target as the client wrote it (for messages), if it has one. */
  shown: string | undefined;
  server: string | undefined;
  /** Canonical readings; undefined = not canonicalizable (denied). Empty array = no URI (prompt refs). */
  readings: readonly string[] | undefined;
}

/** Counts what the plugin refuses and hides (OpenTelemetry counters, or no-ops). */
export interface AccessMetrics {
  denied(method: string): void;
  hidden(method: string, count: number): void;
}

const SHOWN_URI_LIMIT = 200;

/**
 * Applies an {@link AccessPolicy} to requests (read, subscribe, completion, list requests) and to the
 * upstream pages of list calls (filtering items the caller may not read).
 */
export class AccessGuard {
  readonly #policy: AccessPolicy;
  readonly #gateway: PluginGateway;
  readonly #log: Logger;
  readonly #metrics: AccessMetrics;

  constructor(policy: AccessPolicy, gateway: PluginGateway, log: Logger, metrics: AccessMetrics) {
    this.#policy = policy;
    this.#gateway = gateway;
    this.#log = log;
    this.#metrics = metrics;
  }

  /** Request middleware: refuses denied requests with `forbidden` before anything else sees them. */
  async request(ctx: RequestContext, next: () => Promise<Outcome>): Promise<Outcome> {
    if (LIST_METHODS.has(ctx.method)) {
      const decision = this.#policy.decideListRequest(ctx.identity, ctx.method);
      return decision.effect === 'allow' ? next() : this.#refuse(ctx, undefined, decision);
    }
    const target = this.#targetOf(ctx);
    if (target === undefined) return next();
    const decision = this.#policy.decideReadings(
      { identity: ctx.identity, method: ctx.method, server: target.server },
      target.readings,
    );
    return decision.effect === 'allow' ? next() : this.#refuse(ctx, target, decision);
  }

  /**
   * Upstream-call middleware: on list calls made for a client, keeps only the items that client may read,
   * and fetches the upstream's following pages while filtering leaves a page empty, so a client never gets
   * an empty page with a cursor because of filtering. Gateway-internal calls are left alone.
   */
  async upstreamCall(
    call: UpstreamCall,
    next: (params?: Record<string, unknown>) => Promise<Record<string, unknown>>,
  ): Promise<Record<string, unknown>> {
    const request = call.request;
    const kind = LIST_FIELDS[call.method];
    if (request === undefined || kind === undefined) return next();
    let page = await next();
    for (let skipped = 0; ; skipped++) {
      const items = Array.isArray(page[kind.field]) ? (page[kind.field] as unknown[]) : [];
      const kept = items.filter((item) => this.#mayRead(request, call.upstream, item, kind));
      if (kept.length < items.length) this.#metrics.hidden(call.method, items.length - kept.length);
      const cursor = page.nextCursor;
      const more = typeof cursor === 'string' && cursor.length > 0;
      if (kept.length > 0 || !more || skipped >= this.#policy.maxSkippedPages) {
        return this.#filtered(page, kind.field, kept);
      }
      if (request.signal.aborted) throw GatewayError.cancelled(request.method);
      page = await next({ ...call.params, cursor });
    }
  }

  #mayRead(
    request: RequestContext,
    upstream: string,
    item: unknown,
    kind: { uriField: string; template: boolean },
  ): boolean {
    if (typeof item !== 'object' || item === null) return false;
    const raw = (item as Record<string, unknown>)[kind.uriField];
    if (typeof raw !== 'string') return false;
    const readings = uriReadings(this.#gateway.exposeUri(upstream, raw), { template: kind.template });
    const subject = { identity: request.identity, method: 'resources/read', server: upstream };
    return this.#policy.decideReadings(subject, readings).effect === 'allow';
  }

  /** The page with only `kept`; a page whose content depends on the caller must not be cached as public. */
  #filtered(page: Record<string, unknown>, field: string, kept: unknown[]): Record<string, unknown> {
    const result: Record<string, unknown> = { ...page, [field]: kept };
    if (this.#policy.identityDependent && typeof page.cacheScope === 'string') result.cacheScope = 'private';
    return result;
  }

  /** The target of a guarded method; undefined for what is not guarded or malformed (the gateway answers it). */
  #targetOf(ctx: RequestContext): Target | undefined {
    switch (ctx.method) {
      case 'resources/read':
      case 'resources/subscribe': {
        const uri = ctx.params.uri;
        if (typeof uri !== 'string' || uri.length === 0) return undefined;
        return { shown: uri, server: this.#gateway.route(uri)?.upstream, readings: uriReadings(uri) };
      }
      case 'completion/complete':
        return this.#completionTarget(ctx.params.ref);
      default:
        return undefined;
    }
  }

  /**
   * `ref/resource`: the template URI (canonicalized as a template); `ref/prompt`: no URI. The server
   * is the one the gateway will send the completion to (prefixed or not).
   */
  #completionTarget(ref: unknown): Target | undefined {
    if (typeof ref !== 'object' || ref === null) return undefined;
    const { type, uri, name } = ref as Record<string, unknown>;
    if (type === 'ref/resource' && typeof uri === 'string' && uri.length > 0) {
      return {
        shown: uri,
        server: this.#gateway.completionTarget(ref),
        readings: uriReadings(uri, { template: true }),
      };
    }
    if (type === 'ref/prompt' && typeof name === 'string' && name.length > 0) {
      return { shown: name, server: this.#gateway.completionTarget(ref), readings: [] };
    }
    return undefined;
  }

  #refuse(ctx: RequestContext, target: Target | undefined, decision: Decision): Outcome {
    this.#metrics.denied(ctx.method);
    const shown = target?.shown === undefined ? undefined : abbreviate(target.shown);
    this.#log.debug('access denied', {
      identity: ctx.identity.id,
      method: ctx.method,
      uri: shown,
      rule: decision.rule,
      description: this.#policy.describe(decision.rule),
    });
    const what = shown === undefined ? '' : ` on ${shown}`;
    const why =
      target !== undefined && target.readings === undefined
        ? ' The URI cannot be checked (it needs a scheme, well-formed percent-encoding and no control characters), so it is refused.'
        : '';
    return {
      ok: false,
      error: GatewayError.forbidden(
        `Forbidden: client '${ctx.identity.id}' may not call ${ctx.method}${what}.${why} Ask the gateway operator if you need access.`,
        shown === undefined ? { method: ctx.method } : { method: ctx.method, uri: shown },
      ),
    };
  }
}

function abbreviate(text: string): string {
  return text.length <= SHOWN_URI_LIMIT ? text : `${text.slice(0, SHOWN_URI_LIMIT)}…`;
}
