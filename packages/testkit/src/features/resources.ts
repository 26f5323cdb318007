import { ResourceNotFoundError, type Server } from '@modelcontextprotocol/server';
import { delay } from '../delay.js';
import { pageWindow } from '../paging.js';
import type { SessionHost } from '../session-host.js';

/**
 * `resources/list`, `resources/templates/list`, `resources/read` and (when `subscribe` is on)
 * `resources/subscribe`/`unsubscribe`, which record into the session's `subscriptions`.
 */
export function registerResources(server: Server, host: SessionHost, subscriptions: Set<string>): void {
  const { options, catalog, stats } = host;

  server.setRequestHandler('resources/list', async (request, ctx) => {
    const page = pageWindow(request.params?.cursor, catalog.resourceCount, options.pageSize);
    await delay(options.latencyMs, ctx.mcpReq.signal);
    const resources = [];
    for (let i = page.start; i < page.end; i++) resources.push(catalog.resourceAt(i));
    return page.nextCursor === undefined ? { resources } : { resources, nextCursor: page.nextCursor };
  });

  server.setRequestHandler('resources/templates/list', async (request, ctx) => {
    const page = pageWindow(request.params?.cursor, catalog.templateCount, options.pageSize);
    await delay(options.latencyMs, ctx.mcpReq.signal);
    const resourceTemplates = [];
    for (let j = page.start; j < page.end; j++) resourceTemplates.push(catalog.templateAt(j));
    return page.nextCursor === undefined
      ? { resourceTemplates }
      : { resourceTemplates, nextCursor: page.nextCursor };
  });

  server.setRequestHandler('resources/read', async (request, ctx) => {
    const { uri } = request.params;
    await delay(options.latencyMs, ctx.mcpReq.signal);
    const contents = catalog.read(uri);
    if (contents === undefined) throw new ResourceNotFoundError(uri);
    const progressToken = ctx.mcpReq._meta?.progressToken;
    if (progressToken !== undefined && options.progress > 0) {
      const total = options.progress;
      for (let progress = 1; progress <= total; progress++) {
        await ctx.mcpReq.notify({
          method: 'notifications/progress',
          params: { progressToken, progress, total },
        });
      }
      await ctx.mcpReq.notify({
        method: 'notifications/message',
        params: { level: 'info', logger: options.name, data: `read ${uri}` },
      });
    }
    return { contents: [contents] };
  });

  if (!options.subscribe) return;
  server.setRequestHandler('resources/subscribe', (request) => {
    const { uri } = request.params;
    subscriptions.add(uri);
    stats.subscribeCalls += 1;
    stats.subscribed[uri] = (stats.subscribed[uri] ?? 0) + 1;
    return {};
  });
  server.setRequestHandler('resources/unsubscribe', (request) => {
    const { uri } = request.params;
    subscriptions.delete(uri);
    stats.unsubscribeCalls += 1;
    stats.subscribed[uri] = (stats.subscribed[uri] ?? 0) - 1;
    return {};
  });
}
