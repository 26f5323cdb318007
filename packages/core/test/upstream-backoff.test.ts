import { TestServer } from '@switchyard/testkit';
import { afterEach, describe, expect, it } from 'vitest';
import { silentLogger } from '../src/logger.js';
import { UpstreamConnection, type UpstreamListener } from '../src/upstream/connection.js';
import { Cleanup, upstreamConfig } from './support/gateway.js';

const cleanup = new Cleanup();
afterEach(() => cleanup.run());

/** Records what a connection tells its listener, and lets a test wait for the nth event of a kind. */
function recorder() {
  const events: string[] = [];
  let wake = () => {};
  const listener: UpstreamListener = {
    ready: () => push('ready'),
    down: () => push('down'),
    failed: () => push('failed'),
    notification: () => {},
  };
  function push(event: string) {
    events.push(event);
    wake();
  }
  const count = (event: string) => events.filter((e) => e === event).length;
  const until = (event: string, n: number, ms = 10_000) =>
    new Promise<void>((resolve, reject) => {
      const timer = setTimeout(() => reject(new Error(`no ${n}× ${event} within ${ms} ms: ${events}`)), ms);
      wake = () => {
        if (count(event) < n) return;
        clearTimeout(timer);
        resolve();
      };
      wake();
    });
  return { listener, events, count, until };
}

describe('reconnecting to a 2026-07-28 upstream that went down', () => {
  it('fails its attempts (backing off) while the server is gone, instead of adopting the last discover result', async () => {
    const server = new TestServer({ name: 'beta', resources: 1, modern: true });
    const http = await server.listenHttp();
    cleanup.add(() => server.close());
    const seen = recorder();
    const connection = new UpstreamConnection(upstreamConfig('beta', http.url), seen.listener, silentLogger);
    cleanup.add(() => connection.close());
    connection.start();
    await seen.until('ready', 1);
    expect(connection.era).toBe('modern');

    await http.close();
    // The next request fails and drops the connection; then each attempt to connect again must reach the
    // server, fail and back off, not pass for a connection.
    await expect(connection.request('resources/list', {})).rejects.toMatchObject({
      data: { reason: 'upstream_unavailable' },
    });
    await seen.until('failed', 2);
    expect(seen.count('ready')).toBe(1);
    expect(connection.state).not.toBe('ready');
  });
});
