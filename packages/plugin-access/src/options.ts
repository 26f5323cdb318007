import { nameFilter, SERVER_NAME_PATTERN, validateOptions } from '@switchyard/core';
import { z } from 'zod';
import { compileUriGlob, type UriGlob } from './glob.js';
import { PACKAGE } from './package-info.js';
import type { When } from './when.js';
import { whenOption } from './when-option.js';

export type Effect = 'allow' | 'deny';

/**
 * One access rule: it matches a request when every field it names matches (an absent field matches
 * anything). `uris`, `tools` and `prompts` select the request's target: a rule naming any of them
 * matches only requests whose target is of a kind it names and matches that kind's patterns.
 */
export interface AccessRule {
  effect: Effect;
  /** Client ids (`clients.<id>` in the gateway config, or the anonymous identity's id). */
  clients?: string[];
  /** Matches when the caller belongs to at least one of these groups. */
  groups?: string[];
  /** Upstream server names (the server that serves the resource, tool or prompt). */
  servers?: string[];
  /** Glob patterns over the exposed, canonical URI of a resource or template (see the README). */
  uris?: string[];
  /** Glob patterns over exposed tool names (`docs__search`): `*` any run of characters, `?` one. */
  tools?: string[];
  /** Glob patterns over exposed prompt names, like `tools`. */
  prompts?: string[];
  /** Methods the rule applies to (see `RULE_METHODS`). */
  methods?: string[];
  /** A CEL condition over `identity`, `groups`, `server`, `tool`, `arguments` and `uri` (see the README). */
  when?: string;
  /** Free text for operators; shown in debug logs when the rule decides. */
  description?: string;
}

/** Options of `@switchyard/plugin-access`. */
export interface AccessOptions {
  /** What happens when no rule matches; default `"deny"` (safe by default). */
  default?: Effect;
  /** Evaluated in order; the first matching rule decides. Default `[]`. */
  rules?: AccessRule[];
  /**
   * How many further pages of one upstream a list call may fetch when filtering leaves a page empty;
   * default 1000. Past it, an empty page with a cursor is returned and the client continues from there.
   */
  maxSkippedPages?: number;
}

/** The methods rules may name (`resources/unsubscribe` is always allowed). */
export const RULE_METHODS = [
  'resources/list',
  'resources/templates/list',
  'resources/read',
  'resources/subscribe',
  'tools/list',
  'tools/call',
  'prompts/list',
  'prompts/get',
  'completion/complete',
  'skills/list',
  'skills/get',
  'resources/directory/read',
] as const;

/** List requests: their items are decided one by one (as a read, a call or a get of each). */
export const LIST_METHODS: ReadonlySet<string> = new Set([
  'resources/list',
  'resources/templates/list',
  'tools/list',
  'prompts/list',
  'skills/list',
]);

export const DEFAULT_MAX_SKIPPED_PAGES = 1000;

/** Compiled globs over exposed tool or prompt names. */
export interface NameGlobs {
  readonly patterns: readonly string[];
  matches(name: string): boolean;
}

/** A validated rule, its patterns compiled. */
export interface CompiledRule {
  readonly index: number;
  readonly effect: Effect;
  readonly clients: ReadonlySet<string> | undefined;
  readonly groups: ReadonlySet<string> | undefined;
  readonly servers: ReadonlySet<string> | undefined;
  readonly uris: readonly UriGlob[] | undefined;
  readonly tools: NameGlobs | undefined;
  readonly prompts: NameGlobs | undefined;
  readonly methods: ReadonlySet<string> | undefined;
  readonly when: When | undefined;
  readonly description: string | undefined;
}

export interface CompiledOptions {
  readonly default: Effect;
  readonly maxSkippedPages: number;
  readonly rules: readonly CompiledRule[];
}

/** Every character an exposed name may hold (DESIGN §4b), plus the two wildcards. */
const NAME_PATTERN = /^[A-Za-z0-9_?*-]+$/;

const effect = z.enum(['allow', 'deny'], { error: 'expected "allow" or "deny"' });

const nonEmptyString = z
  .string({ error: 'expected a non-empty string' })
  .min(1, { error: 'expected a non-empty string' });

/** A non-empty array (omitting the field is how a rule says "anything"). */
const nonEmptyList = <T extends z.ZodType>(item: T) =>
  z
    .array(item, { error: 'expected a non-empty array of strings (omit it to match anything)' })
    .min(1, { error: 'expected a non-empty array of strings (omit it to match anything)' });

const serverName = nonEmptyString.regex(SERVER_NAME_PATTERN, {
  error: `expected a server name (${SERVER_NAME_PATTERN})`,
});

const method = z.enum(RULE_METHODS, {
  error: (issue) =>
    issue.input === 'resources/unsubscribe'
      ? 'rules cannot name "resources/unsubscribe" (unsubscribing is always allowed)'
      : `expected a method rules can name: one of ${RULE_METHODS.join(', ')}`,
});

const uriGlob = nonEmptyString.transform((pattern, ctx): UriGlob => {
  try {
    return compileUriGlob(pattern);
  } catch (error) {
    ctx.issues.push({
      code: 'custom',
      input: pattern,
      message: `expected a URI pattern: ${error instanceof Error ? error.message : String(error)}`,
    });
    return z.NEVER;
  }
});

const nameGlobs = nonEmptyList(
  nonEmptyString.regex(NAME_PATTERN, {
    error:
      'can never match: exposed names hold only A-Z, a-z, 0-9, "_" and "-" (the gateway turns every other character into "_"); patterns add "*" (any run) and "?" (one character)',
  }),
).transform((patterns): NameGlobs => ({ patterns, matches: nameFilter({ allow: patterns }) }));

/** The fields a rule may have, each with its check (one line per field). */
const ruleFields = {
  effect,
  clients: nonEmptyList(nonEmptyString).optional(),
  groups: nonEmptyList(nonEmptyString).optional(),
  servers: nonEmptyList(serverName).optional(),
  uris: nonEmptyList(uriGlob).optional(),
  tools: nameGlobs.optional(),
  prompts: nameGlobs.optional(),
  methods: nonEmptyList(method).optional(),
  when: whenOption.optional(),
  description: z.string({ error: 'expected a string' }).optional(),
};
const RULE_KEYS = Object.keys(ruleFields);

const rule = z.strictObject(ruleFields, {
  error: (issue) =>
    issue.code === 'unrecognized_keys'
      ? `unknown rule field (known: ${RULE_KEYS.join(', ')})`
      : 'expected a rule: { effect: "allow" | "deny", ... }',
});

const OPTION_KEYS = ['default', 'rules', 'maxSkippedPages'];
const maxSkippedPagesError = 'expected a non-negative integer';

const checkedOptions = z.strictObject(
  {
    default: effect.default('deny'),
    rules: z.array(rule, { error: 'expected an array of rules: [{ effect, ... }]' }).default([]),
    maxSkippedPages: z
      .number({ error: maxSkippedPagesError })
      .int({ error: maxSkippedPagesError })
      .min(0, { error: maxSkippedPagesError })
      .default(DEFAULT_MAX_SKIPPED_PAGES),
  },
  {
    error: (issue) =>
      issue.code === 'unrecognized_keys'
        ? `unknown option (known: ${OPTION_KEYS.join(', ')})`
        : 'expected an object: { default, rules }',
  },
);

/**
 * The access plugin's options, checked by the plugin host (which names the plugin and the option's
 * path when one is wrong, e.g. `options.rules[2].effect`), defaults applied and patterns compiled.
 */
export const accessOptions = checkedOptions.transform(compiled);

/** The checked options, their rules numbered and their lists made sets. */
function compiled(parsed: z.output<typeof checkedOptions>): CompiledOptions {
  const { rules, ...options } = parsed;
  return {
    ...options,
    rules: rules.map((r, index) => ({
      index,
      effect: r.effect,
      clients: r.clients && new Set(r.clients),
      groups: r.groups && new Set(r.groups),
      servers: r.servers && new Set(r.servers),
      uris: r.uris,
      tools: r.tools,
      prompts: r.prompts,
      methods: r.methods && new Set(r.methods),
      when: r.when,
      description: r.description,
    })),
  };
}

/**
 * Validates options outside the plugin host (the policy's own entrance, and tests) exactly as the host
 * does: throws a PluginError naming the plugin and each offending option, e.g.
 * `Plugin @switchyard/plugin-access: options.rules[2].effect: expected "allow" or "deny", got "permit"`.
 */
export function parseAccessOptions(raw: unknown): CompiledOptions {
  return validateOptions(PACKAGE.name, accessOptions, raw ?? {});
}
