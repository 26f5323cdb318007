import { z } from 'zod';

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

const show = (value: unknown): string => JSON.stringify(value) ?? String(value);

/** The options schema: a strict object with the contract's defaults (hand it to `definePlugin` once it takes one). */
export const secretsOptionsSchema = z.strictObject(
  {
    scan: z
      .array(
        z.enum(['arguments', 'results'], {
          error: (issue) => `must be "arguments" or "results" (got ${show(issue.input)})`,
        }),
        { error: (issue) => `must be an array such as ["arguments", "results"] (got ${show(issue.input)})` },
      )
      .min(1, { error: 'must name "arguments", "results" or both (to scan nothing, remove the plugin)' })
      .default(['arguments', 'results'])
      .transform((targets) => new Set(targets) as ReadonlySet<ScanTarget>),
    action: z
      .enum(['redact', 'block'], {
        error: (issue) => `must be "redact" or "block" (got ${show(issue.input)})`,
      })
      .default('redact'),
    rules: z
      .literal('recommended', {
        error: (issue) => `must be "recommended" (secretlint's recommended preset; got ${show(issue.input)})`,
      })
      .default('recommended'),
  },
  {
    error: (issue) =>
      issue.code === 'unrecognized_keys'
        ? `unknown option "${issue.keys[0]}" (known: ${KNOWN.join(', ')})`
        : 'options must be an object such as { "scan": ["arguments", "results"], "action": "redact" }',
  },
);

/**
 * Validates raw plugin options (from a JSON config) and applies the defaults. Throws an Error whose
 * message names each offending option and says what to write instead.
 */
export function resolveSecretsOptions(raw: unknown): ResolvedSecretsOptions {
  const parsed = secretsOptionsSchema.safeParse(raw ?? {});
  if (parsed.success) return parsed.data;
  const problems = parsed.error.issues.map((issue) =>
    issue.path.length === 0 ? issue.message : `option ${z.core.toDotPath(issue.path)} ${issue.message}`,
  );
  throw new Error(problems.join('; '));
}
