import { createServer, type Server } from 'node:net';

/** Somewhere a held port's release can be registered (a test's `Cleanup`). */
export interface CleanupRegistry {
  add(task: () => unknown): void;
}

/** A loopback port held by a placeholder listener until `release()`. */
export interface PortReservation {
  readonly port: number;
  /** Stops holding the port (idempotent); call it right before the real server listens on `port`. */
  release(): Promise<void>;
}

async function listenEphemeral(server: Server, host: string): Promise<number> {
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(0, host, () => {
      server.off('error', reject);
      resolve();
    });
  });
  return (server.address() as { port: number }).port;
}

/**
 * A loopback TCP port that was free a moment ago, for a server that cannot listen on port 0 itself.
 * Nothing holds it: another socket may take it before it is used (see {@link reservePort}).
 */
export async function freePort(host = '127.0.0.1'): Promise<number> {
  const server = createServer();
  const port = await listenEphemeral(server, host);
  await new Promise<void>((resolve) => server.close(() => resolve()));
  return port;
}

/**
 * A loopback port held for a server that starts later (an upstream that is "down at start"). Until
 * `release()`, a placeholder listens on it and drops every connection, so a client sees that server as
 * unreachable and no other socket can take the port meanwhile. With `cleanup`, the release is registered
 * there too.
 *
 * @example
 * const { port, release } = await reservePort(cleanup);
 * // … the gateway starts and finds nothing serving `port` …
 * await release();
 * await upstream.listenHttp({ port });
 */
export async function reservePort(cleanup?: CleanupRegistry, host = '127.0.0.1'): Promise<PortReservation> {
  const placeholder = createServer((socket) => socket.destroy());
  const port = await listenEphemeral(placeholder, host);
  let released: Promise<void> | undefined;
  const release = (): Promise<void> => {
    released ??= new Promise<void>((resolve) => placeholder.close(() => resolve()));
    return released;
  };
  cleanup?.add(release);
  return { port, release };
}
