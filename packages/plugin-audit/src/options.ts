import { isAbsolute, resolve } from 'node:path';
import { z } from 'zod';
import { compileRedactions, type RedactionPath } from './redact.js';

/** When records reach the disk. */
export type FsyncPolicy = 'interval' | 'always';

/**
 * Options of `@switchyard/plugin-audit` (the `{ file, fsync, redact }` part is the config contract).
 *
 * @example
 * ["@switchyard/plugin-audit", { "file": "./audit.jsonl", "fsync": "always", "redact": ["params.argument.value"] }]
 */
export interface AuditOptions {
  /** The JSON Lines file to append to; a relative path resolves from the config file's folder. */
  file: string;
  /**
   * `interval` (default): each record is written to the file before the response leaves (a crash of
   * the process loses nothing) and the file is fdatasync'ed every `intervalMs` (a power loss loses at
   * most that window). `always`: a response leaves only after its record is fdatasync'ed (group commit).
   */
  fsync?: FsyncPolicy;
  /**
   * Dotted record paths whose values are replaced by `"[REDACTED]"`, e.g. `uri`,
   * `params.argument.value`, `params.arguments.password`.
   */
  redact?: readonly string[];
  /**
   * Record the `arguments` of tool calls and prompt gets as `params.arguments` (default false: they
   * may hold anything a client sends). Redact single arguments with `params.arguments.<name>`.
   */
  arguments?: boolean;
  /** The fdatasync period of the `interval` policy, in ms; default 1000. */
  intervalMs?: number;
  /** Rotate before a write would make the file larger than this many bytes; default 100 MiB, 0 = never. */
  maxBytes?: number;
  /** How many rotated files (`file.1` newest … `file.N` oldest) are kept; default 5, at least 1. */
  maxFiles?: number;
}

/** The options with defaults applied, the file made absolute and the redactions compiled. */
export interface ResolvedAuditOptions {
  file: string;
  fsync: FsyncPolicy;
  redact: readonly RedactionPath[];
  arguments: boolean;
  intervalMs: number;
  maxBytes: number;
  maxFiles: number;
}

export const DEFAULT_INTERVAL_MS = 1000;
export const DEFAULT_MAX_BYTES = 100 * 1024 * 1024;
export const DEFAULT_MAX_FILES = 5;

const KNOWN = ['file', 'fsync', 'redact', 'arguments', 'intervalMs', 'maxBytes', 'maxFiles'];
/** setInterval's largest delay. */
const MAX_INTERVAL_MS = 2 ** 31 - 1;

const FILE =
  'the path of the JSON Lines file to append to, e.g. "./audit.jsonl" (relative paths resolve from the config file\'s folder)';

const show = (value: unknown): string => JSON.stringify(value) ?? String(value);

/** An optional integer option within [min, max], with one message for every way to get it wrong. */
function integer(min: number, max: number, fallback: number) {
  const error = (issue: { input?: unknown }) =>
    `must be an integer from ${min} to ${max} (got ${show(issue.input)})`;
  return z.number({ error }).int({ error }).min(min, { error }).max(max, { error }).default(fallback);
}

const schema = z.strictObject(
  {
    file: z
      .string({ error: (issue) => (issue.input === undefined ? `is required: ${FILE}` : `must be ${FILE}`) })
      .trim()
      .min(1, { error: `must be ${FILE}` }),
    fsync: z
      .enum(['interval', 'always'], {
        error: (issue) => `must be "interval" or "always" (got ${show(issue.input)})`,
      })
      .default('interval'),
    redact: z
      .array(z.string(), {
        error: 'must be an array of dotted record paths, e.g. ["uri", "params.argument.value"]',
      })
      .default([])
      .transform((paths, ctx): RedactionPath[] => {
        try {
          return compileRedactions(paths);
        } catch (error) {
          ctx.issues.push({ code: 'custom', input: paths, message: `is wrong: ${(error as Error).message}` });
          return z.NEVER;
        }
      }),
    arguments: z
      .boolean({ error: (issue) => `must be true or false (got ${show(issue.input)})` })
      .default(false),
    intervalMs: integer(1, MAX_INTERVAL_MS, DEFAULT_INTERVAL_MS),
    maxBytes: integer(0, Number.MAX_SAFE_INTEGER, DEFAULT_MAX_BYTES),
    maxFiles: integer(1, 1000, DEFAULT_MAX_FILES),
  },
  {
    error: (issue) =>
      issue.code === 'unrecognized_keys'
        ? `unknown option "${issue.keys[0]}" (known: ${KNOWN.join(', ')})`
        : 'options must be an object such as { "file": "./audit.jsonl" }',
  },
);

/**
 * Validates raw plugin options (from a JSON config) and applies the defaults. Throws an Error whose
 * message names each offending option and says what to write instead.
 */
export function resolveAuditOptions(raw: unknown, baseDir: string): ResolvedAuditOptions {
  const parsed = schema.safeParse(raw);
  if (!parsed.success) {
    const problems = parsed.error.issues.map((issue) =>
      issue.path.length === 0 ? issue.message : `option ${z.core.toDotPath(issue.path)} ${issue.message}`,
    );
    throw new Error(problems.join('; '));
  }
  const { file } = parsed.data;
  return { ...parsed.data, file: isAbsolute(file) ? file : resolve(baseDir, file) };
}
