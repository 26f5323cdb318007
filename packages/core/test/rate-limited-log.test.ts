import { describe, expect, it } from 'vitest';
import { preview, RATE_LIMIT_WINDOW_MS, RateLimitedLog } from '../src/rate-limited-log.js';
import { recordingLogger } from './support/recording-logger.js';

function setup(windowMs = 1000) {
  let now = 0;
  const log = recordingLogger();
  const noise = new RateLimitedLog(log, windowMs, () => now);
  return {
    log,
    noise,
    at: (ms: number) => {
      now = ms;
    },
  };
}

describe('RateLimitedLog', () => {
  it('writes the first warning of a key, with its fields, at warn level', () => {
    const { log, noise } = setup();
    noise.warn('stdout', 'dropped a line', { line: 'banner' });
    expect(log.entries).toEqual([{ level: 'warn', message: 'dropped a line', fields: { line: 'banner' } }]);
  });

  it('writes a key at most once per window, and the next line counts what was left out', () => {
    const { log, noise, at } = setup(1000);
    noise.warn('k', 'm', { n: 1 });
    at(500);
    noise.warn('k', 'm', { n: 2 });
    at(999);
    noise.warn('k', 'm', { n: 3 });
    expect(log.entries).toHaveLength(1);
    at(1000);
    noise.warn('k', 'm', { n: 4 });
    expect(log.entries.map((e) => e.fields)).toEqual([{ n: 1 }, { n: 4, suppressed: 2 }]);
    // The window restarts at the line written; the count starts over.
    at(1999);
    noise.warn('k', 'm', { n: 5 });
    at(2000);
    noise.warn('k', 'm', { n: 6 });
    at(5000);
    noise.warn('k', 'm', { n: 7 });
    expect(log.entries.map((e) => e.fields)).toEqual([
      { n: 1 },
      { n: 4, suppressed: 2 },
      { n: 6, suppressed: 1 },
      { n: 7 },
    ]);
  });

  it('adds the count even to a warning without fields', () => {
    const { log, noise, at } = setup(1000);
    noise.warn('k', 'first');
    noise.warn('k', 'second');
    at(1000);
    noise.warn('k', 'third');
    expect(log.entries).toEqual([
      { level: 'warn', message: 'first' },
      { level: 'warn', message: 'third', fields: { suppressed: 1 } },
    ]);
  });

  it('limits each key on its own', () => {
    const { log, noise } = setup();
    noise.warn('a', 'a');
    noise.warn('b', 'b');
    noise.warn('a', 'a');
    noise.warn('b', 'b');
    expect(log.entries.map((e) => e.message)).toEqual(['a', 'b']);
  });

  it('defaults to a 10 s window on the wall clock', () => {
    expect(RATE_LIMIT_WINDOW_MS).toBe(10_000);
    const log = recordingLogger();
    const noise = new RateLimitedLog(log);
    noise.warn('k', 'one');
    noise.warn('k', 'two');
    expect(log.entries).toHaveLength(1);
  });
});

describe('preview', () => {
  it('keeps a short text whole', () => {
    expect(preview('')).toBe('');
    expect(preview('x'.repeat(200))).toBe('x'.repeat(200));
    expect(preview('abc', 3)).toBe('abc');
  });

  it('cuts a long text and says how long it was', () => {
    expect(preview('x'.repeat(201))).toBe(`${'x'.repeat(200)}… (201 chars)`);
    expect(preview('abcdef', 3)).toBe('abc… (6 chars)');
    expect(preview('y'.repeat(10_000_000)).length).toBeLessThan(250);
  });
});
