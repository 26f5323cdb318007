import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { connect } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { spawnProcess } from '../process/child.js';
import { freePort } from '../process/ports.js';
import type { ManagedProcess } from '../process/types.js';
import { locate } from './locate.js';

export interface BalancerBackend {
  host?: string;
  port: number;
}

/** A real HAProxy balancing HTTP requests round-robin over backends on loopback. */
export interface Balancer {
  readonly port: number;
  /** `http://127.0.0.1:<port>` */
  readonly url: string;
  readonly proc: ManagedProcess;
  stop(): Promise<void>;
}

/** Why HAProxy cannot be used here, or undefined when it is installed. */
export function haproxyMissing(): string | undefined {
  return locate('haproxy')
    ? undefined
    : 'haproxy is not installed (apt-get install -y haproxy; .ci/run installs it)';
}

/**
 * The config: HTTP mode, each request balanced round-robin (keep-alive connections included), long
 * timeouts for SSE streams, a backend taken out after one failed check (every 200 ms), and a request
 * whose connection a dead backend refused sent to another one.
 */
export function haproxyConfig(port: number, backends: readonly BalancerBackend[]): string {
  return [
    'global',
    '  maxconn 4096',
    'defaults',
    '  mode http',
    '  timeout connect 2s',
    '  timeout client 1h',
    '  timeout server 1h',
    '  timeout http-keep-alive 10s',
    '  retries 2',
    '  option redispatch 1',
    '  retry-on conn-failure',
    'frontend mcp',
    `  bind 127.0.0.1:${port}`,
    '  default_backend replicas',
    'backend replicas',
    '  balance roundrobin',
    ...backends.map(
      (b, i) => `  server r${i + 1} ${b.host ?? '127.0.0.1'}:${b.port} check inter 200ms fall 1 rise 1`,
    ),
    '',
  ].join('\n');
}

/**
 * Starts HAProxy in front of `backends` on an ephemeral loopback port, and resolves once it accepts
 * connections.
 */
export async function startBalancer(backends: readonly BalancerBackend[]): Promise<Balancer> {
  const binary = locate('haproxy');
  if (!binary) throw new Error(haproxyMissing());
  const port = await freePort();
  const dir = await mkdtemp(join(tmpdir(), 'switchyard-haproxy-'));
  const file = join(dir, 'haproxy.cfg');
  await writeFile(file, haproxyConfig(port, backends));
  const proc = spawnProcess({ name: `haproxy:${port}`, command: binary, args: ['-db', '-f', file] });
  try {
    await untilListening(port, proc);
  } catch (error) {
    await proc.stop({ graceMs: 0 });
    await rm(dir, { recursive: true, force: true });
    throw error;
  }
  return {
    port,
    url: `http://127.0.0.1:${port}`,
    proc,
    async stop() {
      await proc.stop({ graceMs: 2000 });
      await rm(dir, { recursive: true, force: true });
    },
  };
}

/** Resolves once `port` accepts a connection; rejects when `proc` exits first or 10 s pass. */
async function untilListening(port: number, proc: ManagedProcess): Promise<void> {
  const deadline = Date.now() + 10_000;
  while (Date.now() < deadline) {
    if (!proc.running()) throw new Error(`haproxy exited before listening: ${proc.tail().join('\n')}`);
    if (await accepts(port)) return;
    await new Promise((resolve) => setTimeout(resolve, 25));
  }
  throw new Error(`haproxy did not listen on ${port} within 10 s: ${proc.tail().join('\n')}`);
}

function accepts(port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const socket = connect({ port, host: '127.0.0.1' });
    socket.once('connect', () => {
      socket.destroy();
      resolve(true);
    });
    socket.once('error', () => resolve(false));
  });
}
