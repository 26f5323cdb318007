import { readFileSync } from 'node:fs';
import { Cleanup } from '@switchyard/testkit';
import { afterEach, describe, expect, it } from 'vitest';
import { MAX_ARGUMENTS_BYTES } from '../src/record.js';
import { auditedGateway, recordOf } from './support.js';

// Records of tool calls, prompt gets and prompt completions: the names the client used, where the
// gateway routed them, and the arguments only when configured.

const cleanup = new Cleanup();
afterEach(() => cleanup.run());

const UPSTREAM = { resources: 1, tools: 3, prompts: 2 };

describe('audit records of tools and prompts', () => {
  it('name the tool, its upstream and the upstream’s own name, without arguments by default', async () => {
    const gw = await auditedGateway(cleanup, {}, UPSTREAM);
    const record = await recordOf(gw, 'tools/call', {
      name: 'docs__tool_1',
      arguments: { text: 'hunter2' },
    });
    expect(record).toMatchObject({
      method: 'tools/call',
      tool: 'docs__tool_1',
      upstream: 'docs',
      upstreamName: 'tool_1',
      outcome: 'ok',
    });
    expect(record).not.toHaveProperty('params');
    expect(record).not.toHaveProperty('uri');
    expect(readFileSync(gw.file, 'utf8')).not.toContain('hunter2');
    expect(Object.keys(record).slice(5, 9)).toEqual(['method', 'tool', 'upstream', 'upstreamName']);
  });

  it('records arguments when configured, with the redactions applied', async () => {
    const gw = await auditedGateway(
      cleanup,
      { arguments: true, redact: ['params.arguments.password'] },
      UPSTREAM,
    );
    const tool = await recordOf(gw, 'tools/call', {
      name: 'docs__tool_0',
      arguments: { text: 'hello', password: 'hunter2' },
    });
    expect(tool.params).toEqual({ arguments: { text: 'hello', password: '[REDACTED]' } });
    const prompt = await recordOf(gw, 'prompts/get', {
      name: 'docs__prompt_1',
      arguments: { topic: 'gateways' },
    });
    expect(prompt).toMatchObject({
      method: 'prompts/get',
      prompt: 'docs__prompt_1',
      upstream: 'docs',
      upstreamName: 'prompt_1',
      params: { arguments: { topic: 'gateways' } },
      outcome: 'ok',
    });
    const huge = await recordOf(gw, 'tools/call', {
      name: 'docs__tool_0',
      arguments: { text: 'x'.repeat(MAX_ARGUMENTS_BYTES) },
    });
    expect(huge.params?.arguments).toMatch(/^\[OMITTED: \d+ bytes, over 16384\]$/);
    expect(readFileSync(gw.file, 'utf8')).not.toContain('hunter2');
  });

  it('redacts a whole params object, and records the completion argument of a prompt', async () => {
    const gw = await auditedGateway(cleanup, { arguments: true, redact: ['params'] }, UPSTREAM);
    const call = await recordOf(gw, 'tools/call', { name: 'docs__tool_2', arguments: { text: 'a' } });
    expect(call.params).toBe('[REDACTED]');
    const completion = await recordOf(gw, 'completion/complete', {
      ref: { type: 'ref/prompt', name: 'docs__prompt_0' },
      argument: { name: 'topic', value: 'ga' },
    });
    expect(completion).toMatchObject({
      method: 'completion/complete',
      prompt: 'docs__prompt_0',
      upstream: 'docs',
      upstreamName: 'prompt_0',
      params: '[REDACTED]',
    });
  });

  it('records refusals and unknown names with what the client asked for', async () => {
    const gw = await auditedGateway(cleanup, {}, UPSTREAM);
    const denied = await recordOf(gw, 'tools/call', { name: 'docs__secret_tool' });
    expect(denied).toMatchObject({
      tool: 'docs__secret_tool',
      outcome: 'error',
      errorCode: -32007,
      reason: 'forbidden',
    });
    const unknown = await recordOf(gw, 'prompts/get', { name: 'docs__nothing_here' });
    expect(unknown).toMatchObject({
      prompt: 'docs__nothing_here',
      outcome: 'error',
      errorCode: -32602,
      reason: 'prompt_not_found',
    });
    expect(unknown).not.toHaveProperty('upstreamName');
    expect(gw.upstream.stats.toolCalls).toEqual({});
  });

  it('names the routed target of reads and template completions as the upstream knows them', async () => {
    const gw = await auditedGateway(cleanup, {}, { resources: 2 }, false);
    expect(await recordOf(gw, 'resources/read', { uri: 'test://docs/r/1' })).toMatchObject({
      uri: 'test://docs/r/1',
      upstream: 'docs',
      upstreamUri: 'test://docs/r/1',
    });
    const completion = await recordOf(gw, 'completion/complete', {
      ref: { type: 'ref/resource', uri: 'test://docs/items/{id}' },
      argument: { name: 'id', value: 'a' },
    });
    expect(completion).toMatchObject({
      uri: 'test://docs/items/{id}',
      upstream: 'docs',
      upstreamUri: 'test://docs/items/{id}',
      params: { argument: { name: 'id', value: 'a' } },
    });
  });
});
