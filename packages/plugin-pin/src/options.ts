import { validateOptions } from '@switchyard/core';
import { z } from 'zod';
import { PACKAGE } from './package-info.js';

/** `enforce`: a new or changed tool or prompt is quarantined; `warn`: it is listed and forwarded, and logged. */
export type PinMode = 'enforce' | 'warn';

/**
 * Options of `@switchyard/plugin-pin` (DESIGN §8 contract: `lockFile`, `mode`).
 *
 * @example
 * ["@switchyard/plugin-pin", { "lockFile": "./switchyard.lock.json", "mode": "enforce" }]
 */
export interface PinOptions {
  /** The lock file; a relative path resolves from the config file's folder. Default `./switchyard.lock.json`. */
  lockFile?: string;
  /** Default `enforce`. */
  mode?: PinMode;
}

export interface ResolvedPinOptions {
  lockFile: string;
  mode: PinMode;
}

const KNOWN = ['lockFile', 'mode'];

/** The options schema, declared in `definePlugin`: a strict object with the contract's defaults. */
export const pinOptionsSchema = z.strictObject(
  {
    lockFile: z
      .string({ error: 'expected a file path such as "./switchyard.lock.json"' })
      .min(1, { error: 'expected a file path such as "./switchyard.lock.json"' })
      .default('./switchyard.lock.json'),
    mode: z.enum(['enforce', 'warn'], { error: 'expected "enforce" or "warn"' }).default('enforce'),
  },
  {
    error: (issue) =>
      issue.code === 'unrecognized_keys'
        ? `unknown option (known: ${KNOWN.join(', ')})`
        : 'expected an object such as { "lockFile": "./switchyard.lock.json", "mode": "enforce" }',
  },
);

/** Validates raw plugin options outside the plugin host (tests) exactly as the host does. */
export function resolvePinOptions(raw: unknown): ResolvedPinOptions {
  return validateOptions(PACKAGE.name, pinOptionsSchema, raw ?? {});
}
