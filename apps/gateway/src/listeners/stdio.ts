import type { JSONRPCMessage } from '@modelcontextprotocol/server';
import { serveStdio } from '@modelcontextprotocol/server/stdio';
import { type Gateway, type Identity, type Logger, openSession } from '@switchyard/core';
import {
  DEFAULT_MAX_JSON_DEPTH,
  errorResponse,
  JsonLineTransport,
  ListenTracker,
} from '@switchyard/core/listener';

import type { Drain } from './drain.js';
import type { Limits } from './limits.js';
import { SessionGate } from './session-gate.js';

/**
 * Serves one downstream session on this process's stdin/stdout, in whichever era the client opens with:
 * the SDK's `serveStdio` pins an instance per connection (a legacy `initialize` or a modern request).
 * `closed` resolves when stdin ends. With `shared`, the session's requests count against
 * `limits.concurrentPerSession` (`busy`) and a drain: refused while draining (`shutting_down`), waited
 * for while in flight.
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
  const listens = new ListenTracker(gateway, session.sink, logger.child('stdio'));
  transport.onInbound = (message) => {
    // A listen is served only once its subscriptions are held, and refused if one is forbidden.
    const verdict = listens.observe(message);
    if (!verdict) return undefined;
    const id = (message as { id: string | number }).id;
    return verdict.then(async (refused) => {
      if (!refused) return listens.holding(id); // not if it was cancelled meanwhile
      await transport.send(errorResponse(id, refused) as unknown as JSONRPCMessage);
      return false;
    });
  };
  let resolveClosed: () => void = () => {};
  const closed = new Promise<void>((resolve) => {
    resolveClosed = resolve;
  });
  transport.onClosed = () => {
    void session.close().finally(resolveClosed);
  };
  const gated = shared
    ? new SessionGate(transport, {
        limit: shared.limits.concurrentPerSession,
        drain: shared.drain,
        transport: 'stdio',
      })
    : transport;
  const handle = serveStdio(session.build, {
    transport: session.wrap(gated),
    onerror: (error) => logger.debug('stdio session error', { error: error.message }),
  });
  return { closed, close: () => handle.close() };
}
