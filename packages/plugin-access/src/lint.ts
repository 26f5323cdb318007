import { type CompiledRule, LIST_METHODS } from './options.js';

/** The methods whose target each pattern field can select (list items are decided as these too). */
const TARGET_METHODS = {
  uris: [
    'resources/read',
    'resources/subscribe',
    'completion/complete',
    'skills/get',
    'resources/directory/read',
  ],
  tools: ['tools/call'],
  prompts: ['prompts/get', 'completion/complete'],
} as const;

type TargetField = keyof typeof TARGET_METHODS;

/** Legal rule lists that cannot mean what they say, as warnings to log at start-up. */
export function lint(rules: readonly CompiledRule[]): string[] {
  const warnings: string[] = [];
  for (const rule of rules) {
    const warning = neverMatches(rule);
    if (warning) warnings.push(`rules[${rule.index}] ${warning}`);
    if (readsMissingArguments(rule)) {
      warnings.push(
        `rules[${rule.index}].when reads arguments but the rule also applies to requests that have none (resource reads, subscriptions, resource completions), where arguments is null: unless the condition allows for that, it fails there (${rule.effect === 'deny' ? 'so this deny rule matches them' : 'so this allow rule does not match them'}); name tools, prompts or methods to keep it to calls`,
      );
    }
  }
  const catchAll = rules.find(
    (r) =>
      !r.clients &&
      !r.groups &&
      !r.servers &&
      !r.uris &&
      !r.tools &&
      !r.prompts &&
      !r.methods &&
      !r.when &&
      r.index < rules.length - 1,
  );
  if (catchAll) {
    warnings.push(`rules[${catchAll.index}] matches every request, so the rules after it never apply`);
  }
  return warnings;
}

/** Requests with arguments, and the list methods and task methods whose items are decided as one. */
const ARGUMENT_METHODS: ReadonlySet<string> = new Set(['tools/call', 'prompts/get', ...LIST_METHODS]);

/** A `when` reading `arguments` in a rule that can match a resource request, where they are null. */
function readsMissingArguments(rule: CompiledRule): boolean {
  if (!rule.when?.variables.has('arguments')) return false;
  if (rule.uris) return true;
  if (rule.tools || rule.prompts) return false;
  return !rule.methods || [...rule.methods].some((m) => !ARGUMENT_METHODS.has(m));
}

/** Why a rule can never match any request, or undefined when it can. */
function neverMatches(rule: CompiledRule): string | undefined {
  const methods = rule.methods && [...rule.methods];
  if (!methods) return undefined;
  const fields = (Object.keys(TARGET_METHODS) as TargetField[]).filter((f) => rule[f] !== undefined);
  if (methods.every((m) => LIST_METHODS.has(m)) && (fields.length > 0 || rule.servers)) {
    return 'names only list methods together with servers, uris, tools or prompts, so it never matches: list items are decided as a resources/read, tools/call or prompts/get of each item';
  }
  if (fields.length === 0) return undefined;
  const applicable = new Set<string>(fields.flatMap((f) => TARGET_METHODS[f]));
  if (methods.some((m) => applicable.has(m))) return undefined;
  return `names ${fields.join(' and ')} but none of its methods addresses such a target (${[...applicable].join(', ')}), so it never matches`;
}
