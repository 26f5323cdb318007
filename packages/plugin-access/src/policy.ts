import { type Identity, SERVER_NAME_PATTERN } from '@switchyard/core';
import { compileUriGlob, type UriGlob } from './glob.js';

export type Effect = 'allow' | 'deny';

/** One access rule: it matches a request when every field it names matches (an absent field matches anything). */
export interface AccessRule {
  effect: Effect;
  /** Client ids (`clients.<id>` in the gateway config, or the anonymous identity's id). */
  clients?: string[];
  /** Matches when the caller belongs to at least one of these groups. */
  groups?: string[];
  /** Upstream server names (the server that serves the URI). */
  servers?: string[];
  /** Glob patterns over the exposed, canonical URI (see `compileUriGlob`). */
  uris?: string[];
  /** Methods: resources/list, resources/templates/list, resources/read, resources/subscribe, completion/complete. */
  methods?: string[];
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
  'completion/complete',
] as const;

export const LIST_METHODS: ReadonlySet<string> = new Set(['resources/list', 'resources/templates/list']);

/** What a request asks for, as the rules see it. */
export interface Subject {
  identity: Identity;
  method: string;
  /** The upstream serving the target; undefined when no upstream routes it (rules naming servers do not match). */
  server: string | undefined;
  /** The canonical target URI; undefined when the target has none (rules naming uris do not match). */
  uri: string | undefined;
}

export interface Decision {
  effect: Effect;
  /** Index of the deciding rule; undefined when the default decided. */
  rule: number | undefined;
}

interface CompiledRule {
  readonly index: number;
  readonly effect: Effect;
  readonly clients: ReadonlySet<string> | undefined;
  readonly groups: ReadonlySet<string> | undefined;
  readonly servers: ReadonlySet<string> | undefined;
  readonly uris: readonly UriGlob[] | undefined;
  readonly methods: ReadonlySet<string> | undefined;
  readonly description: string | undefined;
}

const OPTION_KEYS = new Set(['default', 'rules', 'maxSkippedPages']);
const RULE_KEYS = new Set(['effect', 'clients', 'groups', 'servers', 'uris', 'methods', 'description']);
export const DEFAULT_MAX_SKIPPED_PAGES = 1000;

/**
 * The compiled, validated rule list. `decide` is first-match-wins over the rules, then the default.
 *
 * @example
 * const policy = AccessPolicy.compile({ default: 'deny', rules: [{ effect: 'allow', uris: ['docs+**'] }] });
 * policy.decide({ identity, method: 'resources/read', server: 'docs', uri: 'docs+file:///a' }).effect; // 'allow'
 */
export class AccessPolicy {
  readonly default: Effect;
  readonly maxSkippedPages: number;
  /** Whether decisions can differ between callers (some rule names clients or groups). */
  readonly identityDependent: boolean;
  /** Rule-list mistakes that are legal but almost certainly unintended. */
  readonly warnings: readonly string[];
  readonly #rules: readonly CompiledRule[];

  private constructor(
    options: Required<Pick<AccessOptions, 'default' | 'maxSkippedPages'>>,
    rules: CompiledRule[],
  ) {
    this.default = options.default;
    this.maxSkippedPages = options.maxSkippedPages;
    this.#rules = rules;
    this.identityDependent = rules.some((r) => r.clients !== undefined || r.groups !== undefined);
    this.warnings = lint(rules);
  }

  /** Validates options; throws an Error naming the offending option (e.g. `rules[2].effect`). */
  static compile(options: unknown): AccessPolicy {
    const record = options ?? {};
    if (!isPlainObject(record)) throw new Error('options must be an object: { default, rules }');
    for (const key of Object.keys(record)) {
      if (!OPTION_KEYS.has(key)) {
        throw new Error(`unknown option "${key}" (known: ${[...OPTION_KEYS].join(', ')})`);
      }
    }
    const fallback = record.default ?? 'deny';
    if (fallback !== 'allow' && fallback !== 'deny') {
      throw new Error(`default must be "allow" or "deny", got ${JSON.stringify(fallback)}`);
    }
    const maxSkippedPages = record.maxSkippedPages ?? DEFAULT_MAX_SKIPPED_PAGES;
    if (typeof maxSkippedPages !== 'number' || !Number.isInteger(maxSkippedPages) || maxSkippedPages < 0) {
      throw new Error(
        `maxSkippedPages must be a non-negative integer, got ${JSON.stringify(maxSkippedPages)}`,
      );
    }
    const rules = record.rules ?? [];
    if (!Array.isArray(rules)) throw new Error('rules must be an array of rules: [{ effect, ... }]');
    return new AccessPolicy(
      { default: fallback, maxSkippedPages },
      rules.map((rule, index) => compileRule(rule, index)),
    );
  }

  /**
   * Rules naming a server that is not configured: such a rule never matches, which for a deny rule with a
   * typo means it denies nothing.
   */
  unknownServers(configured: readonly string[]): string[] {
    const known = new Set(configured);
    const warnings: string[] = [];
    for (const rule of this.#rules) {
      for (const name of rule.servers ?? []) {
        if (known.has(name)) continue;
        warnings.push(
          `rules[${rule.index}].servers names ${JSON.stringify(name)}, which is not a configured upstream (${[...known].join(', ') || 'none'}), so it never matches that server`,
        );
      }
    }
    return warnings;
  }

  /** First matching rule's effect, else the default. */
  decide(subject: Subject): Decision {
    for (const rule of this.#rules) {
      if (matches(rule, subject)) return { effect: rule.effect, rule: rule.index };
    }
    return { effect: this.default, rule: undefined };
  }

  /**
   * Decides a target that has several canonical readings (see `uriReadings`): allowed only when every
   * reading is allowed. `readings` undefined = the URI could not be canonicalized: denied. An empty list
   * = the target has no URI (a prompt): decided with rules naming `uris` not matching.
   */
  decideReadings(subject: Omit<Subject, 'uri'>, readings: readonly string[] | undefined): Decision {
    if (readings === undefined) return { effect: 'deny', rule: undefined };
    if (readings.length === 0) return this.decide({ ...subject, uri: undefined });
    let decision: Decision = { effect: 'allow', rule: undefined };
    for (const uri of readings) {
      decision = this.decide({ ...subject, uri });
      if (decision.effect === 'deny') return decision;
    }
    return decision;
  }

  /**
   * Decides a list request itself: only rules that name neither servers nor uris apply (the others decide
   * the items); when none matches the request is answered, with the items filtered.
   */
  decideListRequest(identity: Identity, method: string): Decision {
    const subject: Subject = { identity, method, server: undefined, uri: undefined };
    for (const rule of this.#rules) {
      if (rule.servers !== undefined || rule.uris !== undefined) continue;
      if (matches(rule, subject)) return { effect: rule.effect, rule: rule.index };
    }
    return { effect: 'allow', rule: undefined };
  }

  /** The `description` of rule `index`, for logs. */
  describe(index: number | undefined): string | undefined {
    return index === undefined ? undefined : this.#rules[index]?.description;
  }
}

function matches(rule: CompiledRule, subject: Subject): boolean {
  if (rule.methods && !rule.methods.has(subject.method)) return false;
  if (rule.clients && !rule.clients.has(subject.identity.id)) return false;
  if (rule.groups && !subject.identity.groups.some((g) => rule.groups?.has(g))) return false;
  if (rule.servers && (subject.server === undefined || !rule.servers.has(subject.server))) return false;
  if (rule.uris) {
    const uri = subject.uri;
    if (uri === undefined || !rule.uris.some((glob) => glob.matches(uri))) return false;
  }
  return true;
}

function compileRule(rule: unknown, index: number): CompiledRule {
  const at = `rules[${index}]`;
  if (!isPlainObject(rule)) throw new Error(`${at} must be an object: { effect: "allow" | "deny", ... }`);
  for (const key of Object.keys(rule)) {
    if (!RULE_KEYS.has(key)) {
      throw new Error(`${at} has an unknown field "${key}" (known: ${[...RULE_KEYS].join(', ')})`);
    }
  }
  const effect = rule.effect;
  if (effect !== 'allow' && effect !== 'deny') {
    throw new Error(`${at}.effect must be "allow" or "deny", got ${JSON.stringify(effect)}`);
  }
  if (rule.description !== undefined && typeof rule.description !== 'string') {
    throw new Error(`${at}.description must be a string`);
  }
  const servers = stringList(rule.servers, `${at}.servers`);
  servers?.forEach((name, i) => {
    if (!SERVER_NAME_PATTERN.test(name)) {
      throw new Error(
        `${at}.servers[${i}] ${JSON.stringify(name)} is not a server name (${SERVER_NAME_PATTERN})`,
      );
    }
  });
  const methods = stringList(rule.methods, `${at}.methods`);
  methods?.forEach((method, i) => {
    if (!(RULE_METHODS as readonly string[]).includes(method)) {
      const hint = method === 'resources/unsubscribe' ? ' (unsubscribing is always allowed)' : '';
      throw new Error(
        `${at}.methods[${i}] ${JSON.stringify(method)} is not a method rules can name${hint}; use one of ${RULE_METHODS.join(', ')}`,
      );
    }
  });
  const uris = stringList(rule.uris, `${at}.uris`)?.map((pattern, i) => {
    try {
      return compileUriGlob(pattern);
    } catch (error) {
      throw new Error(`${at}.uris[${i}]: ${error instanceof Error ? error.message : String(error)}`);
    }
  });
  const clients = stringList(rule.clients, `${at}.clients`);
  const groups = stringList(rule.groups, `${at}.groups`);
  return {
    index,
    effect,
    clients: clients && new Set(clients),
    groups: groups && new Set(groups),
    servers: servers && new Set(servers),
    uris,
    methods: methods && new Set(methods),
    description: rule.description,
  };
}

/** A non-empty array of non-empty strings, or undefined when absent. */
function stringList(value: unknown, at: string): string[] | undefined {
  if (value === undefined) return undefined;
  if (!Array.isArray(value) || value.length === 0) {
    throw new Error(`${at} must be a non-empty array of strings (omit it to match anything)`);
  }
  value.forEach((item, i) => {
    if (typeof item !== 'string' || item.length === 0) {
      throw new Error(`${at}[${i}] must be a non-empty string, got ${JSON.stringify(item)}`);
    }
  });
  return value as string[];
}

/** Legal rule lists that cannot mean what they say. */
function lint(rules: readonly CompiledRule[]): string[] {
  const warnings: string[] = [];
  for (const rule of rules) {
    const at = `rules[${rule.index}]`;
    const onlyLists = rule.methods !== undefined && [...rule.methods].every((m) => LIST_METHODS.has(m));
    if (onlyLists && (rule.uris !== undefined || rule.servers !== undefined)) {
      warnings.push(
        `${at} names only list methods together with servers or uris, so it never matches: list items are decided as resources/read of each item`,
      );
    }
  }
  const catchAll = rules.find(
    (r) => !r.clients && !r.groups && !r.servers && !r.uris && !r.methods && r.index < rules.length - 1,
  );
  if (catchAll) {
    warnings.push(`rules[${catchAll.index}] matches every request, so the rules after it never apply`);
  }
  return warnings;
}

function isPlainObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}
