import type { Server, ServerCapabilities, ServerContext, Tool } from '@modelcontextprotocol/server';
import { delay } from '../delay.js';
import { pageWindow } from '../paging.js';
import type { SessionHost } from '../session-host.js';

/** The modes that make a listing never end. */
export type CursorMode = 'repeating-cursor' | 'endless-cursor';

/**
 * The `nextCursor` a cursor mode answers a page request carrying `cursor` with: always `again`
 * (`repeating-cursor`), or one past the cursor's page number, `page-1` for any other cursor
 * (`endless-cursor`: a new cursor every time).
 */
export function nextCursorOf(mode: CursorMode, cursor: unknown): string {
  if (mode === 'repeating-cursor') return 'again';
  const match = typeof cursor === 'string' ? /^page-(\d{1,15})$/.exec(cursor) : null;
  return `page-${match?.[1] === undefined ? 1 : Number(match[1]) + 1}`;
}

/** One page of a list of `total` items: the normal page for `cursor`, or under a cursor mode the first page and the mode's cursor. */
async function page<T>(
  host: SessionHost,
  ctx: ServerContext,
  cursor: unknown,
  total: number,
  at: (index: number) => T,
  mode: CursorMode | undefined,
): Promise<{ items: T[]; nextCursor?: string }> {
  const window = pageWindow(mode === undefined ? cursor : undefined, total, host.options.pageSize);
  await delay(host.options.latencyMs, ctx.mcpReq.signal);
  const items: T[] = [];
  for (let i = window.start; i < window.end; i++) items.push(at(i));
  const nextCursor = mode === undefined ? window.nextCursor : nextCursorOf(mode, cursor);
  return nextCursor === undefined ? { items } : { items, nextCursor };
}

/**
 * Replaces the list handlers the misbehaviour changes: `tools/list` lists the catalog's tools and then
 * `extraTools`; under a cursor mode every list (resources, templates, tools, prompts) answers its first page
 * with the mode's `nextCursor`, whatever cursor it is given.
 */
export function registerListings(
  server: Server,
  host: SessionHost,
  capabilities: ServerCapabilities,
  extraTools: readonly Tool[],
  mode: CursorMode | undefined,
): void {
  const { catalog, tools, prompts } = host;
  if (capabilities.tools !== undefined && (extraTools.length > 0 || mode !== undefined)) {
    const at = (i: number): Tool => (i < tools.count ? tools.at(i) : (extraTools[i - tools.count] as Tool));
    server.setRequestHandler('tools/list', async (request, ctx) => {
      const { items, nextCursor } = await page(
        host,
        ctx,
        request.params?.cursor,
        tools.count + extraTools.length,
        at,
        mode,
      );
      return nextCursor === undefined ? { tools: items } : { tools: items, nextCursor };
    });
  }
  if (mode === undefined) return;
  server.setRequestHandler('resources/list', async (request, ctx) => {
    const { items, nextCursor } = await page(
      host,
      ctx,
      request.params?.cursor,
      catalog.resourceCount,
      (i) => catalog.resourceAt(i),
      mode,
    );
    return { resources: items, ...(nextCursor === undefined ? {} : { nextCursor }) };
  });
  server.setRequestHandler('resources/templates/list', async (request, ctx) => {
    const { items, nextCursor } = await page(
      host,
      ctx,
      request.params?.cursor,
      catalog.templateCount,
      (i) => catalog.templateAt(i),
      mode,
    );
    return { resourceTemplates: items, ...(nextCursor === undefined ? {} : { nextCursor }) };
  });
  if (capabilities.prompts === undefined) return;
  server.setRequestHandler('prompts/list', async (request, ctx) => {
    const { items, nextCursor } = await page(
      host,
      ctx,
      request.params?.cursor,
      prompts.count,
      (i) => prompts.at(i),
      mode,
    );
    return { prompts: items, ...(nextCursor === undefined ? {} : { nextCursor }) };
  });
}
