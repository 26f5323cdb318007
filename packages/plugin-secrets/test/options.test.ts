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
    [{ scan: ['argument'] }, 'options.scan[0]: expected "arguments" or "results", got "argument"'],
    [{ scan: [] }, 'options.scan: expected "arguments", "results" or both'],
    [{ scan: 'results' }, 'options.scan: expected an array such as ["arguments", "results"], got "results"'],
    [{ action: 'mask' }, 'options.action: expected "redact" or "block", got "mask"'],
    [{ rules: 'all' }, 'options.rules: expected "recommended"'],
    [{ mode: 'block' }, 'options.mode: unknown option (known: scan, action, rules)'],
    [[], 'options: expected an object'],
  ])('refuse %j, naming the plugin and the option', (raw, message) => {
    expect(() => resolveSecretsOptions(raw)).toThrow(`Plugin @switchyard/plugin-secrets: ${message}`);
  });
});
