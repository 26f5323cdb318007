import { describe, expect, it } from 'vitest';
import { GatewayError } from '../src/errors.js';
import { CLIPPED_MARK, RECORDED_CHARS } from '../src/stats/clip.js';
import { GatewayTelemetry, OTHER_METHOD, requestAttributes } from '../src/telemetry.js';
import { testRequest } from '../src/testing.js';

describe('GatewayTelemetry without an OpenTelemetry SDK', () => {
  const answered = new Map([['resources/read', true]]);
  const telemetry = new GatewayTelemetry(
    { sessions: () => 0, subscriptions: () => 0, upstreams: () => [] },
    (method) => answered.has(method),
  );

  it('knows that neither traces nor metrics are collected, so the gateway adds no wrappers', () => {
    expect(telemetry.tracing).toBe(false);
    expect(telemetry.metering).toBe(false);
  });

  it('still runs what it wraps and passes outcomes and errors through unchanged', async () => {
    const ok = { ok: true as const, result: { x: 1 } };
    await expect(
      telemetry.request(
        'resources/read',
        () => ({}),
        async () => ok,
      ),
    ).resolves.toBe(ok);
    const failed = { ok: false as const, error: GatewayError.forbidden('no') };
    await expect(
      telemetry.request(
        'resources/read',
        () => ({}),
        async () => failed,
      ),
    ).resolves.toBe(failed);
    await expect(telemetry.upstreamCall('a', 'resources/read', async () => 7)).resolves.toBe(7);
    await expect(
      telemetry.upstreamCall('a', 'resources/read', async () => {
        throw new Error('down');
      }),
    ).rejects.toThrow('down');
  });
});

describe('the method metrics and span names record', () => {
  // Found from outside: 2,500 distinct unknown methods made 2,500 `mcp_method_name` values (a Prometheus
  // scrape of 730 B grew to 5.2 MB), newlines and ANSI escapes included, and as many span names.
  const answered = new Map([['tools/call', true]]);
  const telemetry = new GatewayTelemetry(
    { sessions: () => 0, subscriptions: () => 0, upstreams: () => [] },
    (method) => answered.has(method),
  );

  it('is the method when the gateway answers it, and one value for every other', () => {
    expect(telemetry.methodLabel('tools/call')).toBe('tools/call');
    expect(telemetry.methodLabel('ping')).toBe('ping');
    expect(telemetry.methodLabel('initialize')).toBe('initialize');
    for (const method of ['junk/m1', 'junk/m2', 'a\nb\u001b[31m', '__proto__', 'x'.repeat(100_000)])
      expect(telemetry.methodLabel(method)).toBe(OTHER_METHOD);
  });
});

describe('requestAttributes', () => {
  it('names what the request addressed, clipped like the status page keeps it', () => {
    // Found from outside: with OTLP on, every span carried a 3 MB URI the client sent, twice.
    const uri = `docs+test://${'x'.repeat(3_000_000)}`;
    const read = requestAttributes(testRequest('resources/read', { uri }));
    expect(read['mcp.resource.uri']).toBe(`${uri.slice(0, RECORDED_CHARS)}${CLIPPED_MARK}`);
    const call = testRequest('tools/call', { name: 'docs__t' });
    call.target = { kind: 'tool', upstream: 'docs', name: 't', exposed: 'docs__t' };
    expect(requestAttributes(call)).toMatchObject({
      'gen_ai.tool.name': 'docs__t',
      'switchyard.upstream': 'docs',
    });
    expect(requestAttributes(call)).not.toHaveProperty('mcp.resource.uri');
  });
});
