import { describe, expect, it } from 'vitest';
import type { UpstreamConfig } from '../src/config.js';
import { cursorKeyMaterial } from '../src/listing/merged.js';

const stdio = (cwd: string, args = ['server.js']): Pick<UpstreamConfig, 'prefix' | 'transport'> => ({
  prefix: true,
  transport: { kind: 'stdio', command: 'node', args, env: {}, cwd },
});

describe('cursorKeyMaterial', () => {
  it('is the same for replicas whose config files sit in different folders, and differs for another server', () => {
    const a = cursorKeyMaterial([{ name: 'docs', config: stdio('/srv/a') }], 's');
    expect(cursorKeyMaterial([{ name: 'docs', config: stdio('/srv/b') }], 's')).toBe(a);
    expect(cursorKeyMaterial([{ name: 'docs', config: stdio('/srv/a', ['other.js']) }], 's')).not.toBe(a);
    expect(cursorKeyMaterial([{ name: 'docs', config: stdio('/srv/a') }], 'other secret')).not.toBe(a);
  });
});
