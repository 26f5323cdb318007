import { validateOptions } from '@switchyard/core';
import { z } from 'zod';
import { PACKAGE } from './package-info.js';

/** What the plugin scans: what clients send, what upstreams answer. */
export type ScanTarget = 'arguments' | 'results';

/** What happens to an answer that holds a credential. */
export type SecretsAction = 'redact' | 'block';

/**
 * Options of `@switchyard/plugin-secrets` (DESIGN §8 contract: `scan`, `action`, `rules`).
 *
 * @example
 * ["@switchyard/plugin-secrets", { "scan": ["arguments", "results"], "action": "redact" }]
 */
export interface SecretsOptions {
  /**
   * `arguments`: what clients send (tool and prompt arguments, completion arguments, names, URIs) is
   * refused before it reaches the upstream when it holds a credential. `results`: tool results, prompt
   * messages, resource reads and completions are redacted or refused (`action`). Default both.
   */
  scan?: readonly ScanTarget[];
  /** `redact` (default): each credential in an answer becomes `[REDACTED:<rule>]`; `block`: the answer is refused. */
  action?: SecretsAction;
  /** The rule set: `recommended` (secretlint's recommended preset), the only one for now. */
  rules?: 'recommended';
}

export interface ResolvedSecretsOptions {
  scan: ReadonlySet<ScanTarget>;
  action: SecretsAction;
  rules: 'recommended';
}

const KNOWN = ['scan', 'action', 'rules'];

/** The options schema, declared in `definePlugin`: a strict object with the contract's defaults. */
export const secretsOptionsSchema = z.strictObject(
  {
    scan: z
      .array(
        z.enum(['arguments', 'results'], {
          error: 'expected "arguments" or "results"',
        }),
        { error: 'expected an array such as ["arguments", "results"]' },
      )
      .min(1, { error: 'expected "arguments", "results" or both (to scan nothing, remove the plugin)' })
      .default(['arguments', 'results'])
      .transform((targets) => new Set(targets) as ReadonlySet<ScanTarget>),
    action: z
      .enum(['redact', 'block'], {
        error: 'expected "redact" or "block"',
      })
      .default('redact'),
    rules: z
      .literal('recommended', {
        error: `expected "recommended" (secretlint's recommended preset)`,
      })
      .default('recommended'),
  },
  {
    error: (issue) =>
      issue.code === 'unrecognized_keys'
        ? `unknown option (known: ${KNOWN.join(', ')})`
        : 'expected an object such as { "scan": ["arguments", "results"], "action": "redact" }',
  },
);

/**
 * Validates raw plugin options outside the plugin host (tests) exactly as the host does: throws a
 * PluginError naming the plugin and each offending option, e.g.
 * `Plugin @switchyard/plugin-secrets: options.action: expected "redact" or "block", got "mask"`.
 */
export function resolveSecretsOptions(raw: unknown): ResolvedSecretsOptions {
  return validateOptions(PACKAGE.name, secretsOptionsSchema, raw ?? {});
}
