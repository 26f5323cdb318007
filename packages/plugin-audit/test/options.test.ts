import { validateOptions } from '@switchyard/core';
import { describe, expect, it } from 'vitest';
import {
  auditFile,
  auditOptions,
  DEFAULT_INTERVAL_MS,
  DEFAULT_MAX_BYTES,
  DEFAULT_MAX_FILES,
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
    expect(() => compileRedactions(['uri.host'])).toThrow(
      /uri is not an object; only params, detail can be entered/,
    );
  });
});

/** The options as the plugin host hands them to setup (an entry without options gets `{}`). */
const resolveAuditOptions = (options: unknown) =>
  validateOptions('@switchyard/plugin-audit', auditOptions, options ?? {});

describe('auditOptions', () => {
  it('applies the documented defaults', () => {
    expect(resolveAuditOptions({ file: './logs/audit.jsonl' })).toEqual({
      file: './logs/audit.jsonl',
      fsync: 'interval',
      redact: [],
      arguments: false,
      intervalMs: DEFAULT_INTERVAL_MS,
      maxBytes: DEFAULT_MAX_BYTES,
      maxFiles: DEFAULT_MAX_FILES,
    });
    expect(DEFAULT_MAX_BYTES).toBe(100 * 1024 * 1024);
    expect(resolveAuditOptions({ file: '/var/log/a.jsonl', maxBytes: 0 })).toMatchObject({
      file: '/var/log/a.jsonl',
      maxBytes: 0,
    });
    expect(resolveAuditOptions({ file: 'a', redact: ['uri', 'params.argument.value'] }).redact).toEqual([
      ['uri'],
      ['params', 'argument', 'value'],
    ]);
  });

  it('resolves a relative file from the config folder', () => {
    expect(auditFile('./logs/audit.jsonl', '/etc/switchyard')).toBe('/etc/switchyard/logs/audit.jsonl');
    expect(auditFile('/var/log/a.jsonl', '/x')).toBe('/var/log/a.jsonl');
  });

  it('refuses bad options with a message naming the plugin and the option', () => {
    const bad = (options: unknown) => () => resolveAuditOptions(options);
    const plugin = /^Plugin @switchyard\/plugin-audit: /;
    expect(bad('audit.jsonl')).toThrow(plugin);
    expect(bad('audit.jsonl')).toThrow(
      /: options: expected an object such as \{ "file": "\.\/audit\.jsonl" \}$/,
    );
    expect(bad(undefined)).toThrow(
      /: options\.file: expected the path of the JSON Lines file to append to, e\.g\. "\.\/audit\.jsonl" .*, got nothing$/,
    );
    expect(bad({ file: ' ' })).toThrow(
      /: options\.file: expected the path of the JSON Lines file .*, got " "$/,
    );
    expect(bad({ file: 'a', fsync: 'sometimes' })).toThrow(
      /: options\.fsync: expected "interval" or "always", got "sometimes"$/,
    );
    expect(bad({ file: 'a', redact: 'uri' })).toThrow(
      /: options\.redact: expected an array of dotted record paths/,
    );
    expect(bad({ file: 'a', redact: ['uri', 'token'] })).toThrow(
      /: options\.redact\[1\]: "token" names no record field \(fields: time, .*\), got "token"$/,
    );
    expect(bad({ file: 'a', arguments: 'yes' })).toThrow(
      /: options\.arguments: expected true or false, got "yes"$/,
    );
    expect(bad({ file: 'a', intervalMs: 0 })).toThrow(/: options\.intervalMs: expected an integer from 1/);
    expect(bad({ file: 'a', maxBytes: -1 })).toThrow(/: options\.maxBytes: expected an integer from 0/);
    expect(bad({ file: 'a', maxFiles: 1.5 })).toThrow(
      /: options\.maxFiles: expected an integer from 1 to 1000, got 1\.5$/,
    );
    expect(bad({ file: 'a', fsnyc: 'always' })).toThrow(
      /: options\.fsnyc: unknown option \(known: file, fsync/,
    );
    // every problem at once
    expect(bad({ fsync: 'sometimes' })).toThrow(/: options\.file: .*got nothing; options\.fsync: expected/);
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
