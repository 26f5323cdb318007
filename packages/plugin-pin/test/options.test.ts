import { describe, expect, it } from 'vitest';
import { resolvePinOptions } from '../src/options.js';

describe('options', () => {
  it('defaults to ./switchyard.lock.json and enforce', () => {
    expect(resolvePinOptions(undefined)).toEqual({ lockFile: './switchyard.lock.json', mode: 'enforce' });
    expect(resolvePinOptions({ lockFile: '/x.json', mode: 'warn' })).toEqual({
      lockFile: '/x.json',
      mode: 'warn',
    });
  });
  it('refuses bad and unknown options, naming them', () => {
    expect(() => resolvePinOptions({ mode: 'audit' })).toThrow(/options\.mode: expected "enforce" or "warn"/);
    expect(() => resolvePinOptions({ lockFile: '' })).toThrow(/options\.lockFile/);
    expect(() => resolvePinOptions({ lock: 'x' })).toThrow(/unknown option \(known: lockFile, mode\)/);
  });
});
