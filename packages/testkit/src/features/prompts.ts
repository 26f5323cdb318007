import { ProtocolError, ProtocolErrorCode, type Server } from '@modelcontextprotocol/server';
import { delay } from '../delay.js';
import { pageWindow } from '../paging.js';
import type { SessionHost } from '../session-host.js';

/** `prompts/list` (paged like resources) and `prompts/get`; an unknown prompt answers -32602 naming it. */
export function registerPrompts(server: Server, host: SessionHost): void {
  const { options, prompts } = host;

  server.setRequestHandler('prompts/list', async (request, ctx) => {
    const page = pageWindow(request.params?.cursor, prompts.count, options.pageSize);
    await delay(options.latencyMs, ctx.mcpReq.signal);
    const list = [];
    for (let i = page.start; i < page.end; i++) list.push(prompts.at(i));
    return page.nextCursor === undefined ? { prompts: list } : { prompts: list, nextCursor: page.nextCursor };
  });

  server.setRequestHandler('prompts/get', async (request, ctx) => {
    const { name, arguments: args } = request.params;
    const result = prompts.get(name, args);
    if (result === undefined)
      throw new ProtocolError(ProtocolErrorCode.InvalidParams, `Unknown prompt: ${name}`);
    await delay(options.latencyMs, ctx.mcpReq.signal);
    return result;
  });
}
