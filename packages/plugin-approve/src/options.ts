import { nameFilter } from '@switchyard/core';
import { compileWhen, type When } from '@switchyard/plugin-access/when';
import { z } from 'zod';

/** The tool annotations a rule may name (MCP `ToolAnnotations` hints). */
export const HINTS = ['readOnlyHint', 'destructiveHint', 'idempotentHint', 'openWorldHint'] as const;
export type Hint = (typeof HINTS)[number];

/** The longest `timeoutMs`: a day (a held call keeps its request open). */
const MAX_TIMEOUT_MS = 24 * 60 * 60_000;
/** Exposed names hold only these characters; patterns add `*` and `?`. */
const NAME_PATTERN = /^[A-Za-z0-9_\-*?]+$/;

/**
 * One approval rule (DESIGN §8): it matches a `tools/call` when every field it names matches; the first
 * matching rule decides who approves.
 *
 * @example
 * { "tools": ["github__delete_*"], "by": ["platform-leads"] }
 * { "annotations": { "destructiveHint": true }, "by": "caller" }
 */
export interface ApprovalRuleOptions {
  /** Glob patterns over exposed tool names: `*` any run of characters, `?` one. */
  tools?: string[];
  /** Hints the tool's annotations must have (an absent hint has the MCP default; see the README). */
  annotations?: Partial<Record<Hint, boolean>>;
  /** A CEL condition over `{ identity, groups, server, tool, arguments, uri }`, like access rules'. */
  when?: string;
  /** `"caller"` (default): the caller is asked through elicitation; a list: a member of one of these groups. */
  by?: 'caller' | string[];
}

export interface ApproveOptions {
  rules: ApprovalRuleOptions[];
  /** How long a held call waits for its approval, in ms (default 120000). */
  timeoutMs?: number;
}

export interface ApprovalRule {
  readonly index: number;
  readonly tools: ((name: string) => boolean) | undefined;
  readonly annotations: Readonly<Partial<Record<Hint, boolean>>> | undefined;
  readonly when: When | undefined;
  /** `caller`, or the approver groups. */
  readonly by: 'caller' | readonly string[];
}

export interface ResolvedApproveOptions {
  readonly rules: readonly ApprovalRule[];
  readonly timeoutMs: number;
}

const nonEmptyString = z
  .string({ error: 'expected a string' })
  .min(1, { error: 'expected a non-empty string' });

const toolGlobs = z
  .array(
    nonEmptyString.regex(NAME_PATTERN, {
      error:
        'can never match: exposed names hold only A-Z, a-z, 0-9, "_" and "-"; patterns add "*" (any run) and "?" (one character)',
    }),
    { error: 'expected an array of tool name patterns such as ["github__delete_*"]' },
  )
  .min(1, { error: 'expected at least one pattern (leave "tools" out to match every tool)' })
  .transform((patterns): ((name: string) => boolean) => nameFilter({ allow: patterns }));

const annotations = z.strictObject(
  Object.fromEntries(HINTS.map((hint) => [hint, z.boolean({ error: 'expected true or false' }).optional()])),
  { error: `expected an object of hints (${HINTS.join(', ')}) to true or false` },
);

const when = nonEmptyString.transform((source, ctx): When => {
  try {
    return compileWhen(source);
  } catch (error) {
    ctx.issues.push({
      code: 'custom',
      input: source,
      message: `expected a valid CEL condition (${error instanceof Error ? error.message : String(error)})`,
    });
    return z.NEVER;
  }
});

const by = z.union(
  [
    z.literal('caller'),
    z.array(nonEmptyString, { error: 'expected "caller" or a list of groups' }).min(1, {
      error: 'expected at least one group',
    }),
  ],
  { error: 'expected "caller" or a list of approver groups such as ["platform-leads"]' },
);

const rule = z.strictObject(
  {
    tools: toolGlobs.optional(),
    annotations: annotations.optional(),
    when: when.optional(),
    by: by.default('caller'),
  },
  { error: 'expected a rule object: { tools?, annotations?, when?, by? }' },
);

/** The options schema, declared in `definePlugin`. */
export const approveOptionsSchema = z
  .strictObject(
    {
      rules: z.array(rule, { error: 'expected an array of rules' }),
      timeoutMs: z
        .number({ error: 'expected a number of milliseconds' })
        .int({ error: 'expected a whole number of milliseconds' })
        .min(1, { error: 'expected at least 1 ms' })
        .max(MAX_TIMEOUT_MS, { error: `expected at most ${MAX_TIMEOUT_MS} ms (a day)` })
        .default(120_000),
    },
    { error: 'expected an object: { rules, timeoutMs? }' },
  )
  .transform(
    (options): ResolvedApproveOptions => ({
      timeoutMs: options.timeoutMs,
      rules: options.rules.map((r, index) => ({
        index,
        tools: r.tools,
        annotations: r.annotations as Partial<Record<Hint, boolean>> | undefined,
        when: r.when,
        by: r.by,
      })),
    }),
  );
