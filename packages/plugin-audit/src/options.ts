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

export const DEFAULT_INTERVAL_MS = 1000;
export const DEFAULT_MAX_BYTES = 100 * 1024 * 1024;
export const DEFAULT_MAX_FILES = 5;

const KNOWN = ['file', 'fsync', 'redact', 'arguments', 'intervalMs', 'maxBytes', 'maxFiles'];
/** setInterval's largest delay. */
const MAX_INTERVAL_MS = 2 ** 31 - 1;

const FILE =
  'expected the path of the JSON Lines file to append to, e.g. "./audit.jsonl" (relative paths resolve from the config file\'s folder)';

/** An integer option within [min, max], with one message for every way to get it wrong. */
function integer(min: number, max: number) {
  const error = `expected an integer from ${min} to ${max}`;
  return z.number({ error }).int({ error }).min(min, { error }).max(max, { error });
}

/** One `redact` path, checked and split (a typo must not silently leave a value in the log). */
const redaction = z
  .string({ error: 'expected a dotted record path, e.g. "params.argument.value"' })
  .transform((path, ctx): RedactionPath => {
    try {
      return compileRedactions([path])[0] as RedactionPath;
    } catch (error) {
      ctx.issues.push({ code: 'custom', input: path, message: (error as Error).message });
      return z.NEVER;
    }
  });

/**
 * The audit plugin's options, checked by the plugin host (which names the plugin and the option's path
 * when one is wrong), defaults applied and redactions compiled; `file` as written (see `auditFile`).
 */
export const auditOptions = z.strictObject(
  {
    file: z.string({ error: FILE }).trim().min(1, { error: FILE }),
    fsync: z.enum(['interval', 'always'], { error: 'expected "interval" or "always"' }).default('interval'),
    redact: z
      .array(redaction, {
        error: 'expected an array of dotted record paths, e.g. ["uri", "params.argument.value"]',
      })
      .default([]),
    arguments: z.boolean({ error: 'expected true or false' }).default(false),
    intervalMs: integer(1, MAX_INTERVAL_MS).default(DEFAULT_INTERVAL_MS),
    maxBytes: integer(0, Number.MAX_SAFE_INTEGER).default(DEFAULT_MAX_BYTES),
    maxFiles: integer(1, 1000).default(DEFAULT_MAX_FILES),
  },
  {
    error: (issue) =>
      issue.code === 'unrecognized_keys'
        ? `unknown option (known: ${KNOWN.join(', ')})`
        : 'expected an object such as { "file": "./audit.jsonl" }',
  },
);

/** The options with defaults applied and the redactions compiled. */
export type ResolvedAuditOptions = z.output<typeof auditOptions>;

/** The audit file's absolute path: a relative `file` resolves from the config file's folder. */
export function auditFile(file: string, baseDir: string): string {
  return isAbsolute(file) ? file : resolve(baseDir, file);
}
