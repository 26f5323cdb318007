import type { Identity } from '@switchyard/core';
import { lint } from './lint.js';
import { type CompiledOptions, type CompiledRule, type Effect, parseAccessOptions } from './options.js';
import type { WhenArguments } from './when.js';

/**
 * What a request asks for, as the rules see it. At most one of `uri`, `tool` and `prompt` is set: the
 * target's kind. None is set for list requests and for targets rules cannot name.
 */
export interface Subject {
  identity: Identity;
  method: string;
  /** The upstream serving the target; undefined when no upstream routes it (rules naming servers do not match). */
  server: string | undefined;
  /** The canonical URI of a resource or template target (rules naming `uris` match on it). */
  uri?: string | undefined;
  /** The exposed name of a tool target (rules naming `tools` match on it). */
  tool?: string | undefined;
  /** The exposed name of a prompt target (rules naming `prompts` match on it). */
  prompt?: string | undefined;
  /** The arguments `when` conditions see (see {@link WhenArguments}); undefined = none (`null`). */
  arguments?: WhenArguments;
}

export interface Decision {
  effect: Effect;
  /** Index of the deciding rule; undefined when the default decided. */
  rule: number | undefined;
}

const ALLOWED: Decision = { effect: 'allow', rule: undefined };
const UNCHECKABLE: Decision = { effect: 'deny', rule: undefined };

/**
 * The compiled, validated rule list. `decide` is first-match-wins over the rules, then the default.
 *
 * @example
 * const policy = AccessPolicy.compile({ default: 'deny', rules: [{ effect: 'allow', tools: ['docs__*'] }] });
 * policy.decide({ identity, method: 'tools/call', server: 'docs', tool: 'docs__search' }).effect; // 'allow'
 */
export class AccessPolicy {
  readonly default: Effect;
  readonly maxSkippedPages: number;
  /** Whether decisions can differ between callers (some rule names clients or groups). */
  readonly identityDependent: boolean;
  /** Rule-list mistakes that are legal but almost certainly unintended. */
  readonly warnings: readonly string[];
  readonly #rules: readonly CompiledRule[];

  private constructor(fallback: Effect, maxSkippedPages: number, rules: readonly CompiledRule[]) {
    this.default = fallback;
    this.maxSkippedPages = maxSkippedPages;
    this.#rules = rules;
    this.identityDependent = rules.some(
      (r) =>
        r.clients !== undefined ||
        r.groups !== undefined ||
        r.when?.variables.has('identity') === true ||
        r.when?.variables.has('groups') === true,
    );
    this.warnings = lint(rules);
  }

  /** Validates options; throws an Error naming the offending option (e.g. `rules[2].effect`). */
  static compile(options: unknown): AccessPolicy {
    return AccessPolicy.of(parseAccessOptions(options));
  }

  /** The policy of options already validated and compiled (by the plugin host, with `accessOptions`). */
  static of(options: CompiledOptions): AccessPolicy {
    return new AccessPolicy(options.default, options.maxSkippedPages, options.rules);
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
   * Decides a resource target that has several canonical readings (see `uriReadings`): allowed only when
   * every reading is allowed. `readings` undefined = the URI could not be canonicalized: denied; empty =
   * no URI to match (rules naming `uris` do not match).
   */
  decideReadings(subject: Omit<Subject, 'uri'>, readings: readonly string[] | undefined): Decision {
    if (readings === undefined) return UNCHECKABLE;
    if (readings.length === 0) return this.decide(subject);
    // One subject, its `uri` set per reading: `{ ...subject, uri }` would make a new hidden class per call
    // on Node 20's V8 (docs/architecture.md, speed); the literal that has the key first does not.
    const each: Subject = { uri: undefined, ...subject };
    let decision = ALLOWED;
    for (const uri of readings) {
      each.uri = uri;
      decision = this.decide(each);
      if (decision.effect === 'deny') return decision;
    }
    return decision;
  }

  /**
   * Decides a target the gateway may route to any of `servers` (a tool or prompt name no upstream is
   * known to serve yet): allowed only when allowed on every one of them. No server = decided with none.
   */
  decideServers(subject: Omit<Subject, 'server'>, servers: readonly string[]): Decision {
    // One subject, its `server` set per server (see decideReadings).
    const each: Subject = { server: undefined, ...subject };
    if (servers.length === 0) return this.decide(each);
    let decision = ALLOWED;
    for (const server of servers) {
      each.server = server;
      decision = this.decide(each);
      if (decision.effect === 'deny') return decision;
    }
    return decision;
  }

  /**
   * Decides a list request itself: only rules that name no servers and no target patterns apply (the
   * others decide the items); when none matches the request is answered, with the items filtered. A list
   * request has no arguments: a `when` that needs them does not refuse it.
   */
  decideListRequest(identity: Identity, method: string): Decision {
    const subject: Subject = { identity, method, server: undefined, arguments: 'pending' };
    for (const rule of this.#rules) {
      if (rule.servers || rule.uris || rule.tools || rule.prompts) continue;
      if (matches(rule, subject)) return { effect: rule.effect, rule: rule.index };
    }
    return ALLOWED;
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
  return matchesTarget(rule, subject) && holds(rule, subject);
}

/**
 * Whether a rule's `when` holds. A condition that cannot be evaluated never widens access: an allow
 * rule does not match, a deny rule does. One that needs arguments this decision does not have (a list
 * item, decided again with its arguments when called) neither hides nor refuses: an allow rule
 * matches, a deny rule does not.
 */
function holds(rule: CompiledRule, subject: Subject): boolean {
  if (rule.when === undefined) return true;
  const verdict = rule.when.evaluate({
    identity: subject.identity.id,
    groups: subject.identity.groups,
    server: subject.server,
    tool: subject.tool,
    uri: subject.uri,
    arguments: subject.arguments,
  });
  if (typeof verdict === 'boolean') return verdict;
  return verdict === 'pending' ? rule.effect === 'allow' : rule.effect === 'deny';
}

/** A rule naming target patterns matches a target of a kind it names, matched by that kind's patterns. */
function matchesTarget(rule: CompiledRule, { uri, tool, prompt }: Subject): boolean {
  if (!rule.uris && !rule.tools && !rule.prompts) return true;
  if (uri !== undefined && rule.uris?.some((glob) => glob.matches(uri))) return true;
  if (tool !== undefined && rule.tools?.matches(tool)) return true;
  return prompt !== undefined && rule.prompts?.matches(prompt) === true;
}
