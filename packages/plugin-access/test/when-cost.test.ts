import { describe, expect, it } from 'vitest';
import { compileWhen, type WhenInput } from '../src/when.js';

const ten = '[1,2,3,4,5,6,7,8,9,10]';
const input: WhenInput = { identity: 'alice', groups: ['g'], tool: 'x' };
const loops = (body: string) => `${ten}.all(a, ${ten}.all(b, ${ten}.all(c, ${ten}.all(d, ${body}))))`;

describe('the when budget bounds the work inside functions', () => {
  it('refuses at load a constant text matched against a pattern that cannot fit the budget', () => {
    const text = 'a'.repeat(1200);
    for (const pattern of ['(a*)*(a|b)*[a-z]*a{0,100}$', '(?:a?){50}a{50}']) {
      expect(() => compileWhen(loops(`"${text}".matches("${pattern}")`))).toThrow(
        /needs \d+ cost units, over the budget of 20000/,
      );
    }
  });

  it('charges a constant operand on every step of a loop', () => {
    const twenty = `[${Array.from({ length: 20 }, (_, i) => i).join(',')}]`;
    // 20 steps of 1201 units each; before, the constant cost nothing.
    const when = compileWhen(`${twenty}.all(i, "${'a'.repeat(1200)}".size() > 0)`);
    expect(when.evaluate(input)).toEqual({ error: expect.stringMatching(/more than 20000 cost units/) });
  });

  it('charges a match its input length times the pattern size, before it runs', () => {
    const when = compileWhen('arguments.path.matches("(a*)*(a|b)*[a-z]*a{0,100}$")');
    const long = { ...input, arguments: { given: { path: 'a'.repeat(19_000) } } };
    expect(when.evaluate(long)).toEqual({ error: expect.stringMatching(/more than 20000 cost units/) });
    const short = { ...input, arguments: { given: { path: 'a'.repeat(20) } } };
    expect(when.evaluate(short)).toBe(true);
  });

  it('charges a pattern read from the arguments for its compilation', () => {
    const when = compileWhen('"aaa".matches(arguments.pattern)');
    const nested = { ...input, arguments: { given: { pattern: '(a{30}){30}' } } };
    expect(when.evaluate(nested)).toEqual({ error: expect.stringMatching(/more than 20000 cost units/) });
    expect(when.evaluate({ ...input, arguments: { given: { pattern: '^a+$' } } })).toBe(true);
  });

  it('keeps ordinary matches inside the budget', () => {
    const when = compileWhen('arguments.paths.all(p, p.matches("^/tmp/[a-z0-9]+$"))');
    const paths = Array.from({ length: 100 }, (_, i) => `/tmp/${i}`);
    expect(when.evaluate({ ...input, arguments: { given: { paths } } })).toBe(true);
  });
});
