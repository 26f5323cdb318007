import type { Server } from '@modelcontextprotocol/server';
import type { DownstreamClient } from '../context.js';

/**
 * The client of a legacy-era request `id`: what it declared at initialize, its session's log level, and
 * requests back to it (sampling, elicitation, roots) related to that request, so a transport with a
 * stream per request sends them on its stream.
 */
export function legacyClient(
  server: Server,
  id: string | number,
  level: string | undefined,
): DownstreamClient {
  return {
    era: 'legacy',
    capabilities: server.getClientCapabilities(),
    logLevel: level,
    request: (method, params, options) =>
      server.request({ method, params } as never, {
        signal: options.signal,
        relatedRequestId: id,
      }) as Promise<Record<string, unknown>>,
  };
}
