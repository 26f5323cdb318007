import { afterEach, describe, expect, it } from 'vitest';
import type { RequestMiddleware } from '../src/context.js';
import { ErrorCode, GatewayError } from '../src/errors.js';
import { Cleanup, httpUpstream, startGateway, upstreamConfig } from './support/gateway.js';

const cleanup = new Cleanup();
afterEach(() => cleanup.run());

describe('Gateway.inventory', () => {
  it('counts every page of each upstream, after its curation, past the request middleware; a down upstream is left out', async () => {
    const a = await httpUpstream(cleanup, { name: 'a', resources: 25, tools: 7, prompts: 2, pageSize: 3 });
    const b = await httpUpstream(cleanup, { name: 'b', resources: 0, tools: 4 });
    let seen = 0;
    const refuseEverything: RequestMiddleware = async () => {
      seen += 1;
      return { ok: false, error: new GatewayError(ErrorCode.Forbidden, 'refused') };
    };
    const gateway = await startGateway(
      cleanup,
      [
        upstreamConfig('a', a.url),
        upstreamConfig('b', b.url, { tools: { deny: ['tool_0', 'tool_1'] } }),
        upstreamConfig('gone', 'http://127.0.0.1:9/mcp', { timeoutMs: 500 }),
      ],
      { middleware: [refuseEverything] },
    );
    const counts = await gateway.inventory();
    expect(Object.fromEntries(counts)).toEqual({
      a: { tools: 7, prompts: 2, resources: 25, templates: expect.any(Number) },
      b: { tools: 2, prompts: 0, resources: 0, templates: expect.any(Number) },
    });
    expect(seen).toBe(0);
  });
});
