import { describe, expect, it } from 'vitest';
import { GatewayError } from '../src/errors.js';
import { GatewayTelemetry } from '../src/telemetry.js';

describe('GatewayTelemetry without an OpenTelemetry SDK', () => {
  const telemetry = new GatewayTelemetry({ sessions: () => 0, subscriptions: () => 0, upstreams: () => [] });

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
