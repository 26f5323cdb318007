import type { Client } from '@modelcontextprotocol/client';
import { afterEach, describe, expect, it } from 'vitest';
import { TestServer, type TestServerOptions } from '../src/index.js';
import { Cleanup, connectHttp, interactiveClient } from './helpers.js';

const cleanup = new Cleanup();
afterEach(() => cleanup.run());

async function connected(era: 'legacy' | 'modern', options: TestServerOptions) {
  const server = new TestServer({ modern: true, ...options });
  cleanup.add(() => server.close());
  const http = await server.listenHttp();
  const { client } = interactiveClient(era);
  await connectHttp(client, http.url, cleanup);
  expect(client.getProtocolEra()).toBe(era);
  return { server, client };
}

/** Walks every prompts/list page with explicit cursors. */
async function promptPages(client: Client) {
  const names: string[] = [];
  let pages = 0;
  let cursor: string | undefined;
  do {
    const page = await client.request({
      method: 'prompts/list',
      params: cursor === undefined ? {} : { cursor },
    });
    names.push(...page.prompts.map((p) => p.name));
    cursor = page.nextCursor;
    pages++;
  } while (cursor !== undefined);
  return { names, pages };
}

describe.each(['legacy', 'modern'] as const)('prompts, %s era over HTTP', (era) => {
  it('lists generated prompts in pages, after them the fixture prompt', async () => {
    const { client } = await connected(era, { prompts: 4, pageSize: 2, fixture: 'conformance' });
    expect(client.getServerCapabilities()?.prompts).toEqual({ listChanged: true });
    expect(await promptPages(client)).toEqual({
      names: ['prompt_0', 'prompt_1', 'prompt_2', 'prompt_3', 'test_prompt_with_arguments'],
      pages: 3,
    });
    const { prompts } = await client.listPrompts(undefined, { cacheMode: 'bypass' });
    expect(prompts[1]).toEqual({
      name: 'prompt_1',
      title: 'Prompt 1',
      description: expect.any(String),
      arguments: [{ name: 'topic', description: expect.any(String), required: false }],
    });
  });

  it('gets a prompt naming its arguments, with resource 0 embedded; unknown prompts answer -32602', async () => {
    const { server, client } = await connected(era, { name: 'p', prompts: 2, resources: 3 });
    const got = await client.getPrompt({ name: 'prompt_1', arguments: { topic: 'trains' } });
    expect(got.messages).toEqual([
      { role: 'user', content: { type: 'text', text: 'prompt_1 {"topic":"trains"}' } },
      {
        role: 'user',
        content: {
          type: 'resource',
          resource: { uri: 'test://p/r/0', mimeType: 'text/plain', text: 'resource 0' },
        },
      },
    ]);
    await expect(client.getPrompt({ name: 'prompt_2' })).rejects.toMatchObject({
      code: -32602,
      message: expect.stringContaining('Unknown prompt: prompt_2'),
    });
    expect(server.stats.promptGets).toEqual({ prompt_1: 1, prompt_2: 1 });
  });

  it('the fixture prompt and prompt-argument completions work beside generated prompts', async () => {
    const { client } = await connected(era, { prompts: 1, resources: 0, fixture: 'conformance' });
    // The conformance fixture brings resources of its own: resource 0 is its first.
    const generated = await client.getPrompt({ name: 'prompt_0' });
    expect(generated.messages[1]?.content).toMatchObject({
      type: 'resource',
      resource: { uri: 'test://static-text' },
    });
    const fixture = await client.getPrompt({
      name: 'test_prompt_with_arguments',
      arguments: { arg1: 'a', arg2: 'b' },
    });
    expect(fixture.messages).toEqual([
      { role: 'user', content: { type: 'text', text: 'test_prompt_with_arguments {"arg1":"a","arg2":"b"}' } },
    ]);
    const completion = await client.complete({
      ref: { type: 'ref/prompt', name: 'prompt_0' },
      argument: { name: 'topic', value: 'b' },
    });
    expect(completion.completion.values).toEqual(['beta']);
  });
});

describe('prompts without resources', () => {
  it('answers only the text message', async () => {
    const { client } = await connected('legacy', { prompts: 1, resources: 0 });
    const got = await client.getPrompt({ name: 'prompt_0' });
    expect(got.messages).toEqual([{ role: 'user', content: { type: 'text', text: 'prompt_0 {}' } }]);
  });
});
