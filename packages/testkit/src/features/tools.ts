import { ProtocolError, ProtocolErrorCode, type Server } from '@modelcontextprotocol/server';
import { delay } from '../delay.js';
import { pageWindow } from '../paging.js';
import type { SessionHost } from '../session-host.js';
import { callTool } from './behavior-tools.js';

/**
 * `tools/list` (paged like resources) and `tools/call`. An unknown tool answers -32602 naming it; a known one
 * is served by its behaviour (see `TestServerOptions.behaviorTools`), with `stats.activeToolCalls` counting
 * the handler runs in progress.
 */
export function registerTools(server: Server, host: SessionHost): void {
  const { options, tools, stats } = host;

  server.setRequestHandler('tools/list', async (request, ctx) => {
    const page = pageWindow(request.params?.cursor, tools.count, options.pageSize);
    await delay(options.latencyMs, ctx.mcpReq.signal);
    const list = [];
    for (let i = page.start; i < page.end; i++) list.push(tools.at(i));
    return page.nextCursor === undefined ? { tools: list } : { tools: list, nextCursor: page.nextCursor };
  });

  server.setRequestHandler('tools/call', async (request, ctx) => {
    const { name } = request.params;
    const entry = tools.find(name);
    if (entry === undefined)
      throw new ProtocolError(ProtocolErrorCode.InvalidParams, `Unknown tool: ${name}`);
    stats.activeToolCalls += 1;
    try {
      return await callTool(entry.behavior, name, request.params.arguments ?? {}, ctx, host);
    } finally {
      stats.activeToolCalls -= 1;
    }
  });
}
