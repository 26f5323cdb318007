import { describe, expect, it } from 'vitest';
import {
  DEFAULT_INTERVAL_MS,
  DEFAULT_MAX_BYTES,
  DEFAULT_MAX_FILES,
  resolveAuditOptions,
} from '../src/options.js';
import { clip, MAX_URI_CHARS } from '../src/record.js';
import { compileRedactions, REDACTED, redact } from '../src/redact.js';

describe('redact', () => {
  const record = {
    identity: 'alice',
    uri: 'docs+file:///secret.md',
    params: { argument: { name: 'path', value: 'hunter2' } },
  };

  it('replaces top-level and nested values, leaving the input untouched', () => {
    const out = redact(record, compileRedactions(['uri', 'params.argument.value']));
    expect(out).toEqual({
      identity: 'alice',
      uri: REDACTED,
      params: { argument: { name: 'path', value: REDACTED } },
    });
    expect(record.uri).toBe('docs+file:///secret.md');
    expect(record.params.argument.value).toBe('hunter2');
  });

  it('redacts a whole nested object, and skips paths that are absent or pass through a non-object', () => {
    expect(redact(record, compileRedactions(['params']))).toMatchObject({ params: REDACTED });
    const noParams = { identity: 'bob' };
    expect(redact(noParams, compileRedactions(['uri', 'params.argument.value']))).toBe(noParams);
    const odd = { params: { argument: 'flat' } };
    expect(redact(odd, compileRedactions(['params.argument.value']))).toBe(odd);
  });

  it('refuses paths that name no record field, are empty, or enter a field that is not an object', () => {
    expect(() => compileRedactions(['url'])).toThrow(/"url" names no record field \(fields: time, identity/);
    expect(() => compileRedactions(['params..value'])).toThrow(/empty segment/);
    expect(() => compileRedactions(['uri.host'])).toThrow(/uri is not an object; only params can be entered/);
  });
});

describe('resolveAuditOptions', () => {
  it('applies the documented defaults and resolves a relative file from the config folder', () => {
    expect(resolveAuditOptions({ file: './logs/audit.jsonl' }, '/etc/switchyard')).toEqual({
      file: '/etc/switchyard/logs/audit.jsonl',
      fsync: 'interval',
      redact: [],
      arguments: false,
      intervalMs: DEFAULT_INTERVAL_MS,
      maxBytes: DEFAULT_MAX_BYTES,
      maxFiles: DEFAULT_MAX_FILES,
    });
    expect(DEFAULT_MAX_BYTES).toBe(100 * 1024 * 1024);
    expect(resolveAuditOptions({ file: '/var/log/a.jsonl', maxBytes: 0 }, '/x')).toMatchObject({
      file: '/var/log/a.jsonl',
      maxBytes: 0,
    });
  });

  it('refuses bad options with a message naming the option', () => {
    const bad = (options: unknown) => () => resolveAuditOptions(options, '/x');
    expect(bad(undefined)).toThrow(/options must be an object/);
    expect(bad({})).toThrow(/option file is required: the path of the JSON Lines file/);
    expect(bad({ file: ' ' })).toThrow(/option file must be the path of the JSON Lines file/);
    expect(bad({ file: 'a', fsync: 'sometimes' })).toThrow(/option fsync must be "interval" or "always"/);
    expect(bad({ file: 'a', redact: 'uri' })).toThrow(/option redact must be an array/);
    expect(bad({ file: 'a', redact: ['token'] })).toThrow(
      /option redact is wrong: "token" names no record field/,
    );
    expect(bad({ file: 'a', arguments: 'yes' })).toThrow(
      /option arguments must be true or false \(got "yes"\)/,
    );
    expect(bad({ file: 'a', intervalMs: 0 })).toThrow(/option intervalMs must be an integer from 1/);
    expect(bad({ file: 'a', maxBytes: -1 })).toThrow(/option maxBytes must be an integer from 0/);
    expect(bad({ file: 'a', maxFiles: 1.5 })).toThrow(
      /option maxFiles must be an integer from 1 to 1000 \(got 1.5\)/,
    );
    expect(bad({ file: 'a', fsnyc: 'always' })).toThrow(/unknown option "fsnyc" \(known: file, fsync/);
    // every problem at once
    expect(bad({ fsync: 'sometimes' })).toThrow(/option file is required.*; option fsync must be/);
  });
});

describe('clip', () => {
  it('keeps short strings and cuts long ones to the limit, marked with …', () => {
    expect(clip('abc', 3)).toBe('abc');
    const long = clip('x'.repeat(MAX_URI_CHARS + 10), MAX_URI_CHARS);
    expect(long).toHaveLength(MAX_URI_CHARS);
    expect(long.endsWith('…')).toBe(true);
  });
});
