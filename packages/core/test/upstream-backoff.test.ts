import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { TestServer } from '@switchyard/testkit';
import { afterEach, describe, expect, it } from 'vitest';
import { silentLogger } from '../src/logger.js';
import { UpstreamConnection, type UpstreamListener } from '../src/upstream/connection.js';
import { Cleanup, eventually, upstreamConfig } from './support/gateway.js';
import { recordingLogger } from './support/recording-logger.js';

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

/** A stdio server that completes its handshake, then exits (as a crashing server under a supervisor does). */
const EXITS_AFTER_HANDSHAKE = `
let buffered = '';
process.stdin.on('data', (chunk) => {
  buffered += chunk;
  for (let nl = buffered.indexOf('\\n'); nl >= 0; nl = buffered.indexOf('\\n')) {
    const message = JSON.parse(buffered.slice(0, nl));
    buffered = buffered.slice(nl + 1);
    if (message.method === 'notifications/initialized') setTimeout(() => process.exit(3), 50);
    if (message.id === undefined) continue;
    const answer = message.method === 'initialize'
      ? { result: { protocolVersion: '2025-11-25', capabilities: {}, serverInfo: { name: 'crashy', version: '1' } } }
      : { error: { code: -32601, message: 'Method not found' } };
    process.stdout.write(JSON.stringify({ jsonrpc: '2.0', id: message.id, ...answer }) + '\\n');
  }
});
`;

describe('reconnecting to a server that exits right after each handshake', () => {
  it('backs off further each time, instead of starting over at 250 ms for ever', async () => {
    // Found from outside: the attempt count went back to 0 on every handshake, so such a server was
    // restarted about 3 times a second, for ever, each time telling every session its lists changed.
    const dir = await mkdtemp(join(tmpdir(), 'switchyard-crashy-'));
    cleanup.add(() => rm(dir, { recursive: true, force: true }));
    await writeFile(join(dir, 'server.cjs'), EXITS_AFTER_HANDSHAKE);
    const log = recordingLogger();
    const seen = recorder();
    const connection = new UpstreamConnection(
      {
        name: 'crashy',
        prefix: true,
        timeoutMs: 5000,
        transport: { kind: 'stdio', command: process.execPath, args: ['server.cjs'], env: {}, cwd: dir },
      },
      seen.listener,
      log,
    );
    cleanup.add(() => connection.close());
    connection.start();
    const lost = () => log.entries.filter((e) => e.message.startsWith('connection lost; retrying'));
    await eventually(() => lost().length >= 3 || undefined, 'three connections lost', 15_000);
    expect(seen.count('ready')).toBeGreaterThanOrEqual(3);
    const attempts = lost().map((e) => e.fields?.attempt as number);
    expect(attempts.slice(0, 3)).toEqual([1, 2, 3]);
    // Only the first of a series is a warning; the rest are at debug level.
    expect(
      lost()
        .map((e) => e.level)
        .slice(0, 3),
    ).toEqual(['warn', 'debug', 'debug']);
  });
});
