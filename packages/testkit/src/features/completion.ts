import type { Server } from '@modelcontextprotocol/server';
import { delay } from '../delay.js';
import type { SessionHost } from '../session-host.js';

/**
 * `completion/complete` (registered only when `completions` is non-empty): template arguments of known
 * templates and arguments of known prompts complete from the configured values by prefix.
 */
export function registerCompletion(server: Server, host: SessionHost): void {
  const { options, catalog, prompts } = host;
  server.setRequestHandler('completion/complete', async (request, ctx) => {
    const { ref, argument } = request.params;
    await delay(options.latencyMs, ctx.mcpReq.signal);
    if (ref.type === 'ref/prompt')
      return { completion: catalog.completeKnown(prompts.has(ref.name), argument.value) };
    return { completion: catalog.complete(ref.uri, argument.value) };
  });
}
