import { describe, expect, it } from 'vitest';
import type { RequestContext } from '../src/context.js';
import { GatewayError } from '../src/errors.js';
import { CallerTools } from '../src/features/tool-search/caller-tools.js';
import type { Outcome } from '../src/middleware.js';

// What tool search takes as the tools a caller may use: its own tools/list walked to the end, kept until
// the catalog changes; a walk that could not read every page is used once and not kept.

const caller = {
  session: { id: 'session' },
  identity: { id: 'alice', groups: [], anonymous: false },
} as unknown as RequestContext;

/** A `tools/list` answering `pages` in turn (each a list of tool names, or a GatewayError), counting the requests. */
function listing(pages: (string[] | GatewayError)[]) {
  const asked: (string | undefined)[] = [];
  const list = async (ctx: RequestContext): Promise<Outcome> => {
    const cursor = ctx.params.cursor as string | undefined;
    asked.push(cursor);
    const i = cursor === undefined ? 0 : Number(cursor);
    const page = pages[i]!;
    if (page instanceof GatewayError) return { ok: false, error: page };
    const tools = page.map((name) => ({ name, inputSchema: { type: 'object' } }));
    return { ok: true, result: i + 1 < pages.length ? { tools, nextCursor: String(i + 1) } : { tools } };
  };
  return { list, asked };
}

describe('CallerTools', () => {
  it('walks every page once and keeps the tools', async () => {
    const { list, asked } = listing([['a__one'], ['a__two'], ['a__three']]);
    const callers = new CallerTools(list);
    expect([...(await callers.of(caller)).keys()]).toEqual(['a__one', 'a__two', 'a__three']);
    expect([...(await callers.of(caller)).keys()]).toEqual(['a__one', 'a__two', 'a__three']);
    expect(asked).toEqual([undefined, '1', '2']);
  });

  // Regression: a page that failed mid-walk (a refused cursor) left the tools of the pages before it kept
  // as the caller's whole catalog: search and call_tool missed every later tool until the catalog changed.
  it('uses what it read before a page that failed, but does not keep it: the next search lists again', async () => {
    const pages: (string[] | GatewayError)[] = [['a__one'], GatewayError.invalidCursor(), ['a__three']];
    const { list, asked } = listing(pages);
    const callers = new CallerTools(list);
    expect([...(await callers.of(caller)).keys()]).toEqual(['a__one']);
    pages[1] = ['a__two'];
    expect([...(await callers.of(caller)).keys()]).toEqual(['a__one', 'a__two', 'a__three']);
    expect(asked).toEqual([undefined, '1', undefined, '1', '2']);
  });

  it('gives a caller refused tools/list itself no tool, and asks again next time', async () => {
    const { list, asked } = listing([GatewayError.invalidCursor()]);
    const callers = new CallerTools(list);
    expect((await callers.of(caller)).size).toBe(0);
    expect((await callers.of(caller)).size).toBe(0);
    expect(asked).toEqual([undefined, undefined]);
  });
});
