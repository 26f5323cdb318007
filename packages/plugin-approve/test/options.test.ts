import { validateOptions } from '@switchyard/core';
import { describe, expect, it } from 'vitest';
import { approveOptionsSchema } from '../src/options.js';

const parse = (raw: unknown) => validateOptions('@switchyard/plugin-approve', approveOptionsSchema, raw);

describe('plugin-approve options', () => {
  it('applies the defaults: by "caller", timeoutMs 120000', () => {
    const options = parse({ rules: [{ tools: ['github__delete_*'] }] });
    expect(options.timeoutMs).toBe(120_000);
    expect(options.rules[0]?.by).toBe('caller');
    expect(options.rules[0]?.tools?.('github__delete_repo')).toBe(true);
    expect(options.rules[0]?.tools?.('github__get_repo')).toBe(false);
  });

  it.each([
    [{ rules: [{ by: [] }] }, 'options.rules[0].by'],
    [{ rules: [{ by: 'admins' }] }, 'options.rules[0].by'],
    [{ rules: [{ tools: ['has space'] }] }, 'options.rules[0].tools[0]: can never match'],
    [
      { rules: [{ annotations: { destructiveHint: 'yes' } }] },
      'options.rules[0].annotations.destructiveHint',
    ],
    [{ rules: [{ annotations: { dangerous: true } }] }, 'dangerous'],
    [
      { rules: [{ when: 'arguments.path.startsWith(' }] },
      'options.rules[0].when: expected a valid CEL condition (syntax error',
    ],
    [{ rules: [{ when: 'secret == 1' }] }, 'unknown variable "secret"'],
    [{ rules: [], timeoutMs: 0 }, 'options.timeoutMs'],
    [{ rules: [], extra: 1 }, 'extra'],
    [{}, 'options.rules'],
  ])('refuses %j, naming the path (%s)', (raw, path) => {
    expect(() => parse(raw)).toThrow(path);
  });
});
