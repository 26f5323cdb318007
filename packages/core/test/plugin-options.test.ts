import { describe, expect, it } from 'vitest';
import { silentLogger } from '../src/logger.js';
import { definePlugin } from '../src/plugins/define.js';
import { PluginError } from '../src/plugins/error.js';
import { setupPlugins } from '../src/plugins/host.js';
import { type OptionsSchema, pathText, validateOptions } from '../src/plugins/options.js';
import type { StandardSchemaV1 } from '../src/plugins/standard-schema.js';

// A hand-written Standard Schema v1 (what zod 4, Valibot or ArkType provide): core needs no schema library.
function schema<Output>(
  validate: (value: unknown) => StandardSchemaV1.Result<Output> | Promise<StandardSchemaV1.Result<Output>>,
): OptionsSchema<Output> {
  return { '~standard': { version: 1, vendor: 'test', validate } };
}

interface Limits {
  size: number;
  nested: { depth: number };
}

/** `{ size?: positive integer = 10, nested?: { depth?: integer = 1 } }`, strict at the top. */
const limits = schema<Limits>((value) => {
  const options = value as Record<string, unknown>;
  const issues: StandardSchemaV1.Issue[] = [];
  const extra = Object.keys(options).filter((key) => key !== 'size' && key !== 'nested');
  if (extra.length > 0) {
    issues.push({
      message: 'unknown option (known: size, nested)',
      path: [],
      code: 'unrecognized_keys',
      keys: extra,
    } as StandardSchemaV1.Issue);
  }
  const size = options.size ?? 10;
  if (typeof size !== 'number' || size < 1)
    issues.push({ message: 'expected a positive integer', path: ['size'] });
  const nested = (options.nested ?? {}) as Record<string, unknown>;
  const depth = nested.depth ?? 1;
  if (typeof depth !== 'number')
    issues.push({ message: 'expected an integer', path: [{ key: 'nested' }, { key: 'depth' }] });
  if (issues.length > 0) return { issues };
  return { value: { size: size as number, nested: { depth: depth as number } } };
});

const failure = (run: () => unknown): PluginError => {
  try {
    run();
  } catch (error) {
    if (error instanceof PluginError) return error;
    throw error;
  }
  throw new Error('expected a PluginError');
};

describe('validateOptions', () => {
  it("returns the schema's output, defaults applied", () => {
    expect(validateOptions('acme', limits, {})).toEqual({ size: 10, nested: { depth: 1 } });
    expect(validateOptions('acme', limits, { size: 3, nested: { depth: 4 } })).toEqual({
      size: 3,
      nested: { depth: 4 },
    });
  });

  it('names the plugin, each failing path, what was expected and what was given', () => {
    const error = failure(() => validateOptions('acme', limits, { size: 'lots', nested: { depth: [1, 2] } }));
    expect(error.code).toBe('PLUGIN_INVALID_OPTIONS');
    expect(error.plugin).toBe('acme');
    expect(error.message).toBe(
      'Plugin acme: options.size: expected a positive integer, got "lots"; options.nested.depth: expected an integer, got [1,2]',
    );
  });

  it('says where the entry is in the config when told, and "nothing" for a missing value', () => {
    const required = schema<never>(() => ({ issues: [{ message: 'expected a path', path: ['file'] }] }));
    expect(failure(() => validateOptions('acme', required, {}, '$.plugins[2]')).message).toBe(
      'Plugin acme ($.plugins[2]): options.file: expected a path, got nothing',
    );
  });

  it('reports each unknown key at its own path, and a whole-options issue at "options"', () => {
    expect(failure(() => validateOptions('acme', limits, { sise: 1, other: 2 })).message).toBe(
      'Plugin acme: options.sise: unknown option (known: size, nested); options.other: unknown option (known: size, nested)',
    );
    const none = schema<never>(() => ({ issues: [{ message: 'set at least one limit' }] }));
    expect(failure(() => validateOptions('acme', none, {})).message).toBe(
      'Plugin acme: options: set at least one limit',
    );
  });

  it('cuts long values short', () => {
    const error = failure(() => validateOptions('acme', limits, { size: 'x'.repeat(200) }));
    expect(error.message).toMatch(/got "x{58}…$/);
  });

  it('refuses an "options" that is not a Standard Schema', () => {
    const error = failure(() => validateOptions('acme', { size: 1 } as unknown as OptionsSchema, {}));
    expect(error.code).toBe('PLUGIN_INVALID');
    expect(error.message).toMatch(/^Plugin acme: its "options" is not a schema/);
  });

  it("reports a schema that throws as the plugin's fault", () => {
    const broken = schema(() => {
      throw new Error('bug');
    });
    expect(failure(() => validateOptions('acme', broken, {}))).toMatchObject({
      code: 'PLUGIN_INVALID',
      message: 'Plugin acme: its options schema threw: bug',
    });
  });

  // Found from outside: a hand-written schema's malformed issues stopped the start with a bare TypeError
  // (exit 1) instead of a coded PluginError (exit 2).
  it('refuses options a hand-written schema answers with malformed issues, saying what it can', () => {
    const sloppy = schema(
      () =>
        ({
          issues: [
            { message: 'bad size', path: 'size' },
            null,
            { message: undefined, path: [{ key: { a: 1 } }, Symbol('s'), 5] },
          ],
        }) as unknown as StandardSchemaV1.Result<unknown>,
    );
    const error = failure(() => validateOptions('acme', sloppy, { size: 'x' }));
    expect(error.code).toBe('PLUGIN_INVALID_OPTIONS');
    expect(error.message).toBe(
      'Plugin acme: options.size: bad size, got "x"; options: the schema reported an issue that is no object (null); options["{\\"a\\":1}"][Symbol(s)][5]: refused (the schema gave no message), got nothing',
    );
    const silent = schema(() => ({ issues: [] }));
    expect(failure(() => validateOptions('acme', silent, {}))).toMatchObject({
      code: 'PLUGIN_INVALID_OPTIONS',
      message: 'Plugin acme: options: refused by the schema, which said nothing about why',
    });
  });

  it('refuses a schema whose answer is no result, or whose issues are no array', () => {
    for (const answer of [undefined, null, 42, { issues: 'bad' }, { issues: { 0: 'x' } }]) {
      const odd = schema(() => answer as unknown as StandardSchemaV1.Result<unknown>);
      expect(failure(() => validateOptions('acme', odd, {})).code).toBe('PLUGIN_INVALID');
    }
  });

  it('refuses an asynchronous schema: options schemas must validate synchronously', () => {
    const later = schema(async () => ({ value: {} }));
    const error = failure(() => validateOptions('acme', later, {}));
    expect(error.code).toBe('PLUGIN_INVALID');
    expect(error.message).toMatch(/Plugin acme: its options schema validates asynchronously/);
  });
});

describe('pathText', () => {
  it('writes keys as a JavaScript path', () => {
    expect(pathText([])).toBe('options');
    expect(pathText(['rules', 2, 'effect'])).toBe('options.rules[2].effect');
    expect(pathText(['upstreams', 'my server', '$ok_1'])).toBe('options.upstreams["my server"].$ok_1');
  });
});

describe('setupPlugins with an options schema', () => {
  const entry = (plugin: unknown, options: unknown, at?: string) => ({
    plugin,
    options,
    source: './acme.js',
    ...(at && { at }),
  });

  it("hands setup the schema's output (defaults applied), also for a plugin listed without options", async () => {
    const seen: Limits[] = [];
    const plugin = definePlugin({
      name: 'acme',
      options: limits,
      setup: (options) => {
        // typed as the schema's output
        seen.push({ size: options.size, nested: { depth: options.nested.depth } });
        return {};
      },
    });
    await setupPlugins([entry(plugin, { size: 2 })], silentLogger);
    await setupPlugins([entry(plugin, undefined)], silentLogger);
    expect(seen).toEqual([
      { size: 2, nested: { depth: 1 } },
      { size: 10, nested: { depth: 1 } },
    ]);
  });

  it('refuses bad options before setup runs, naming the plugin, its place and the path', async () => {
    let setUp = false;
    const plugin = definePlugin({
      name: 'acme',
      options: limits,
      setup: () => {
        setUp = true;
        return {};
      },
    });
    const error = await setupPlugins([entry(plugin, { size: 0 }, '$.plugins[0]')], silentLogger).catch(
      (e: unknown) => e,
    );
    expect(error).toBeInstanceOf(PluginError);
    expect(error).toMatchObject({
      code: 'PLUGIN_INVALID_OPTIONS',
      plugin: 'acme',
      message: 'Plugin acme ($.plugins[0]): options.size: expected a positive integer, got 0',
    });
    expect(setUp).toBe(false);
  });

  it('passes the options of a plugin without a schema through unchecked', async () => {
    const seen: unknown[] = [];
    const free = (name: string) =>
      definePlugin({
        name,
        setup: (options) => {
          seen.push(options);
          return {};
        },
      });
    await setupPlugins(
      [entry(free('free'), { anything: ['goes'] }), entry(free('other'), undefined)],
      silentLogger,
    );
    expect(seen).toEqual([{ anything: ['goes'] }, {}]);
  });
});
