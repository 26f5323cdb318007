import { createServer, type IncomingMessage } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterEach, describe, expect, it } from 'vitest';
import { z } from 'zod';
import { resolveTelemetry } from '../src/telemetry.js';
import {
  Cleanup,
  connectHttp,
  eventually,
  freePort,
  httpUpstream,
  loopbackServer,
  startGateway,
} from './support/harness.js';

// Telemetry: a span per downstream request with a child per upstream call, exported over OTLP/HTTP to
// a collector stand-in on loopback, and metrics on a Prometheus scrape endpoint; both switchable by
// config or environment, and off by default.

const cleanup = new Cleanup();
afterEach(() => cleanup.run());

interface OtlpSpan {
  traceId: string;
  spanId: string;
  parentSpanId?: string;
  name: string;
  kind: number;
  attributes: { key: string; value: Record<string, unknown> }[];
}

/** A minimal OTLP/HTTP (JSON) collector: records every span and metric name it is sent, and every body. */
async function collector() {
  const spans: OtlpSpan[] = [];
  const metricNames = new Set<string>();
  const bodies: string[] = [];
  const paths: string[] = [];
  const url = await loopbackServer(cleanup, async (req: IncomingMessage, res) => {
    paths.push(req.url ?? '');
    const chunks: Buffer[] = [];
    for await (const chunk of req) chunks.push(chunk as Buffer);
    const text = Buffer.concat(chunks).toString('utf8');
    bodies.push(text);
    const body = JSON.parse(text || '{}');
    if (req.url === '/v1/traces') {
      for (const rs of body.resourceSpans ?? [])
        for (const ss of rs.scopeSpans ?? []) spans.push(...(ss.spans ?? []));
    } else if (req.url === '/v1/metrics') {
      for (const rm of body.resourceMetrics ?? [])
        for (const sm of rm.scopeMetrics ?? []) for (const m of sm.metrics ?? []) metricNames.add(m.name);
    }
    res.writeHead(200, { 'content-type': 'application/json' }).end('{}');
  });
  return { url, spans, metricNames, bodies, paths };
}

const FAST_EXPORT = { OTEL_BSP_SCHEDULE_DELAY: '50' };

async function readThrough(url: string) {
  const client = await connectHttp(cleanup, url, 'otel-client');
  await client.request({ method: 'resources/read', params: { uri: 'docs+test://docs/r/1' } });
  return client;
}

describe('telemetry', () => {
  it('exports a server span per request with a child client span per upstream call over OTLP', async () => {
    const otlp = await collector();
    const docs = await httpUpstream(cleanup, { name: 'docs', resources: 2 });
    const gw = await startGateway(
      cleanup,
      {
        listen: { http: { host: '127.0.0.1', port: 0, path: '/mcp' } },
        mcpServers: { docs: { url: docs.url } },
        telemetry: { serviceName: 'sy-test', otlp: { endpoint: otlp.url, exportIntervalMs: 100 } },
      },
      { env: FAST_EXPORT },
    );
    await readThrough(gw.url);
    const [server, client] = await eventually(() => {
      const parent = otlp.spans.find((s) => s.name === 'mcp resources/read');
      const child = otlp.spans.find((s) => s.name === 'mcp resources/read docs');
      return parent && child ? [parent, child] : undefined;
    }, 'the read and its upstream call exported as spans');
    expect(client!.traceId).toBe(server!.traceId);
    expect(client!.parentSpanId).toBe(server!.spanId);
    expect(server!.kind).toBe(2); // SERVER
    expect(client!.kind).toBe(3); // CLIENT
    const attr = (span: OtlpSpan, key: string) => span.attributes.find((a) => a.key === key)?.value;
    expect(attr(server!, 'mcp.resource.uri')).toEqual({ stringValue: 'docs+test://docs/r/1' });
    expect(attr(client!, 'switchyard.upstream')).toEqual({ stringValue: 'docs' });
    await eventually(
      () =>
        ['switchyard.requests', 'switchyard.upstream.calls'].every((m) => otlp.metricNames.has(m)) ||
        undefined,
      'request metrics exported over OTLP',
    );
  });

  it('exports what a request named as the plugins left it: a credential the secrets plugin redacted is not in any span', async () => {
    // Found from outside: the secrets plugin refused the request and the status page showed the credential
    // redacted, but the span (attributes set at its start, before the plugins ran) exported it as sent.
    const token = ['ghp', 'wWPw5k4aXcaT4fNP0UcnZwJUVFk6LO0pINUx'].join('_');
    const otlp = await collector();
    const docs = await httpUpstream(cleanup, { name: 'docs', resources: 2, prompts: 1 });
    const gw = await startGateway(
      cleanup,
      {
        listen: { http: { host: '127.0.0.1', port: 0, path: '/mcp' } },
        mcpServers: { docs: { url: docs.url } },
        telemetry: { otlp: { endpoint: otlp.url, exportIntervalMs: 100 } },
        plugins: [['@switchyard/plugin-secrets', {}]],
      },
      { env: FAST_EXPORT },
    );
    const client = await connectHttp(cleanup, gw.url, 'otel-client');
    const refused = { code: -32010, data: { reason: 'secret_detected' } };
    await expect(
      client.request({ method: 'resources/read', params: { uri: `docs+test://docs/r/0?t=${token}` } }),
    ).rejects.toMatchObject(refused);
    await expect(
      client.request({ method: 'prompts/get', params: { name: `docs__${token}` } }),
    ).rejects.toMatchObject(refused);
    // A URI of 100,000 characters is exported cut at 1024, with the mark.
    const long = `docs+test://docs/r/${'x'.repeat(100_000)}`;
    await expect(client.request({ method: 'resources/read', params: { uri: long } })).rejects.toBeTruthy();
    const attr = (span: OtlpSpan, key: string) => span.attributes.find((a) => a.key === key)?.value;
    const [read, prompt, longRead] = await eventually(() => {
      const reads = otlp.spans.filter((s) => s.name === 'mcp resources/read');
      const got = [
        reads.find((s) => String(attr(s, 'mcp.resource.uri')?.stringValue).includes('?t=')),
        otlp.spans.find((s) => s.name === 'mcp prompts/get'),
        reads.find((s) => String(attr(s, 'mcp.resource.uri')?.stringValue).includes('xxx')),
      ];
      return got.every(Boolean) ? got : undefined;
    }, 'the refused read, the refused prompt and the long read exported as spans');
    expect(attr(read!, 'mcp.resource.uri')).toEqual({
      stringValue: 'docs+test://docs/r/0?t=[REDACTED:github]',
    });
    expect(String(attr(prompt!, 'mcp.prompt.name')?.stringValue ?? '')).not.toContain(token);
    expect(attr(longRead!, 'mcp.resource.uri')).toEqual({ stringValue: `${long.slice(0, 1024)}…` });
    for (const body of otlp.bodies) expect(body).not.toContain(token);
    expect(otlp.bodies.join('').length).toBeLessThan(50_000);
  });

  it('exports to <endpoint path>/v1/<signal> with its query kept, and logs the endpoint masked', async () => {
    // Found from outside: `…/v1base?key=K2` had the collector sent `POST /v1base?key=K2/v1/metrics`, and
    // the endpoint's userinfo and query values were logged at INFO as configured.
    const otlp = await collector();
    const endpoint = `${otlp.url.replace('://', '://otuser:OTLPPASS_e2e9@')}/v1base?key=OTLPKEY_e2e9`;
    const gw = await startGateway(
      cleanup,
      { mcpServers: {}, telemetry: { otlp: { endpoint, exportIntervalMs: 100 } } },
      { env: FAST_EXPORT },
    );
    await eventually(
      () => otlp.paths.includes('/v1base/v1/metrics?key=OTLPKEY_e2e9'),
      'metrics exported under the endpoint path, its query kept',
    );
    const port = new URL(otlp.url).port;
    expect(gw.stderr()).toContain(`endpoint="http://***:***@127.0.0.1:${port}/v1base?key=***"`);
    expect(gw.stderr()).not.toMatch(/OTLPPASS_e2e9|OTLPKEY_e2e9/);
  });

  it('stops without waiting out a collector that never answers: the last spans are given up after a bound', async () => {
    // Found from outside: with the collector down or hung, stopping took 16–20 s (each exporter's own 10 s
    // timeout, one after the other), past the shutdownGraceMs an orchestrator's kill timeout is set by.
    const sockets = new Set<import('node:net').Socket>();
    const hung = createServer(() => {}); // reads the export, never answers it
    hung.on('connection', (socket) => sockets.add(socket));
    await new Promise<void>((resolve) => hung.listen(0, '127.0.0.1', resolve));
    cleanup.add(
      () =>
        new Promise<void>((resolve) => {
          for (const socket of sockets) socket.destroy();
          hung.close(() => resolve());
        }),
    );
    const docs = await httpUpstream(cleanup, { name: 'docs', resources: 2 });
    const gw = await startGateway(cleanup, {
      listen: { http: { host: '127.0.0.1', port: 0, path: '/mcp' } },
      mcpServers: { docs: { url: docs.url } },
      telemetry: {
        otlp: {
          endpoint: `http://127.0.0.1:${(hung.address() as AddressInfo).port}`,
          exportIntervalMs: 60_000,
        },
      },
    });
    await readThrough(gw.url);
    expect(await gw.stop()).toBe(0);
    expect(gw.stderr()).toMatch(
      /the collector did not take the last spans and metrics within 2000 ms; dropped/,
    );
  });

  it('serves request, error, latency, upstream, session and subscription metrics to Prometheus', async () => {
    const docs = await httpUpstream(cleanup, { name: 'docs', resources: 2 });
    const port = await freePort();
    const gw = await startGateway(cleanup, {
      listen: { http: { host: '127.0.0.1', port: 0, path: '/mcp' } },
      mcpServers: { docs: { url: docs.url } },
      telemetry: { prometheus: { port } },
    });
    const client = await readThrough(gw.url);
    await expect(
      client.request({ method: 'resources/read', params: { uri: 'nobody+test://x' } }),
    ).rejects.toBeTruthy();
    await client.request({ method: 'resources/subscribe', params: { uri: 'docs+test://docs/r/1' } });
    const text = await (await fetch(`http://127.0.0.1:${port}/metrics`)).text();
    expect(text).toMatch(
      /switchyard_requests_total\{[^}]*mcp_method_name="resources\/read"[^}]*outcome="ok"/,
    );
    expect(text).toMatch(/switchyard_requests_total\{[^}]*error_type="resource_not_found"/);
    expect(text).toMatch(
      /switchyard_request_duration_milliseconds_bucket|switchyard_request_duration_bucket/,
    );
    expect(text).toMatch(/switchyard_upstream_up\{[^}]*switchyard_upstream="docs"[^}]*\} 1/);
    expect(text).toMatch(/switchyard_sessions\{[^}]*\} 1\n/);
    expect(text).toMatch(/switchyard_subscriptions\{[^}]*\} 1\n/);
  });

  it('counts every method the gateway does not answer under one value, whatever the client sends', async () => {
    // Found from outside: each distinct unknown method became a series of its own (2,500 of them made a
    // 730 B scrape 5.2 MB), with the client's newlines and ANSI escapes in the label value.
    const docs = await httpUpstream(cleanup, { name: 'docs', resources: 2 });
    const port = await freePort();
    const gw = await startGateway(cleanup, {
      listen: { http: { host: '127.0.0.1', port: 0, path: '/mcp' } },
      mcpServers: { docs: { url: docs.url } },
      telemetry: { prometheus: { port } },
    });
    const client = await readThrough(gw.url);
    const methods = Array.from({ length: 20 }, (_, i) => `junk/m${i}`);
    methods.push('junk/line\nbreak\u001b[31m');
    for (const method of methods)
      await expect(client.request({ method, params: {} }, z.object({}))).rejects.toMatchObject({
        code: -32601,
      });
    const text = await (await fetch(`http://127.0.0.1:${port}/metrics`)).text();
    expect(text).not.toContain('junk');
    expect(text).toMatch(
      /switchyard_requests_total\{[^}]*mcp_method_name="_OTHER"[^}]*outcome="error"[^}]*\} 21\n/,
    );
    expect(text).toMatch(/switchyard_requests_total\{[^}]*mcp_method_name="resources\/read"/);
  });

  it('is switched on by the standard environment variables too', async () => {
    const otlp = await collector();
    const port = await freePort();
    const docs = await httpUpstream(cleanup, { name: 'docs', resources: 2 });
    const gw = await startGateway(
      cleanup,
      {
        listen: { http: { host: '127.0.0.1', port: 0, path: '/mcp' } },
        mcpServers: { docs: { url: docs.url } },
      },
      {
        env: {
          ...FAST_EXPORT,
          OTEL_EXPORTER_OTLP_ENDPOINT: otlp.url,
          SWITCHYARD_PROMETHEUS_PORT: String(port),
        },
      },
    );
    await readThrough(gw.url);
    await eventually(
      () => otlp.spans.find((s) => s.name === 'mcp resources/read docs'),
      'spans exported to the endpoint from the environment',
    );
    expect(await (await fetch(`http://127.0.0.1:${port}/metrics`)).text()).toContain(
      'switchyard_requests_total',
    );
  });

  it('stays off unless configured, and OTEL_SDK_DISABLED wins', () => {
    expect(resolveTelemetry(undefined, {})).toBeUndefined();
    expect(
      resolveTelemetry({ serviceName: 's', prometheus: { host: '127.0.0.1', port: 1, path: '/m' } }, {}),
    ).toBeDefined();
    expect(
      resolveTelemetry(undefined, {
        OTEL_SDK_DISABLED: 'true',
        OTEL_EXPORTER_OTLP_ENDPOINT: 'http://127.0.0.1:1',
      }),
    ).toBeUndefined();
    expect(() => resolveTelemetry(undefined, { SWITCHYARD_PROMETHEUS_PORT: 'abc' })).toThrow(
      /SWITCHYARD_PROMETHEUS_PORT/,
    );
  });
});
