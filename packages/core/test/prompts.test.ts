import { afterEach, describe, expect, it } from 'vitest';
import {
  Cleanup,
  connect,
  eventually,
  httpUpstream,
  listAll,
  names,
  startGateway,
  upstreamConfig,
} from './support/gateway.js';

const cleanup = new Cleanup();
afterEach(() => cleanup.run());

describe('prompts through the gateway', () => {
  it('merges prompts/list with <server>__<prompt> names and routes prompts/get, exposing embedded resources', async () => {
    const docs = await httpUpstream(cleanup, { name: 'docs', resources: 1, prompts: 5, pageSize: 2 });
    const flat = await httpUpstream(cleanup, { name: 'flat', resources: 1, prompts: 1 });
    const gateway = await startGateway(cleanup, [
      upstreamConfig('docs', docs.url),
      upstreamConfig('flat', flat.url, { prefix: false }),
    ]);
    const client = await connect(cleanup, gateway);
    expect(client.getServerCapabilities()?.prompts).toEqual({ listChanged: true });
    const { items, pages } = await listAll(client, 'prompts/list');
    expect(pages).toBe(3);
    expect(names(items).sort()).toEqual(
      [
        'docs__prompt_0',
        'docs__prompt_1',
        'docs__prompt_2',
        'docs__prompt_3',
        'docs__prompt_4',
        'prompt_0',
      ].sort(),
    );
    expect(items.find((p) => p.name === 'docs__prompt_2')).toMatchObject({
      arguments: [{ name: 'topic', required: false }],
    });

    const got = await client.getPrompt({ name: 'docs__prompt_2', arguments: { topic: 'x' } });
    expect(JSON.stringify(got.messages[0])).toContain('prompt_2');
    expect(got.messages[1]?.content).toEqual({
      type: 'resource',
      resource: { uri: 'docs+test://docs/r/0', mimeType: 'text/plain', text: 'resource 0' },
    });
    const unprefixed = await client.getPrompt({ name: 'prompt_0' });
    expect(unprefixed.messages[1]?.content).toMatchObject({ resource: { uri: 'test://flat/r/0' } });
    expect(docs.server.stats.promptGets).toEqual({ prompt_2: 1 });
    expect(flat.server.stats.promptGets).toEqual({ prompt_0: 1 });

    await expect(
      client.request({
        method: 'prompts/get',
        params: { name: 'docs__prompt_1', arguments: { topic: 7 } },
      } as never),
    ).rejects.toMatchObject({ code: -32602, message: expect.stringContaining("argument 'topic'") });
    expect(docs.server.stats.promptGets).toEqual({ prompt_2: 1 });
    await expect(client.getPrompt({ name: 'docs__nope' })).rejects.toMatchObject({
      code: -32602,
      message: expect.stringMatching(/Unknown prompt 'docs__nope'.*prompts\/list/),
      data: { reason: 'prompt_not_found' },
    });
  });

  it('completes prompt arguments by exposed name', async () => {
    const docs = await httpUpstream(cleanup, { name: 'docs', resources: 1, prompts: 2 });
    const gateway = await startGateway(cleanup, [upstreamConfig('docs', docs.url)]);
    const client = await connect(cleanup, gateway);
    const completed = await client.complete({
      ref: { type: 'ref/prompt', name: 'docs__prompt_1' },
      argument: { name: 'topic', value: 'a' },
    });
    expect(completed.completion.values).toEqual(['alpha']);
    await expect(
      client.complete({
        ref: { type: 'ref/prompt', name: 'docs__nope' },
        argument: { name: 'topic', value: '' },
      }),
    ).rejects.toMatchObject({ code: -32602, data: { reason: 'prompt_not_found' } });
  });

  it('curates prompts with allow/deny globs and re-emits prompts/list_changed', async () => {
    const docs = await httpUpstream(cleanup, { name: 'docs', resources: 0, prompts: 3 });
    const gateway = await startGateway(cleanup, [
      upstreamConfig('docs', docs.url, { prompts: { deny: ['prompt_1'] } }),
    ]);
    const client = await connect(cleanup, gateway);
    expect(names((await listAll(client, 'prompts/list')).items)).toEqual([
      'docs__prompt_0',
      'docs__prompt_2',
    ]);
    await expect(client.getPrompt({ name: 'docs__prompt_1' })).rejects.toMatchObject({
      data: { reason: 'prompt_not_found' },
    });
    expect(docs.server.stats.promptGets).toEqual({});

    let changed = false;
    client.setNotificationHandler('notifications/prompts/list_changed', () => {
      changed = true;
    });
    await docs.server.setPromptCount(4);
    await eventually(() => changed || undefined, 'prompts/list_changed');
    expect(names((await listAll(client, 'prompts/list')).items)).toContain('docs__prompt_3');
  });
});
