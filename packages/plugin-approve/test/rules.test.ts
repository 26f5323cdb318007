import type { RequestContext } from '@switchyard/core';
import { validateOptions } from '@switchyard/core';
import { describe, expect, it } from 'vitest';
import { effectiveHints, ToolAnnotations } from '../src/annotations.js';
import { withinBounds } from '../src/json.js';
import { approveOptionsSchema } from '../src/options.js';
import { matchingRule } from '../src/rules.js';

const rules = validateOptions('approve', approveOptionsSchema, {
  rules: [
    { tools: ['db__drop_*'], by: ['leads'] },
    { annotations: { destructiveHint: true } },
    { when: 'arguments.path.startsWith("/etc")' },
  ],
}).rules;

function ctx(tool: string, args: Record<string, unknown> = {}) {
  const [upstream, name] = tool.split('__') as [string, string];
  const target = { kind: 'tool' as const, upstream, name, exposed: tool };
  const request = {
    method: 'tools/call',
    params: { name: tool, arguments: args },
    identity: { id: 'alice', groups: [], anonymous: false },
    target,
  } as unknown as RequestContext;
  return { request, target };
}

describe('matchingRule', () => {
  const annotations = new ToolAnnotations();
  annotations.record('db', {
    tools: [
      { name: 'drop_table', annotations: { destructiveHint: false, readOnlyHint: false } },
      { name: 'read', annotations: { readOnlyHint: true } },
      { name: 'write', annotations: { readOnlyHint: false, destructiveHint: false } },
      { name: 'purge' },
    ],
  });
  const match = (tool: string, args?: Record<string, unknown>) => {
    const { request, target } = ctx(tool, args);
    return matchingRule(rules, request, target, annotations)?.index;
  };

  it('takes the first rule that matches', () => {
    expect(match('db__drop_table')).toBe(0);
  });

  it('judges annotations with the MCP defaults: unannotated and unknown tools are destructive, read-only ones never', () => {
    expect(match('db__purge')).toBe(1);
    expect(match('db__never_listed')).toBe(1);
    expect(match('db__read', { path: '/tmp' })).toBeUndefined();
    expect(match('db__write', { path: '/tmp' })).toBeUndefined();
  });

  it('evaluates `when` over the arguments', () => {
    expect(match('db__write', { path: '/etc/passwd' })).toBe(2);
    expect(match('db__write', { path: '/tmp/x' })).toBeUndefined();
  });

  it('holds the call when `when` cannot be evaluated (when in doubt, ask)', () => {
    expect(match('db__write', {})).toBe(2);
    expect(match('db__write', { path: 42 })).toBe(2);
  });

  it('effective hints: a read-only tool is not destructive, whatever it says', () => {
    expect(effectiveHints({ readOnlyHint: true, destructiveHint: true }).destructiveHint).toBe(false);
    expect(effectiveHints(undefined)).toEqual({
      readOnlyHint: false,
      destructiveHint: true,
      idempotentHint: false,
      openWorldHint: true,
    });
  });
});

describe('withinBounds', () => {
  it('refuses deep nesting without recursion, and too many values', () => {
    let deep: unknown = 1;
    for (let i = 0; i < 100_000; i++) deep = [deep];
    expect(withinBounds(deep)).toBe(false);
    expect(withinBounds(Array.from({ length: 200_000 }, () => 0))).toBe(false);
    expect(withinBounds({ a: [1, { b: 'c' }] })).toBe(true);
  });
});
