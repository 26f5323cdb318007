import type { Client } from '@modelcontextprotocol/client';
import type { Identity } from '@switchyard/core';
import { afterEach, describe, expect, it } from 'vitest';
import type { AccessOptions } from '../src/index.js';
import { AccessPolicy, type Subject } from '../src/policy.js';
import {
  alice,
  bob,
  Cleanup,
  connect as connectAs,
  FORBIDDEN,
  gatewayWith as startGateway,
  type UpstreamSpec,
  walk,
} from './support.js';

// Rules with `when`: the policy's matching and failure semantics, then lists, calls and gets through a
// real gateway, a testkit upstream over HTTP and official SDK clients.

const cleanup = new Cleanup();
afterEach(() => cleanup.run());

const call = (identity: Identity, tool: string, args?: Record<string, unknown>): Subject => ({
  identity,
  method: 'tools/call',
  server: 'fs',
  tool,
  arguments: { given: args },
});

describe('AccessPolicy with when', () => {
  it('a rule matches only when its other fields match and when is true', () => {
    const policy = AccessPolicy.compile({
      default: 'allow',
      rules: [{ effect: 'deny', tools: ['fs__write'], when: 'arguments.path.startsWith("/etc")' }],
    });
    expect(policy.decide(call(alice, 'fs__write', { path: '/etc/passwd' }))).toEqual({
      effect: 'deny',
      rule: 0,
    });
    expect(policy.decide(call(alice, 'fs__write', { path: '/tmp/x' })).effect).toBe('allow');
    expect(policy.decide(call(alice, 'fs__read', { path: '/etc/passwd' })).effect).toBe('allow');
  });

  it('a condition that cannot be evaluated never widens access: allow does not match, deny does', () => {
    const allow = AccessPolicy.compile({
      default: 'deny',
      rules: [{ effect: 'allow', tools: ['fs__*'], when: 'arguments.path.startsWith("/tmp")' }],
    });
    expect(allow.decide(call(alice, 'fs__read', { path: '/tmp/a' })).effect).toBe('allow');
    expect(allow.decide(call(alice, 'fs__read', {})).effect).toBe('deny'); // no path: an error
    expect(allow.decide(call(alice, 'fs__read', { path: 7 })).effect).toBe('deny'); // no overload
    const deny = AccessPolicy.compile({
      default: 'allow',
      rules: [{ effect: 'deny', tools: ['fs__*'], when: 'arguments.path.startsWith("/etc")' }],
    });
    expect(deny.decide(call(alice, 'fs__read', {}))).toEqual({ effect: 'deny', rule: 0 });
    let deep: unknown = '/tmp';
    for (let i = 0; i < 40; i++) deep = [deep];
    expect(deny.decide(call(alice, 'fs__read', { path: '/tmp', deep })).effect).toBe('deny'); // over the bounds
  });

  it('at list time (arguments pending) a rule needing them neither hides nor refuses', () => {
    const policy = AccessPolicy.compile({
      default: 'deny',
      rules: [
        { effect: 'deny', tools: ['fs__write'], when: 'arguments.path.startsWith("/etc")' },
        { effect: 'allow', tools: ['fs__*'], when: '"platform" in groups && has(arguments.path)' },
        { effect: 'deny', clients: ['bob'], when: 'has(arguments.force)' },
      ],
    });
    const item = (identity: Identity, tool: string): Subject => ({
      identity,
      method: 'tools/call',
      server: 'fs',
      tool,
      arguments: 'pending',
    });
    expect(policy.decide(item(alice, 'fs__write'))).toEqual({ effect: 'allow', rule: 1 });
    expect(policy.decide(item(bob, 'fs__write')).effect).toBe('deny'); // groups decide without arguments
    expect(policy.decideListRequest(bob, 'tools/list').effect).toBe('allow');
  });

  it('identityDependent when a condition reads identity or groups', () => {
    expect(
      AccessPolicy.compile({ rules: [{ effect: 'allow', when: 'uri != null' }] }).identityDependent,
    ).toBe(false);
    expect(
      AccessPolicy.compile({ rules: [{ effect: 'allow', when: 'identity == "a"' }] }).identityDependent,
    ).toBe(true);
  });

  it('warns when a condition reads arguments in a rule that also decides resource requests', () => {
    const warned = AccessPolicy.compile({ rules: [{ effect: 'deny', when: 'arguments.x == 1' }] }).warnings;
    expect(warned).toEqual([
      expect.stringMatching(/^rules\[0\]\.when reads arguments .* deny rule matches them/),
    ]);
    expect(
      AccessPolicy.compile({ rules: [{ effect: 'deny', tools: ['*'], when: 'arguments.x == 1' }] }).warnings,
    ).toEqual([]);
  });
});

const FS: UpstreamSpec = { name: 'fs', options: { name: 'fs', tools: 3, prompts: 2 } };
const errorOf = (promise: Promise<unknown>) =>
  promise.then(
    () => undefined,
    (error: unknown) => error as { code: number; data?: Record<string, unknown> },
  );
const callTool = (client: Client, name: string, args: Record<string, unknown>) =>
  client.request({ method: 'tools/call', params: { name, arguments: args } });

describe('when through the gateway', () => {
  const options: AccessOptions = {
    default: 'deny',
    rules: [
      { effect: 'deny', tools: ['fs__tool_0'], when: 'arguments.text.startsWith("/etc")' },
      { effect: 'allow', tools: ['fs__*'], when: '"platform" in groups' },
      { effect: 'allow', prompts: ['fs__*'], when: 'arguments.topic == "public"' },
    ],
  };

  it('lists: a condition on arguments hides nothing, one on groups does', async () => {
    const { gateway } = await startGateway(cleanup, options, [FS]);
    const tools = ['fs__tool_0', 'fs__tool_1', 'fs__tool_2'];
    expect((await walk(await connectAs(cleanup, gateway, alice), 'tools/list')).items).toEqual(tools);
    expect((await walk(await connectAs(cleanup, gateway, bob), 'tools/list')).items).toEqual([]);
    const prompts = (await walk(await connectAs(cleanup, gateway, bob), 'prompts/list')).items;
    expect(prompts).toEqual(['fs__prompt_0', 'fs__prompt_1']);
  });

  it('calls and gets are decided with their arguments; a refused call never reaches the upstream', async () => {
    const { gateway, server } = await startGateway(cleanup, options, [FS]);
    const client = await connectAs(cleanup, gateway, alice);
    expect(await errorOf(callTool(client, 'fs__tool_0', { text: '/etc/passwd' }))).toMatchObject(FORBIDDEN);
    expect(server('fs').stats.toolCalls.tool_0).toBeUndefined();
    await callTool(client, 'fs__tool_0', { text: '/tmp/a' });
    expect(server('fs').stats.toolCalls.tool_0).toBe(1);
    const get = (topic: string) =>
      client.request({ method: 'prompts/get', params: { name: 'fs__prompt_0', arguments: { topic } } });
    expect(await errorOf(get('secret'))).toMatchObject(FORBIDDEN);
    expect((await get('public')).messages).toBeDefined();
  });
});
