import { metrics, trace } from '@opentelemetry/api';
import type { MetricReader } from '@opentelemetry/sdk-metrics';
import { CORE_VERSION, type Logger, redactUrl } from '@switchyard/core';
import type { TelemetryConfig } from './config/load.js';
import { signalUrl } from './otlp-endpoint.js';

export interface RunningTelemetry {
  /** The Prometheus scrape URL, when that exporter is on. */
  prometheusUrl?: string;
  /** Flushes what is buffered and unregisters the providers. */
  close(): Promise<void>;
}

const OFF: RunningTelemetry = { close: async () => {} };

/**
 * What to switch on: the config's `telemetry` section, else the environment. `OTEL_SDK_DISABLED=true`
 * turns everything off; `OTEL_EXPORTER_OTLP_ENDPOINT` turns on OTLP/HTTP export of traces and metrics;
 * `SWITCHYARD_PROMETHEUS_PORT` (and `SWITCHYARD_PROMETHEUS_HOST`) a Prometheus scrape endpoint;
 * `OTEL_SERVICE_NAME` names the service.
 */
export function resolveTelemetry(
  config: TelemetryConfig | undefined,
  env: NodeJS.ProcessEnv = process.env,
): TelemetryConfig | undefined {
  if (env.OTEL_SDK_DISABLED?.toLowerCase() === 'true') return undefined;
  const resolved: TelemetryConfig = {
    serviceName: config?.serviceName ?? env.OTEL_SERVICE_NAME ?? 'switchyard',
    otlp: config?.otlp,
    prometheus: config?.prometheus,
  };
  if (!resolved.otlp && env.OTEL_EXPORTER_OTLP_ENDPOINT) {
    resolved.otlp = { endpoint: env.OTEL_EXPORTER_OTLP_ENDPOINT, headers: {}, exportIntervalMs: 10_000 };
  }
  const port = env.SWITCHYARD_PROMETHEUS_PORT;
  if (!resolved.prometheus && port !== undefined && port !== '') {
    const parsed = Number(port);
    if (!Number.isInteger(parsed) || parsed < 0 || parsed > 65_535) {
      throw new Error(`SWITCHYARD_PROMETHEUS_PORT must be a port number (0-65535), got "${port}"`);
    }
    resolved.prometheus = {
      host: env.SWITCHYARD_PROMETHEUS_HOST ?? '127.0.0.1',
      port: parsed,
      path: '/metrics',
    };
  }
  return resolved.otlp || resolved.prometheus ? resolved : undefined;
}

/**
 * Registers OpenTelemetry SDK providers when telemetry is switched on. The SDK packages are imported
 * only then: with telemetry off the gateway runs on the API's no-op tracer and meter.
 */
export async function startTelemetry(
  config: TelemetryConfig | undefined,
  logger: Logger,
  env: NodeJS.ProcessEnv = process.env,
): Promise<RunningTelemetry> {
  const settings = resolveTelemetry(config, env);
  if (!settings) return OFF;
  const log = logger.child('telemetry');
  const [{ resourceFromAttributes }, { MeterProvider, PeriodicExportingMetricReader }] = await Promise.all([
    import('@opentelemetry/resources'),
    import('@opentelemetry/sdk-metrics'),
  ]);
  const resource = resourceFromAttributes({
    'service.name': settings.serviceName,
    'service.version': CORE_VERSION,
  });
  const readers: MetricReader[] = [];
  const shutdowns: (() => Promise<void>)[] = [];
  let prometheusUrl: string | undefined;

  if (settings.otlp) {
    const [{ NodeTracerProvider }, { BatchSpanProcessor }, { OTLPTraceExporter }, { OTLPMetricExporter }] =
      await Promise.all([
        import('@opentelemetry/sdk-trace-node'),
        import('@opentelemetry/sdk-trace-base'),
        import('@opentelemetry/exporter-trace-otlp-http'),
        import('@opentelemetry/exporter-metrics-otlp-http'),
      ]);
    const { endpoint } = settings.otlp;
    const headers = settings.otlp.headers;
    const tracerProvider = new NodeTracerProvider({
      resource,
      spanProcessors: [
        new BatchSpanProcessor(new OTLPTraceExporter({ url: signalUrl(endpoint, 'traces'), headers })),
      ],
    });
    tracerProvider.register();
    shutdowns.push(async () => {
      await tracerProvider.shutdown();
      trace.disable();
    });
    readers.push(
      new PeriodicExportingMetricReader({
        exporter: new OTLPMetricExporter({ url: signalUrl(endpoint, 'metrics'), headers }),
        exportIntervalMillis: settings.otlp.exportIntervalMs,
      }),
    );
    // The endpoint is logged as upstream URLs are (userinfo and query values masked), its headers (which
    // may hold credentials) not at all.
    log.info('exporting traces and metrics over OTLP/HTTP', { endpoint: redactUrl(endpoint) });
  }

  if (settings.prometheus) {
    const { PrometheusExporter } = await import('@opentelemetry/exporter-prometheus');
    const { host, port, path } = settings.prometheus;
    const exporter = await new Promise<InstanceType<typeof PrometheusExporter>>((resolve, reject) => {
      const created: InstanceType<typeof PrometheusExporter> = new PrometheusExporter(
        { host, port, endpoint: path },
        (error) =>
          error
            ? reject(new Error(`cannot serve Prometheus metrics on ${host}:${port}: ${error.message}`))
            : resolve(created),
      );
    });
    readers.push(exporter);
    prometheusUrl = `http://${host.includes(':') ? `[${host}]` : host}:${port}${path}`;
    log.info(`serving Prometheus metrics on ${prometheusUrl}`);
  }

  const meterProvider = new MeterProvider({ resource, readers });
  metrics.setGlobalMeterProvider(meterProvider);
  shutdowns.push(async () => {
    await meterProvider.shutdown();
    metrics.disable();
  });

  let closing: Promise<void> | undefined;
  return {
    prometheusUrl,
    close: () => {
      closing ??= flushWithin(shutdowns, FLUSH_BOUND_MS, log);
      return closing;
    },
  };
}

/**
 * How long stopping waits for the last spans and metrics to reach the collector. Each exporter's own
 * timeout is 10 s, one after the other: a collector that is down or hung held the exit for 16–20 s,
 * past the `shutdownGraceMs` an orchestrator's kill timeout is set by.
 */
export const FLUSH_BOUND_MS = 2_000;

/** Runs every shutdown at once; what has not finished within `boundMs` is given up (and said so). */
async function flushWithin(shutdowns: (() => Promise<void>)[], boundMs: number, log: Logger): Promise<void> {
  let timer: NodeJS.Timeout | undefined;
  const bound = new Promise<'late'>((resolve) => {
    timer = setTimeout(() => resolve('late'), boundMs);
  });
  const done = Promise.all(
    shutdowns.map((shutdown) =>
      shutdown().catch((error) => log.warn('telemetry shutdown failed', { error: String(error) })),
    ),
  );
  const outcome = await Promise.race([done, bound]);
  clearTimeout(timer);
  if (outcome === 'late') {
    log.warn(
      `telemetry: the collector did not take the last spans and metrics within ${boundMs} ms; dropped`,
    );
    trace.disable();
    metrics.disable();
  }
}
