import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { type Catalog, catalogClients, startCatalog, withoutModernFields } from './support/catalog.js';
import { Cleanup } from './support/harness.js';
import { errorOf, type Json, listPages, names } from './support/named.js';

// Prompts through the gateway CLI, from every downstream transport and era (see support/catalog.ts for
// the upstreams: legacy HTTP, stdio, modern HTTP, and one that never comes up).

const shared = new Cleanup();
const cleanup = new Cleanup();
afterEach(() => cleanup.run());
afterAll(() => shared.run());
let fx: Catalog;
beforeAll(async () => {
  fx = await startCatalog(shared);
}, 30_000);
const CLIENTS = catalogClients(cleanup, () => fx);

const EXPECTED_PROMPTS = [
  'web__prompt_0',
  'web__prompt_1',
  'web__prompt_2',
  'local__prompt_0',
  'local__prompt_1',
  'mod__prompt_0',
].sort();

describe.each(Object.keys(CLIENTS))('prompts through the CLI, %s client', (kind) => {
  const connect = () => CLIENTS[kind]!();

  it('lists prompts page by page, advertised, with their definitions untouched', async () => {
    const client = await connect();
    expect(client.getServerCapabilities()?.prompts).toEqual({ listChanged: true });
    const prompts = await listPages(client, 'prompts/list');
    expect(prompts.pages).toBe(2); // web: 3 prompts in pages of 2
    expect(names(prompts.items).sort()).toEqual(EXPECTED_PROMPTS);
    expect(prompts.metas[0]).toMatchObject({ 'switchyard/unavailable': ['down'] });
    const direct = await listPages(fx.direct, 'prompts/list');
    for (const prompt of direct.items) {
      expect(prompts.items.find((p) => p.name === `web__${prompt.name}`)).toEqual({
        ...prompt,
        name: `web__${prompt.name}`,
      });
    }
    expect(prompts.items.find((p) => p.name === 'local__prompt_1')).toMatchObject({
      title: 'Prompt 1',
      arguments: [{ name: 'topic', required: false }],
    });
  });

  it('gets prompts with embedded resources rewritten to name+uri, and reads them through the gateway', async () => {
    const client = await connect();
    for (const server of ['web', 'local', 'mod']) {
      const got = (await client.request({
        method: 'prompts/get',
        params: { name: `${server}__prompt_0`, arguments: { topic: kind } },
      })) as Json;
      expect(got.description).toBe('Generated test prompt 0');
      expect(got.messages).toEqual([
        { role: 'user', content: { type: 'text', text: `prompt_0 ${JSON.stringify({ topic: kind })}` } },
        {
          role: 'user',
          content: {
            type: 'resource',
            resource: { uri: `${server}+test://${server}/r/0`, mimeType: 'text/plain', text: 'resource 0' },
          },
        },
      ]);
      const read = await client.request({
        method: 'resources/read',
        params: { uri: `${server}+test://${server}/r/0` },
      });
      expect(read.contents).toEqual([
        { uri: `${server}+test://${server}/r/0`, mimeType: 'text/plain', text: 'resource 0' },
      ]);
    }
    // Only the embedded URI changed: everything else is what the upstream said.
    const direct = (await fx.direct.request({
      method: 'prompts/get',
      params: { name: 'prompt_2', arguments: { topic: 'x' } },
    })) as Json;
    const viaGateway = (await client.request({
      method: 'prompts/get',
      params: { name: 'web__prompt_2', arguments: { topic: 'x' } },
    })) as Json;
    expect(JSON.stringify(withoutModernFields(viaGateway))).toBe(
      JSON.stringify(direct).replace('"uri":"test://web/r/0"', '"uri":"web+test://web/r/0"'),
    );
  });

  it('refuses unknown prompts with -32602 saying how to list, and a down upstream with -32003', async () => {
    const client = await connect();
    for (const name of ['web__nope', 'nobody__prompt_0', 'prompt_0']) {
      expect(await errorOf(client.request({ method: 'prompts/get', params: { name } }))).toMatchObject({
        code: -32602,
        message: expect.stringMatching(/prompts\/list/),
        data: { reason: 'prompt_not_found', name },
      });
    }
    expect(fx.web.server.stats.promptGets.nope).toBeUndefined();
    expect(
      await errorOf(client.request({ method: 'prompts/get', params: { name: 'down__prompt_0' } })),
    ).toMatchObject({ code: -32003, data: { reason: 'upstream_unavailable', upstream: 'down' } });
  });
});
