import type { ProcessExit } from '../transports/upstream/stdio-client-transport.js';

/**
 * How long a failed attempt waits for a spawned server whose pipes are gone to exit and its stderr to be
 * read, so that the error says how it ended rather than what the write that met it said (`EPIPE`).
 */
export const EXIT_WAIT_MS = 2_000;

/**
 * A spawned server ended by itself: how (exit code or signal), when (`before its handshake`), and the last
 * lines it printed on stderr, the one thing that says why. It replaces what the SDK saw of it (`write
 * EPIPE`, "the connection closed during the server/discover probe").
 */
export class ServerExitedError extends Error {
  override readonly name = 'ServerExitedError';
  readonly exit: ProcessExit;

  constructor(exit: ProcessExit, when: string) {
    const how = exit.signal ? `was killed by ${exit.signal}` : `exited with code ${exit.code}`;
    const said = exit.stderr.length > 0 ? `; its stderr ended with: ${exit.stderr.join(' | ')}` : '';
    // No `cause`: what the SDK saw of it is what this replaces (errorText would quote it).
    super(`the server process ${how} ${when}${said}`);
    this.exit = exit;
  }
}

/**
 * What a failed attempt is reported as: a `ServerExitedError` when the attempt's spawned server has ended
 * by itself (waiting up to `EXIT_WAIT_MS` when its pipes are gone), else `error` as it is. Call it
 * before the attempt's transport is closed: a server the gateway stopped is no server that exited.
 */
export async function explainFailure(
  error: unknown,
  exited: ((withinMs: number) => Promise<ProcessExit | undefined>) | undefined,
  when: string,
): Promise<unknown> {
  const exit = await exited?.(EXIT_WAIT_MS).catch(() => undefined);
  return exit ? new ServerExitedError(exit, when) : error;
}
