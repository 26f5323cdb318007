import { isAbsolute, resolve } from 'node:path';
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
  /** Dotted record paths whose values are replaced by `"[REDACTED]"`, e.g. `uri`, `params.argument.value`. */
  redact?: readonly string[];
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
  intervalMs: number;
  maxBytes: number;
  maxFiles: number;
}

export const DEFAULT_INTERVAL_MS = 1000;
export const DEFAULT_MAX_BYTES = 100 * 1024 * 1024;
export const DEFAULT_MAX_FILES = 5;

const KNOWN = ['file', 'fsync', 'redact', 'intervalMs', 'maxBytes', 'maxFiles'] as const;
/** setInterval's largest delay. */
const MAX_INTERVAL_MS = 2 ** 31 - 1;

/**
 * Validates raw plugin options (from a JSON config) and applies the defaults. Throws an Error whose
 * message names the option and says what to write instead.
 */
export function resolveAuditOptions(raw: unknown, baseDir: string): ResolvedAuditOptions {
  if (typeof raw !== 'object' || raw === null || Array.isArray(raw)) {
    throw new Error('options must be an object such as { "file": "./audit.jsonl" }');
  }
  const options = raw as Record<string, unknown>;
  for (const key of Object.keys(options)) {
    if (!(KNOWN as readonly string[]).includes(key)) {
      throw new Error(`unknown option "${key}" (known: ${KNOWN.join(', ')})`);
    }
  }
  return {
    file: resolveFile(options.file, baseDir),
    fsync: fsyncPolicy(options.fsync),
    redact: redactPaths(options.redact),
    intervalMs: integer(options.intervalMs, 'intervalMs', DEFAULT_INTERVAL_MS, 1, MAX_INTERVAL_MS),
    maxBytes: integer(options.maxBytes, 'maxBytes', DEFAULT_MAX_BYTES, 0, Number.MAX_SAFE_INTEGER),
    maxFiles: integer(options.maxFiles, 'maxFiles', DEFAULT_MAX_FILES, 1, 1000),
  };
}

function resolveFile(value: unknown, baseDir: string): string {
  if (typeof value !== 'string' || value.trim() === '') {
    throw new Error(
      'option "file" is required: the path of the JSON Lines file to append to, e.g. "./audit.jsonl" (relative paths resolve from the config file\'s folder)',
    );
  }
  return isAbsolute(value) ? value : resolve(baseDir, value);
}

function fsyncPolicy(value: unknown): FsyncPolicy {
  if (value === undefined) return 'interval';
  if (value === 'interval' || value === 'always') return value;
  throw new Error(`option "fsync" must be "interval" or "always" (got ${JSON.stringify(value)})`);
}

function redactPaths(value: unknown): readonly RedactionPath[] {
  if (value === undefined) return [];
  if (!Array.isArray(value) || value.some((p) => typeof p !== 'string')) {
    throw new Error(
      'option "redact" must be an array of dotted record paths, e.g. ["uri", "params.argument.value"]',
    );
  }
  try {
    return compileRedactions(value as string[]);
  } catch (error) {
    throw new Error(`option "redact": ${(error as Error).message}`);
  }
}

function integer(value: unknown, name: string, fallback: number, min: number, max: number): number {
  if (value === undefined) return fallback;
  if (typeof value !== 'number' || !Number.isInteger(value) || value < min || value > max) {
    throw new Error(
      `option "${name}" must be an integer from ${min} to ${max} (got ${JSON.stringify(value)})`,
    );
  }
  return value;
}
