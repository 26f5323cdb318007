import { PluginError } from './error.js';
import type { StandardSchemaV1 } from './standard-schema.js';

/**
 * A plugin's options schema: any Standard Schema v1 (zod 4, Valibot, ArkType…) whose output, defaults
 * applied, is what `setup` receives. It must validate synchronously (options are plain config values;
 * checks that need I/O belong in `setup`).
 */
export type OptionsSchema<Output = unknown> = StandardSchemaV1<unknown, Output>;

/** How long a value shown after `got` may be before it is cut. */
const MAX_SHOWN_CHARS = 60;

/**
 * Validates a plugin's raw options (as the config gave them) with its schema and returns the schema's
 * output. Throws a PluginError (PLUGIN_INVALID_OPTIONS) naming the plugin and each failing option's
 * path, what the schema expected and what it got, e.g.
 * `Plugin @switchyard/plugin-cache: options.maxBytes: expected a whole number of bytes…, got "lots"`;
 * `at` (e.g. `$.plugins[2]`) says where the entry is in the config.
 */
export function validateOptions<Output>(
  plugin: string,
  schema: OptionsSchema<Output>,
  raw: unknown,
  at?: string,
): Output {
  const where = at === undefined ? plugin : `${plugin} (${at})`;
  const standard = (schema as Partial<OptionsSchema<Output>> | undefined)?.['~standard'];
  if (typeof standard?.validate !== 'function') {
    throw new PluginError(
      'PLUGIN_INVALID',
      plugin,
      `Plugin ${where}: its "options" is not a schema: give definePlugin a Standard Schema (e.g. a zod schema), or no "options".`,
    );
  }
  let result: ReturnType<typeof standard.validate>;
  try {
    result = standard.validate(raw);
  } catch (error) {
    throw new PluginError(
      'PLUGIN_INVALID',
      plugin,
      `Plugin ${where}: its options schema threw: ${error instanceof Error ? error.message : String(error)}`,
      { cause: error },
    );
  }
  if (isPromiseLike(result)) {
    Promise.resolve(result).catch(() => {}); // nobody waits for it
    throw new PluginError(
      'PLUGIN_INVALID',
      plugin,
      `Plugin ${where}: its options schema validates asynchronously; an options schema must be synchronous (do checks that need I/O in setup).`,
    );
  }
  // A hand-written schema may answer anything: what is no result is the schema's fault (PLUGIN_INVALID),
  // and issues that are not well formed still refuse the options, said as well as they can be.
  if (typeof result !== 'object' || result === null) {
    throw new PluginError(
      'PLUGIN_INVALID',
      plugin,
      `Plugin ${where}: its options schema's validate returned ${result === null ? 'null' : typeof result}, not { value } or { issues }.`,
    );
  }
  const { issues } = result as { issues?: unknown };
  if (issues === undefined || issues === null) return (result as { value: Output }).value;
  if (!Array.isArray(issues)) {
    throw new PluginError(
      'PLUGIN_INVALID',
      plugin,
      `Plugin ${where}: its options schema answered "issues" that are not an array (${typeof issues}).`,
    );
  }
  const problems = issues.flatMap((issue: unknown) => describeIssue(issue, raw));
  if (problems.length === 0) problems.push('options: refused by the schema, which said nothing about why');
  throw new PluginError('PLUGIN_INVALID_OPTIONS', plugin, `Plugin ${where}: ${problems.join('; ')}`);
}

type Path = readonly PropertyKey[];

/**
 * One issue as `options.<path>: <message>, got <value>`. An issue listing unrecognized keys (zod's
 * `unrecognized_keys` carries them in `keys`) becomes one line per key, at that key's own path.
 */
function describeIssue(reported: unknown, raw: unknown): string[] {
  if (typeof reported !== 'object' || reported === null) {
    return [`options: the schema reported an issue that is no object (${show(reported)})`];
  }
  const issue = reported as Partial<StandardSchemaV1.Issue>;
  const message =
    typeof issue.message === 'string' && issue.message.length > 0
      ? issue.message
      : 'refused (the schema gave no message)';
  const path = issuePath(issue.path);
  const keys = unknownKeys(issue);
  if (keys) return keys.map((key) => `${pathText([...path, key])}: ${message}`);
  if (path.length === 0) return [`${pathText(path)}: ${message}`];
  const value = valueAt(raw, path);
  return [`${pathText(path)}: ${message}, got ${value === undefined ? 'nothing' : show(value)}`];
}

/** An issue's path as keys: segments are keys or `{ key }`; anything else a schema gives reads as text. */
function issuePath(path: unknown): Path {
  if (!Array.isArray(path)) return path === undefined || path === null ? [] : [keyOf(path)];
  return path.map((segment: unknown) =>
    keyOf(typeof segment === 'object' && segment !== null ? (segment as { key?: unknown }).key : segment),
  );
}

function keyOf(value: unknown): PropertyKey {
  return typeof value === 'string' || typeof value === 'number' || typeof value === 'symbol'
    ? value
    : show(value);
}

function unknownKeys(issue: object): string[] | undefined {
  const { code, keys } = issue as { code?: unknown; keys?: unknown };
  if (code !== 'unrecognized_keys' || !Array.isArray(keys) || keys.length === 0) return undefined;
  return keys.map(String);
}

/** `options.rules[2].effect`, `options.upstreams["my server"]`. */
export function pathText(path: Path): string {
  let text = 'options';
  for (const key of path) {
    if (typeof key === 'number') text += `[${key}]`;
    else if (typeof key === 'string' && /^[A-Za-z_$][\w$]*$/.test(key)) text += `.${key}`;
    else text += `[${typeof key === 'string' ? JSON.stringify(key) : String(key)}]`;
  }
  return text;
}

function valueAt(raw: unknown, path: Path): unknown {
  let value = raw;
  for (const key of path) {
    if (typeof value !== 'object' || value === null || !Object.hasOwn(value, key)) return undefined;
    value = (value as Record<PropertyKey, unknown>)[key];
  }
  return value;
}

function show(value: unknown): string {
  let text: string;
  try {
    text = JSON.stringify(value) ?? String(value);
  } catch {
    text = String(value);
  }
  return text.length > MAX_SHOWN_CHARS ? `${text.slice(0, MAX_SHOWN_CHARS - 1)}…` : text;
}

function isPromiseLike(value: unknown): value is PromiseLike<unknown> {
  return typeof (value as PromiseLike<unknown> | undefined)?.then === 'function';
}
