import { describe, expect, it } from 'vitest';
import { AccessPolicy } from '../src/policy.js';
import { compileWhen, MAX_WHEN_LENGTH, type WhenInput } from '../src/when.js';
import { MAX_ARGUMENT_DEPTH, MAX_ARGUMENT_VALUES } from '../src/when-arguments.js';

const base: WhenInput = { identity: 'alice', groups: ['admins', 'platform'] };
const verdict = (source: string, input: Partial<WhenInput> = {}) =>
  compileWhen(source).evaluate({ ...base, ...input });
const compileError = (when: string, index = 0): string => {
  try {
    AccessPolicy.compile({ rules: [...Array(index).fill({ effect: 'allow' }), { effect: 'deny', when }] });
  } catch (error) {
    return (error as Error).message;
  }
  throw new Error('compiled');
};

describe('compileWhen: compiled once, errors name the rule path', () => {
  it('a syntax error is an option error naming rules[i].when', () => {
    expect(compileError('arguments.path.startsWith(', 2)).toMatch(
      /options\.rules\[2\]\.when: expected a valid CEL condition \(syntax error at 1:\d+: /,
    );
  });

  it('an unknown variable or function is refused at load', () => {
    expect(compileError('group == "x"')).toBe(
      'Plugin @switchyard/plugin-access: options.rules[0].when: expected a valid CEL condition (reads an unknown variable "group" (the variables are identity, groups, server, tool, arguments, uri)), got "group == \\"x\\""',
    );
    expect(compileError('arguments.path.startwith("/")')).toBe(
      'Plugin @switchyard/plugin-access: options.rules[0].when: expected a valid CEL condition (calls an unknown function "startwith"), got "arguments.path.startwith(\\"/\\")"',
    );
    // Comprehension variables are bound, not unknown.
    expect(() => compileWhen('groups.exists(g, g.startsWith("adm"))')).not.toThrow();
  });

  it('an over-long or empty expression is refused', () => {
    expect(compileError(`"a" == "${'a'.repeat(MAX_WHEN_LENGTH)}"`)).toMatch(/over the limit of 2048/);
    expect(compileError('')).toMatch(/options\.rules\[0\]\.when: .*, got ""$/);
    expect(compileError(`${'('.repeat(5000)}true${')'.repeat(5000)}`)).toMatch(
      /options\.rules\[0\]\.when: expected a valid CEL condition/,
    );
  });

  it('knows which variables it reads', () => {
    expect([...compileWhen('"admins" in groups && arguments.path == uri').variables].sort()).toEqual([
      'arguments',
      'groups',
      'uri',
    ]);
  });
});

describe('evaluation over each variable', () => {
  it('identity is the client id, groups a list of strings', () => {
    expect(verdict('identity == "alice"')).toBe(true);
    expect(verdict('"admins" in groups && size(groups) == 2')).toBe(true);
    expect(verdict('"ops" in groups', { groups: [] })).toBe(false);
  });

  it('server, tool and uri are strings, null when the request has none', () => {
    expect(verdict('server == "fs" && tool == "fs__read"', { server: 'fs', tool: 'fs__read' })).toBe(true);
    expect(verdict('uri.startsWith("docs+file:///public/")', { uri: 'docs+file:///public/a' })).toBe(true);
    expect(verdict('tool == null && uri == null && server == null')).toBe(true);
  });

  it('arguments is a map of the JSON arguments; numbers compare with int literals', () => {
    const given = { path: '/tmp/a', depth: 3, opts: { force: true }, tags: ['x', 'y'] };
    const over = (source: string) => verdict(source, { arguments: { given } });
    expect(over('arguments.path.startsWith("/tmp")')).toBe(true);
    expect(over('arguments.depth > 2 && arguments.depth == 3')).toBe(true);
    expect(over('arguments.opts.force && "y" in arguments.tags')).toBe(true);
    expect(over('has(arguments.recursive)')).toBe(false);
    expect(verdict('size(arguments) == 0', { arguments: { given: undefined } })).toBe(true);
    expect(verdict('arguments == null')).toBe(true);
    expect(verdict('arguments.constructor == 1', { arguments: { given: { constructor: 1 } } })).toBe(true);
  });
});

describe('errors and missing values', () => {
  it('an evaluation error is reported, not thrown', () => {
    expect(verdict('arguments.path == "/"', { arguments: { given: {} } })).toEqual({
      error: expect.stringMatching(/path/),
    });
    expect(verdict('uri.startsWith("x")')).toEqual({ error: expect.stringMatching(/overload/) });
    expect(verdict('identity')).toEqual({ error: 'the condition evaluates to a string, not a bool' });
  });

  it('pending arguments: what does not depend on them is still decided', () => {
    const pending = { arguments: 'pending' as const };
    expect(verdict('arguments.path.startsWith("/etc")', pending)).toBe('pending');
    expect(verdict('!has(arguments.confirm)', pending)).toBe('pending');
    expect(verdict('"ops" in groups && arguments.path == "/"', pending)).toBe(false);
    expect(verdict('arguments.path == "/" || "admins" in groups', pending)).toBe(true);
  });
});

describe('bounds', () => {
  it('arguments deeper or larger than the bounds are not read, and the condition fails', () => {
    let deep: unknown = 'leaf';
    for (let i = 0; i < MAX_ARGUMENT_DEPTH + 1; i++) deep = { d: deep };
    expect(verdict('has(arguments.d)', { arguments: { given: deep } })).toEqual({
      error: expect.stringMatching(/nest deeper than 32 levels/),
    });
    const many = { list: Array.from({ length: MAX_ARGUMENT_VALUES }, (_, i) => i) };
    expect(verdict('size(arguments.list) > 0', { arguments: { given: many } })).toEqual({
      error: expect.stringMatching(/more than 10000 values/),
    });
    // What does not depend on them is still decided.
    expect(verdict('"admins" in groups || has(arguments.d)', { arguments: { given: deep } })).toBe(true);
    expect(verdict('has(arguments.list)', { arguments: { given: 'not an object' } })).toEqual({
      error: expect.stringMatching(/not a JSON object/),
    });
  });

  it('an expensive expression stops at the cost budget instead of running unbounded', () => {
    const ten = '[0,1,2,3,4,5,6,7,8,9]';
    // 10^8 steps unmetered; stopped after a few thousand.
    const nested = `${ten}.all(a, ${ten}.all(b, ${ten}.all(c, ${ten}.all(d, ${ten}.all(e, ${ten}.all(f, ${ten}.all(g, ${ten}.all(h, true))))))))`;
    const started = performance.now();
    expect(verdict(nested)).toEqual({ error: expect.stringMatching(/more than 20000 cost units/) });
    expect(performance.now() - started).toBeLessThan(1000);
    // Long strings cost their length: a client cannot make each step expensive.
    const text = 'a'.repeat(50_000);
    const given = { text, items: Array.from({ length: 100 }, (_, i) => i) };
    expect(
      verdict('arguments.items.all(i, !arguments.text.contains("b"))', { arguments: { given } }),
    ).toEqual({
      error: expect.stringMatching(/cost units/),
    });
    // Ordinary conditions over a few hundred items stay well inside it.
    const paths = Array.from({ length: 300 }, (_, i) => `/tmp/${i}`);
    expect(
      verdict('arguments.paths.all(p, p.startsWith("/tmp/"))', { arguments: { given: { paths } } }),
    ).toBe(true);
  });
});
