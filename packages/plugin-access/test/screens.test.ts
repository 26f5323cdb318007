import type { Identity } from '@switchyard/core';
import { describe, expect, it } from 'vitest';
import { screenCompletion } from '../src/completion.js';
import { WITHHELD, withholdReadContents, withholdResources } from '../src/withhold.js';
import { guardFor, requestOf } from './guard-support.js';

// What an allowed answer may show a caller: the screens over tool results, prompt messages, read
// contents and completion values, and the guard applying them.

const mayRead = (uri: string) => !uri.includes('secret');

describe('withholdResources', () => {
  it('removes denied links, redacts denied embedded resources in tool content, and leaves the rest alone', () => {
    const result = {
      content: [
        { type: 'text', text: 'see' },
        { type: 'resource_link', uri: 'docs+file:///secret', name: 's' },
        { type: 'resource', resource: { uri: 'docs+file:///secret', text: 'x' } },
        { type: 'resource_link', uri: 'docs+file:///open', name: 'o' },
      ],
      structuredContent: { kept: true },
    };
    const out = withholdResources('tools/call', result, mayRead);
    expect(out.withheld).toBe(2);
    expect(out.result).toEqual({
      content: [result.content[0], WITHHELD, result.content[3]],
      structuredContent: { kept: true },
    });
    const open = { content: [result.content[3]] };
    expect(withholdResources('tools/call', open, mayRead)).toEqual({ result: open, withheld: 0 });
  });

  it('screens prompt messages, whose content is one item or a list; a message of one denied link goes', () => {
    const result = {
      messages: [
        { role: 'user', content: { type: 'resource', resource: { uri: 'docs+file:///secret' } } },
        { role: 'user', content: { type: 'resource_link', uri: 'docs+file:///secret', name: 's' } },
        { role: 'user', content: { type: 'text', text: 'hi' } },
      ],
    };
    const out = withholdResources('prompts/get', result, mayRead);
    expect(out.withheld).toBe(2);
    expect(out.result).toEqual({ messages: [{ role: 'user', content: WITHHELD }, result.messages[2]] });
  });
});

describe('withholdReadContents', () => {
  it("drops other resources' contents the caller may not read, keeping the one asked for", () => {
    const asked = 'docs+file:///folder/secret';
    const result = {
      contents: [
        { uri: asked, text: 'asked for, already allowed' },
        { uri: 'docs+file:///folder/secret/a', text: 'denied' },
        { uri: 'docs+file:///folder/b', text: 'open' },
        { text: 'no uri' },
      ],
    };
    const out = withholdReadContents(asked, result, mayRead);
    expect(out).toEqual({ result: { contents: [result.contents[0], result.contents[2]] }, withheld: 2 });
    const open = { contents: [result.contents[2]] };
    expect(withholdReadContents('docs+file:///folder/b', open, mayRead)).toEqual({
      result: open,
      withheld: 0,
    });
  });
});

describe('screenCompletion', () => {
  const params = (uri: string, name: string, context?: Record<string, string>) => ({
    ref: { type: 'ref/resource', uri },
    argument: { name, value: '' },
    ...(context === undefined ? {} : { context: { arguments: context } }),
  });
  const answer = (values: string[], total?: number) => ({
    completion: { values, ...(total === undefined ? {} : { total }), hasMore: false },
  });

  it('drops values whose expansion, with the arguments already given, the caller may not read', () => {
    const denyAcmeSecret = (uri: string) => uri !== 'docs+file:///acme/secret-repo';
    const template = 'docs+file:///{org}/{repo}';
    const values = ['web', 'secret-repo'];
    expect(
      screenCompletion(params(template, 'repo', { org: 'acme' }), answer(values, 2), denyAcmeSecret),
    ).toEqual({ result: answer(['web'], 1), withheld: 1 });
    // Another org's repo of that name may be read.
    const other = answer(values, 2);
    expect(screenCompletion(params(template, 'repo', { org: 'other' }), other, denyAcmeSecret)).toEqual({
      result: other,
      withheld: 0,
    });
  });

  it('keeps total only when the upstream showed every value, and leaves prompt completions alone', () => {
    const partial = screenCompletion(params('docs+file:///{id}', 'id'), answer(['secret', 'a'], 40), mayRead);
    expect(partial.result).toEqual({ completion: { values: ['a'], hasMore: false } });
    const prompt = { ref: { type: 'ref/prompt', name: 'docs__secret' }, argument: { name: 'x', value: '' } };
    const values = answer(['secret']);
    expect(screenCompletion(prompt, values, mayRead)).toEqual({ result: values, withheld: 0 });
  });

  it('offers nothing from a template the SDK cannot expand', () => {
    expect(screenCompletion(params('docs+file:///{unclosed', 'id'), answer(['a']), () => true)).toEqual({
      result: answer([]),
      withheld: 1,
    });
  });
});

describe('AccessGuard.request on answered requests', () => {
  const bob: Identity = { id: 'bob', groups: ['contractors'], anonymous: false };
  const policy = {
    default: 'allow' as const,
    rules: [{ effect: 'deny' as const, groups: ['contractors'], uris: ['docs+file:///private/**'] }],
  };

  it('screens read contents and completion values, counts them as hidden, and marks answers private', async () => {
    const { guard, counts } = guardFor(policy);
    const read = await guard.request(
      requestOf(bob, 'resources/read', { uri: 'docs+file:///all' }),
      async () => ({
        ok: true,
        result: {
          contents: [{ uri: 'docs+file:///all' }, { uri: 'docs+file:///private/key' }],
          cacheScope: 'public',
        },
      }),
    );
    expect(read).toEqual({
      ok: true,
      result: { contents: [{ uri: 'docs+file:///all' }], cacheScope: 'private' },
    });
    const completion = await guard.request(
      requestOf(bob, 'completion/complete', {
        ref: { type: 'ref/resource', uri: 'docs+file:///{dir}/key' },
        argument: { name: 'dir', value: '' },
      }),
      async () => ({ ok: true, result: { completion: { values: ['public', 'private'], total: 2 } } }),
    );
    expect(completion).toEqual({ ok: true, result: { completion: { values: ['public'], total: 1 } } });
    expect(counts).toEqual({ denied: 0, hidden: 2 });
    // The rules name groups: even an answer nothing was taken from depends on who asks.
    const whole = await guard.request(
      requestOf(bob, 'resources/read', { uri: 'docs+file:///all' }),
      async () => ({
        ok: true,
        result: { contents: [{ uri: 'docs+file:///all' }], cacheScope: 'public' },
      }),
    );
    expect(whole).toMatchObject({ ok: true, result: { cacheScope: 'private' } });
  });

  it('decides each expanded value on its canonical URI, so no spelling of a denied one is offered', async () => {
    const { guard } = guardFor(policy);
    const complete = (uri: string, values: string[]) =>
      guard.request(
        requestOf(bob, 'completion/complete', {
          ref: { type: 'ref/resource', uri },
          argument: { name: 'p', value: '' },
        }),
        async () => ({ ok: true, result: { completion: { values } } }),
      );
    // `{p}` encodes "/" (..%2Fprivate%2Fkey), `{+p}` keeps it; either way the URI is /private/key.
    const spellings = ['../private/key', '..%2Fprivate', '%2e%2e/private/x', './../private', 'docs', 'a/b'];
    for (const template of ['docs+file:///public/{p}', 'docs+file:///public/{+p}']) {
      expect(await complete(template, spellings), template).toEqual({
        ok: true,
        result: { completion: { values: ['docs', 'a/b'] } },
      });
    }
  });
});
