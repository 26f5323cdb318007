import { connect } from 'node:net';
import { startProcess } from '../process/child.js';
import { freePort } from '../process/ports.js';
import type { ManagedProcess } from '../process/types.js';
import { locate } from './locate.js';

/** A real `redis-server` on a loopback port, with nothing persisted. */
export interface RedisServer {
  readonly port: number;
  /** `redis://127.0.0.1:<port>` */
  readonly url: string;
  readonly proc: ManagedProcess;
  /** Stops it for sure (SIGKILL with `kill: true`: the way a crashed node goes). */
  stop(options?: { kill?: boolean }): Promise<void>;
  /** Starts it again on the same port (empty: nothing was saved), after a stop. */
  restart(): Promise<void>;
  /**
   * Runs one command as any client could (`command('KEYS', '*')`, `command('SET', key, value)`): what a test
   * needs to read or tamper with the store behind a gateway's back. Resolves with its raw RESP reply.
   */
  command(...args: string[]): Promise<string>;
}

/** Why Redis cannot be used here, or undefined when `redis-server` is installed. */
export function redisMissing(): string | undefined {
  return locate('redis-server')
    ? undefined
    : 'redis-server is not installed (apt-get install -y redis-server; .ci/run installs it)';
}

/**
 * Starts `redis-server` on an ephemeral loopback port (or `port`), without persistence, and resolves
 * once it accepts connections.
 *
 * @example
 * const redis = await startRedis();
 * cleanup.add(() => redis.stop());
 */
export async function startRedis(options: { port?: number } = {}): Promise<RedisServer> {
  const binary = locate('redis-server');
  if (!binary) throw new Error(redisMissing());
  const port = options.port ?? (await freePort());
  const launch = async () =>
    (
      await startProcess({
        name: `redis:${port}`,
        command: binary,
        args: ['--port', String(port), '--bind', '127.0.0.1', '--save', '', '--appendonly', 'no'],
        ready: { line: /Ready to accept connections/, stream: 'stdout', timeoutMs: 10_000 },
      })
    ).proc;
  let proc = await launch();
  return {
    port,
    url: `redis://127.0.0.1:${port}`,
    get proc() {
      return proc;
    },
    async stop(stopOptions = {}) {
      if (stopOptions.kill) proc.signal('SIGKILL');
      await proc.stop({ graceMs: 2000 });
    },
    async restart() {
      await proc.stop({ graceMs: 2000 });
      proc = await launch();
    },
    command: (...args) => respCommand(port, args),
  };
}

/** One command in RESP on a connection of its own; the reply as it came, once the server is done. */
function respCommand(port: number, args: readonly string[]): Promise<string> {
  const request = `*${args.length}\r\n${args.map((a) => `$${Buffer.byteLength(a)}\r\n${a}\r\n`).join('')}`;
  return new Promise((resolve, reject) => {
    const socket = connect(port, '127.0.0.1');
    const chunks: Buffer[] = [];
    socket.setTimeout(5000, () => socket.destroy(new Error(`redis ${args[0]}: no reply in 5 s`)));
    socket.on('data', (chunk) => chunks.push(chunk));
    socket.once('error', reject);
    socket.once('close', () =>
      resolve(
        Buffer.concat(chunks)
          .toString('utf8')
          .replace(/\+OK\r\n$/, ''),
      ),
    );
    // QUIT after the command: the server answers both, then closes, so the whole reply has arrived.
    socket.write(`${request}*1\r\n$4\r\nQUIT\r\n`);
  });
}
