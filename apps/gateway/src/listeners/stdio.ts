import { type Gateway, type Identity, type Logger, openSession } from '@switchyard/core';
import { DEFAULT_MAX_JSON_DEPTH, JsonLineTransport } from '@switchyard/core/listener';

import type { Drain } from './drain.js';
import type { Limits } from './limits.js';
import { Refusals } from './refusals.js';
import { serveChannel } from './serve-channel.js';

/**
 * Serves one downstream session on this process's stdin/stdout, in whichever era the client opens with
 * (`serveChannel`). `closed` resolves when stdin ends. With `shared`, the session's requests count against
 * `limits.concurrentPerSession` (`busy`) and a drain: refused while draining (`shutting_down`), waited
 * for while in flight, and answered `shutting_down` when the grace period runs out.
 */
export async function startStdioListener(
  gateway: Gateway,
  logger: Logger,
  identity: Identity,
  shared?: { limits: Limits; drain: Drain },
  /** The virtual server the session serves (`--virtual-server`); default the root endpoint. */
  endpoint?: string,
): Promise<{ closed: Promise<void>; close(): Promise<void> }> {
  const session = openSession(gateway, { transport: 'stdio', id: 'stdio', identity, endpoint });
  const transport = new JsonLineTransport(process.stdin, process.stdout, {
    maxJsonDepth: () => shared?.limits.maxJsonDepth ?? DEFAULT_MAX_JSON_DEPTH,
  });
  let resolveClosed: () => void = () => {};
  const closed = new Promise<void>((resolve) => {
    resolveClosed = resolve;
  });
  const handle = serveChannel(gateway, session, transport, {
    kind: 'stdio',
    log: logger.child('stdio'),
    ...(shared ? { gate: { limit: shared.limits.concurrentPerSession, drain: shared.drain } } : {}),
    onClosed: () => void session.close().finally(resolveClosed),
  });
  return {
    closed,
    // What is still in flight once the grace period ran out hears why, as an HTTP session's POSTs do.
    close: async () => {
      await handle.cutOff(Refusals.shuttingDown());
      await handle.close();
    },
  };
}
