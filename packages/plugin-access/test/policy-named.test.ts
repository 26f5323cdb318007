import type { Identity } from '@switchyard/core';
import { describe, expect, it } from 'vitest';
import { AccessPolicy } from '../src/policy.js';

// Rules over tools and prompts: which targets `tools`, `prompts` and `uris` select, and how they are
// checked at start-up.

const bob: Identity = { id: 'bob', groups: ['contractors'], anonymous: false };
const tool = (name: string, server = 'docs') => ({ identity: bob, method: 'tools/call', server, tool: name });
const prompt = (name: string, server = 'docs') => ({
  identity: bob,
  method: 'prompts/get',
  server,
  prompt: name,
});
const read = (uri: string, server = 'docs') => ({ identity: bob, method: 'resources/read', server, uri });

describe('target patterns', () => {
  it('match only targets of the kinds they name', () => {
    const policy = AccessPolicy.compile({
      default: 'allow',
      rules: [
        { effect: 'deny', tools: ['*'] },
        { effect: 'deny', prompts: ['docs__secret_*'] },
      ],
    });
    expect(policy.decide(tool('docs__anything'))).toEqual({ effect: 'deny', rule: 0 });
    expect(policy.decide(read('docs+file:///a'))).toEqual({ effect: 'allow', rule: undefined });
    expect(policy.decide(prompt('docs__hello')).effect).toBe('allow');
    expect(policy.decide(prompt('docs__secret_plan'))).toEqual({ effect: 'deny', rule: 1 });
  });

  it('select any of the kinds a rule names (uris, tools and prompts are alternatives)', () => {
    const policy = AccessPolicy.compile({
      default: 'allow',
      rules: [{ effect: 'deny', uris: ['hr+**'], tools: ['hr__*'], prompts: ['hr__*'] }],
    });
    expect(policy.decide(read('hr+file:///salaries', 'hr')).effect).toBe('deny');
    expect(policy.decide(tool('hr__raise', 'hr')).effect).toBe('deny');
    expect(policy.decide(prompt('hr__review', 'hr')).effect).toBe('deny');
    expect(policy.decide(tool('docs__search')).effect).toBe('allow');
  });

  it('use * for any run of characters and ? for one, case-sensitively', () => {
    const policy = AccessPolicy.compile({
      default: 'deny',
      rules: [{ effect: 'allow', tools: ['gh__get_?', 'gh__search*'] }],
    });
    expect(policy.decide(tool('gh__get_1', 'gh')).effect).toBe('allow');
    expect(policy.decide(tool('gh__get_12', 'gh')).effect).toBe('deny');
    expect(policy.decide(tool('gh__search_code', 'gh')).effect).toBe('allow');
    expect(policy.decide(tool('GH__search_code', 'gh')).effect).toBe('deny');
  });

  it('combine with servers and methods like any other field', () => {
    const policy = AccessPolicy.compile({
      default: 'allow',
      rules: [{ effect: 'deny', servers: ['gh'], methods: ['tools/call'] }],
    });
    expect(policy.decide(tool('gh__x', 'gh')).effect).toBe('deny');
    expect(policy.decide(prompt('gh__x', 'gh')).effect).toBe('allow');
    expect(policy.decide(tool('docs__x')).effect).toBe('allow');
  });
});

describe('AccessPolicy.decideServers', () => {
  const policy = AccessPolicy.compile({ default: 'allow', rules: [{ effect: 'deny', servers: ['flat-a'] }] });
  const subject = { identity: bob, method: 'tools/call', tool: 'lookup' };

  it('allows a name only when every upstream it may lead to allows it', () => {
    expect(policy.decideServers(subject, ['flat-b']).effect).toBe('allow');
    expect(policy.decideServers(subject, ['flat-b', 'flat-a'])).toEqual({ effect: 'deny', rule: 0 });
    expect(policy.decideServers(subject, []).effect).toBe('allow');
  });
});

describe('list requests', () => {
  it('are refused only by rules naming no servers and no target patterns', () => {
    const policy = AccessPolicy.compile({
      default: 'deny',
      rules: [
        { effect: 'deny', tools: ['*'], methods: ['tools/list'] },
        { effect: 'deny', clients: ['bob'], methods: ['prompts/list'] },
      ],
    });
    expect(policy.decideListRequest(bob, 'tools/list').effect).toBe('allow');
    expect(policy.decideListRequest(bob, 'prompts/list')).toEqual({ effect: 'deny', rule: 1 });
  });
});

describe('validation and warnings', () => {
  it('refuses name patterns that can never match an exposed name, naming the option', () => {
    expect(() => AccessPolicy.compile({ rules: [{ effect: 'deny', tools: ['gh__search.repos'] }] })).toThrow(
      /: options\.rules\[0\]\.tools\[0\]: can never match: exposed names hold only .*, got "gh__search\.repos"$/,
    );
    expect(() => AccessPolicy.compile({ rules: [{ effect: 'deny', prompts: [] }] })).toThrow(
      /: options\.rules\[0\]\.prompts: expected a non-empty array/,
    );
    expect(() => AccessPolicy.compile({ rules: [{ effect: 'deny', methods: ['tools/run'] }] })).toThrow(
      /: options\.rules\[0\]\.methods\[0\]: expected a method rules can name: one of .*tools\/call.*, got "tools\/run"$/,
    );
  });

  it('reports every problem at once', () => {
    expect(() =>
      AccessPolicy.compile({ default: 'maybe', rules: [{ effect: 'deny', tool: ['x'] }] }),
    ).toThrow(
      /: options\.default: expected "allow" or "deny", got "maybe"; options\.rules\[0\]\.tool: unknown rule field/,
    );
  });

  it('warns about rules whose methods never address what their patterns select', () => {
    const policy = AccessPolicy.compile({
      default: 'allow',
      rules: [
        { effect: 'deny', tools: ['*'], methods: ['resources/read'] },
        { effect: 'deny', prompts: ['*'], methods: ['completion/complete'] },
        { effect: 'deny', tools: ['*'], methods: ['tools/list'] },
      ],
    });
    expect(policy.warnings).toEqual([
      'rules[0] names tools but none of its methods addresses such a target (tools/call), so it never matches',
      expect.stringMatching(
        /^rules\[2\] names only list methods together with servers, uris, tools or prompts/,
      ),
    ]);
  });
});
