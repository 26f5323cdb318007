import { describe, expect, it } from 'vitest';
import { resolveSecretsOptions } from '../src/options.js';

describe('options', () => {
  it('default to scanning both, redacting, with the recommended rules', () => {
    const resolved = resolveSecretsOptions(undefined);
    expect([...resolved.scan]).toEqual(['arguments', 'results']);
    expect(resolved).toMatchObject({ action: 'redact', rules: 'recommended' });
    expect([...resolveSecretsOptions({ scan: ['results'], action: 'block' }).scan]).toEqual(['results']);
  });

  it.each([
    [{ scan: ['argument'] }, 'option scan[0] must be "arguments" or "results" (got "argument")'],
    [{ scan: [] }, 'option scan must name "arguments", "results" or both'],
    [{ scan: 'results' }, 'option scan must be an array'],
    [{ action: 'mask' }, 'option action must be "redact" or "block" (got "mask")'],
    [{ rules: 'all' }, 'option rules must be "recommended"'],
    [{ mode: 'block' }, 'unknown option "mode" (known: scan, action, rules)'],
    [[], 'options must be an object'],
  ])('refuse %j, naming the option', (raw, message) => {
    expect(() => resolveSecretsOptions(raw)).toThrow(message);
  });
});
