import {
  type Attributes,
  type Counter,
  createNoopMeter,
  type Histogram,
  isSpanContextValid,
  type Meter,
  metrics,
  type Span,
  SpanKind,
  SpanStatusCode,
  type Tracer,
  trace,
} from '@opentelemetry/api';
import type { RequestContext, RequestTarget } from './context.js';
import type { GatewayError } from './errors.js';
import { clipped } from './stats/clip.js';
import { requestTarget } from './stats/target.js';
import { CORE_VERSION } from './version.js';

/** The instrumentation scope every Switchyard span and metric is reported under. */
export const TELEMETRY_SCOPE = 'switchyard';

/**
 * The tracer and meter from the global OpenTelemetry API. Until an app registers providers (see the
 * gateway's `telemetry` config) both are the API's no-ops, which cost a function call and allocate
 * nothing worth measuring. Providers must be registered before the Gateway is built.
 */
export function telemetryApi(): { tracer: Tracer; meter: Meter } {
  return {
    tracer: trace.getTracer(TELEMETRY_SCOPE, CORE_VERSION),
    meter: metrics.getMeter(TELEMETRY_SCOPE, CORE_VERSION),
  };
}

export interface GaugeSources {
  sessions(): number;
  subscriptions(): number;
  upstreams(): readonly { name: string; ready: boolean }[];
}

/**
 * What `mcp.method.name` says, in metrics and span names, of a method the gateway does not answer (as
 * OpenTelemetry's `http.request.method` says `_OTHER`): the client chooses the method, and each distinct
 * one would otherwise be a new series, kept for the life of the process.
 */
export const OTHER_METHOD = '_OTHER';

/** The protocol's own requests, which the SDK answers (the gateway's features answer the rest it knows). */
const PROTOCOL_METHODS: ReadonlySet<string> = new Set(['initialize', 'ping', 'logging/setLevel']);

/** How much of an unknown method a span keeps (`switchyard.method.original`), control characters replaced. */
const ORIGINAL_METHOD_CHARS = 256;

/** The gateway's own spans and metrics: one span per downstream request, a child per upstream call. */
export class GatewayTelemetry {
  readonly tracer: Tracer;
  readonly meter: Meter;
  readonly #requests: Counter;
  readonly #requestDuration: Histogram;
  readonly #upstreamCalls: Counter;
  readonly #upstreamDuration: Histogram;
  readonly #answers: (method: string) => boolean;
  /** Whether an SDK is registered for traces / for metrics (decided once: providers come first). */
  readonly tracing: boolean;
  readonly metering: boolean;

  /** `answers`: whether a feature of the gateway answers a method (others are recorded as {@link OTHER_METHOD}). */
  constructor(gauges: GaugeSources, answers: (method: string) => boolean) {
    this.#answers = answers;
    const { tracer, meter } = telemetryApi();
    this.tracer = tracer;
    this.meter = meter;
    // A no-op tracer hands out spans with an invalid context; the probe is never ended, so an SDK never
    // exports it.
    this.tracing = isSpanContextValid(tracer.startSpan('switchyard.probe').spanContext());
    this.#requests = meter.createCounter('switchyard.requests', {
      description: 'Downstream requests handled, by method and outcome',
    });
    this.#requestDuration = meter.createHistogram('switchyard.request.duration', {
      description: 'Downstream request latency',
      unit: 'ms',
    });
    this.#upstreamCalls = meter.createCounter('switchyard.upstream.calls', {
      description: 'Calls made to upstream servers, by upstream, method and outcome',
    });
    this.#upstreamDuration = meter.createHistogram('switchyard.upstream.call.duration', {
      description: 'Upstream call latency',
      unit: 'ms',
    });
    this.metering = this.#requests.constructor !== createNoopMeter().createCounter('probe').constructor;
    meter
      .createObservableGauge('switchyard.sessions', { description: 'Open downstream sessions' })
      .addCallback((result) => result.observe(gauges.sessions()));
    meter
      .createObservableGauge('switchyard.subscriptions', {
        description: 'Upstream resource subscriptions held (per upstream and URI)',
      })
      .addCallback((result) => result.observe(gauges.subscriptions()));
    meter
      .createObservableGauge('switchyard.upstream.up', {
        description: '1 while an upstream is connected, 0 while it is down',
      })
      .addCallback((result) => {
        for (const u of gauges.upstreams())
          result.observe(u.ready ? 1 : 0, { 'switchyard.upstream': u.name });
      });
  }

  /** Whether anything is collected at all (when not, callers skip the wrappers entirely). */
  get enabled(): boolean {
    return this.tracing || this.metering;
  }

  /**
   * Runs a downstream request inside its span and records its metrics. `attributes` describes the span;
   * it is called only when tracing is on, once the request is done: what the request names is exported as
   * the plugins left it (a credential the secrets plugin redacted in `ctx.params` is exported redacted,
   * as the status page records it), not as the client sent it.
   */
  async request<T extends { ok: true } | { ok: false; error: GatewayError }>(
    method: string,
    attributes: () => Attributes,
    run: () => Promise<T>,
  ): Promise<T> {
    const label = this.methodLabel(method);
    if (!this.tracing) return this.metering ? this.#measured(label, run) : run();
    const started = performance.now();
    const named: Attributes = { 'mcp.method.name': label };
    if (label !== method) named['switchyard.method.original'] = originalMethod(method);
    return this.tracer.startActiveSpan(
      `mcp ${label}`,
      { kind: SpanKind.SERVER, attributes: named },
      async (span) => {
        let outcome: T | undefined;
        try {
          const result = await run();
          outcome = result;
          return result;
        } finally {
          span.setAttributes(attributes());
          if (outcome && !outcome.ok) endWithError(span, outcome.error.message, outcome.error.code);
          else if (!outcome) endWithError(span, 'request threw', -32603);
          else span.end();
          this.#recordRequest(label, outcome, started);
        }
      },
    );
  }

  /** The method as metrics and span names record it: as it is when the gateway answers it, else `_OTHER`. */
  methodLabel(method: string): string {
    return PROTOCOL_METHODS.has(method) || this.#answers(method) ? method : OTHER_METHOD;
  }

  /** Metrics without spans (e.g. only a Prometheus endpoint is on). */
  async #measured<T extends { ok: true } | { ok: false; error: GatewayError }>(
    method: string,
    run: () => Promise<T>,
  ): Promise<T> {
    const started = performance.now();
    const outcome = await run();
    this.#recordRequest(method, outcome, started);
    return outcome;
  }

  /** Counts a request by method, outcome and error reason (undefined outcome: it threw) and its latency. */
  #recordRequest(
    method: string,
    outcome: { ok: true } | { ok: false; error: GatewayError } | undefined,
    started: number,
  ): void {
    const labels: Attributes = { 'mcp.method.name': method, outcome: outcome?.ok ? 'ok' : 'error' };
    if (outcome && !outcome.ok)
      labels['error.type'] = String(outcome.error.data?.reason ?? outcome.error.code);
    this.#requests.add(1, labels);
    this.#requestDuration.record(performance.now() - started, { 'mcp.method.name': method });
  }

  /** Runs one upstream call inside a child span of the current request's span. */
  async upstreamCall<T>(upstream: string, method: string, run: () => Promise<T>): Promise<T> {
    if (!this.enabled) return run();
    const started = performance.now();
    return this.tracer.startActiveSpan(
      `mcp ${method} ${upstream}`,
      { kind: SpanKind.CLIENT, attributes: { 'mcp.method.name': method, 'switchyard.upstream': upstream } },
      async (span) => {
        let outcome = 'error';
        try {
          const result = await run();
          outcome = 'ok';
          span.end();
          return result;
        } catch (error) {
          const e = error as { message?: string; code?: unknown };
          endWithError(span, String(e?.message ?? error), typeof e?.code === 'number' ? e.code : undefined);
          throw error;
        } finally {
          const labels = { 'switchyard.upstream': upstream, 'mcp.method.name': method, outcome };
          this.#upstreamCalls.add(1, labels);
          this.#upstreamDuration.record(performance.now() - started, labels);
        }
      },
    );
  }
}

/** An unknown method as its span keeps it: clipped, each control character (a newline, ANSI escapes) as U+FFFD. */
function originalMethod(method: string): string {
  // biome-ignore lint/suspicious/noControlCharactersInRegex: control characters are what is replaced
  return clipped(method, ORIGINAL_METHOD_CHARS).replace(/[\u0000-\u001f\u007f-\u009f]/g, '\ufffd');
}

/** Ends `span` as failed; the message (an upstream's, or one quoting what the client sent) clipped. */
function endWithError(span: Span, message: string, code: number | undefined): void {
  span.setStatus({ code: SpanStatusCode.ERROR, message: clipped(message) });
  if (code !== undefined) span.setAttribute('rpc.jsonrpc.error_code', code);
  span.end();
}

/** The attribute that names what a request addressed, by the kind of item it was routed to. */
const TARGET_ATTRIBUTE: Readonly<Record<RequestTarget['kind'], string | undefined>> = {
  resource: 'mcp.resource.uri',
  template: undefined,
  tool: 'gen_ai.tool.name',
  prompt: 'mcp.prompt.name',
};

/**
 * The span attributes of one downstream request: who asked, what it names (the status page's `target`,
 * clipped), where it was routed.
 */
export function requestAttributes(ctx: RequestContext): Record<string, string> {
  const described: Record<string, string> = {
    'switchyard.session': ctx.session.id,
    'switchyard.identity': clipped(ctx.identity.id),
  };
  const key = ctx.target
    ? TARGET_ATTRIBUTE[ctx.target.kind]
    : typeof ctx.params.uri === 'string'
      ? 'mcp.resource.uri'
      : undefined;
  const target = key && requestTarget(ctx);
  if (key && target !== undefined) described[key] = target;
  if (ctx.target?.upstream) described['switchyard.upstream'] = ctx.target.upstream;
  return described;
}
