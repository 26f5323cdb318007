import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { createLogger, silentLogger } from '../src/logger.js';

const NOW = new Date('2025-03-04T05:06:07.089Z');

describe('createLogger', () => {
  let lines: string[];
  const write = (line: string) => {
    lines.push(line);
  };

  beforeEach(() => {
    lines = [];
    vi.useFakeTimers();
    vi.setSystemTime(NOW);
  });

  afterEach(() => {
    vi.useRealTimers();
  });

  it('writes one line per entry: timestamp, padded level, scope, message', () => {
    const log = createLogger({ write });
    log.info('hello');
    log.error('bad');
    expect(lines).toEqual([
      '2025-03-04T05:06:07.089Z INFO  [switchyard] hello\n',
      '2025-03-04T05:06:07.089Z ERROR [switchyard] bad\n',
    ]);
  });

  it('filters below the threshold (info by default)', () => {
    const byDefault = createLogger({ write });
    byDefault.debug('hidden');
    byDefault.info('i');
    byDefault.warn('w');
    expect(lines.map((l) => l.split(' ')[1])).toEqual(['INFO', 'WARN']);

    lines = [];
    const warn = createLogger({ level: 'warn', write });
    warn.debug('d');
    warn.info('i');
    warn.warn('w');
    warn.error('e');
    expect(lines.map((l) => l.split(' ')[1])).toEqual(['WARN', 'ERROR']);

    lines = [];
    const debug = createLogger({ level: 'debug', write });
    debug.debug('d');
    expect(lines).toEqual(['2025-03-04T05:06:07.089Z DEBUG [switchyard] d\n']);

    lines = [];
    const error = createLogger({ level: 'error', write });
    error.warn('w');
    error.error('e');
    expect(lines).toHaveLength(1);
  });

  it('formats fields: strings quoted, others as JSON, undefined skipped, errors by message', () => {
    const log = createLogger({ write, scope: 'test' });
    log.warn('fields', {
      upstream: 'docs',
      quoted: 'say "hi"',
      attempt: 3,
      ok: false,
      nothing: null,
      missing: undefined,
      list: [1, 'a'],
      obj: { a: 1 },
      error: new Error('boom'),
    });
    expect(lines).toEqual([
      '2025-03-04T05:06:07.089Z WARN  [test] fields upstream="docs" quoted="say \\"hi\\"" attempt=3 ok=false nothing=null list=[1,"a"] obj={"a":1} error="boom"\n',
    ]);
  });

  it('falls back to String() for values JSON cannot encode', () => {
    const log = createLogger({ write });
    const circular: Record<string, unknown> = {};
    circular.self = circular;
    log.info('odd', { big: 10n, circular, fn: () => 1, sym: Symbol('s') });
    expect(lines[0]).toContain(' big=10 ');
    expect(lines[0]).toContain(' circular=[object Object] ');
    expect(lines[0]).toContain(' fn=() => 1 ');
    expect(lines[0]).toMatch(/ sym=Symbol\(s\)\n$/);
  });

  it('nests child scopes and keeps the level', () => {
    const log = createLogger({ level: 'warn', write });
    const child = log.child('upstream').child('docs');
    child.info('hidden');
    child.warn('visible');
    expect(lines).toEqual(['2025-03-04T05:06:07.089Z WARN  [switchyard:upstream:docs] visible\n']);
  });

  it('writes to stderr by default, never stdout', () => {
    const stderr = vi.spyOn(process.stderr, 'write').mockImplementation(() => true);
    const stdout = vi.spyOn(process.stdout, 'write');
    try {
      createLogger().info('to stderr');
      expect(stderr).toHaveBeenCalledWith('2025-03-04T05:06:07.089Z INFO  [switchyard] to stderr\n');
      expect(stdout).not.toHaveBeenCalled();
    } finally {
      stderr.mockRestore();
      stdout.mockRestore();
    }
  });
});

describe('silentLogger', () => {
  it('drops everything and its children are silent too', () => {
    const stderr = vi.spyOn(process.stderr, 'write').mockImplementation(() => true);
    try {
      silentLogger.error('nothing', { a: 1 });
      silentLogger.child('x').warn('nothing');
      expect(silentLogger.child('x')).toBe(silentLogger);
      expect(stderr).not.toHaveBeenCalled();
    } finally {
      stderr.mockRestore();
    }
  });
});
