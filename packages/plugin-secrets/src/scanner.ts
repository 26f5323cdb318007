import { rules as recommendedRules } from '@secretlint/secretlint-rule-preset-recommend';
import type { SecretLintRuleContext, SecretLintRuleCreator, SecretLintSourceCode } from '@secretlint/types';

/** One credential a rule found in a text: the rule's short name and where it is (UTF-16 offsets, end excluded). */
export interface Finding {
  /** The rule's short name: `github` for `@secretlint/secretlint-rule-github`. */
  rule: string;
  start: number;
  end: number;
}

/** Scans texts for credentials with a fixed rule set, set up once. */
export interface Scanner {
  /** The short names of the rules it runs. */
  readonly rules: readonly string[];
  scan(text: string): Promise<Finding[]>;
}

const RULE_PREFIX = '@secretlint/secretlint-rule-';
/**
 * Not a scanner: it honours `secretlint-disable` comments in the scanned text, which would let an
 * argument or an answer switch the scan off for itself.
 */
const FILTER_COMMENTS = `${RULE_PREFIX}filter-comments`;
/**
 * Options a rule runs with instead of its defaults. AWS access key ids (`AKIA…`, `ASIA…`) and account ids
 * are scanned only with `enableIDScanRule`: without it an id passes alone, and beside its secret only the
 * secret is found. An id names the account and is half of the credential, so it is caught too.
 */
const RULE_OPTIONS: ReadonlyMap<string, Record<string, unknown>> = new Map([
  ['aws', { enableIDScanRule: true }],
]);
/** Data values shorter than this are not searched for (they are labels, not credentials). */
const MIN_SECRET_CHARS = 8;

/** `@secretlint/secretlint-rule-github` → `github`. */
export function shortRuleName(ruleId: string): string {
  return ruleId.startsWith(RULE_PREFIX) ? ruleId.slice(RULE_PREFIX.length) : ruleId;
}

/**
 * The scanner of secretlint's recommended preset (`@secretlint/secretlint-rule-preset-recommend`),
 * every rule with its defaults (but AWS ids, see {@link RULE_OPTIONS}), except `filter-comments`.
 *
 * The rules run through their own API (`create(context, options).file(source)`), not through
 * `@secretlint/core`'s `lintSource`: that one marks every call on secretlint's process-wide profiler,
 * which keeps every mark (and Node's performance timeline with it) for the life of the process and
 * searches them on each new one, so a long-running gateway slowed down call after call and grew
 * without bound. Reports keep the rule id, the range and the reported values (for {@link widen}); the
 * rule's message, which quotes the credential, is never built.
 */
export function recommendedScanner(): Scanner {
  const rules = (recommendedRules as SecretLintRuleCreator[]).filter(
    (rule) => rule.meta.id !== FILTER_COMMENTS,
  );
  const named = rules.map((rule) => ({ rule, name: shortRuleName(rule.meta.id) }));
  return {
    rules: named.map(({ name }) => name),
    async scan(text) {
      const source = sourceOf(text);
      const findings: Finding[] = [];
      for (const { rule, name } of named) {
        const context: SecretLintRuleContext = {
          sharedOptions: {},
          // A translation only carries the reported values: no message text is made.
          createTranslator: (() => (messageId: string, data?: unknown) => ({
            message: messageId,
            messageId,
            data,
          })) as never,
          report: (descriptor) => {
            const [start, end] = widen(text, descriptor.range, descriptor.message.data);
            findings.push({ rule: name, start, end });
          },
          ignore: () => {},
        };
        await rule.create(context, RULE_OPTIONS.get(name) ?? {}).file?.(source);
      }
      return findings.sort((a, b) => a.start - b.start);
    },
  };
}

/**
 * A text as the rules see a source: no file (so no rule reads one). Two rules look only at the files they
 * know: `gcp` at `.json` files (a service account's key file), `npm` for `_authToken=` lines at `.npmrc`
 * files. A text that holds what they look for is presented as such a file, so they scan it too.
 */
function sourceOf(content: string): SecretLintSourceCode {
  const ext = content.includes('"private_key_id"') ? '.json' : '';
  const filePath = content.includes('_authToken=') ? '.npmrc' : undefined;
  return {
    hasBOM: false,
    content,
    filePath,
    physicalFilePath: undefined,
    contentType: 'text',
    ext,
    getFilePath: () => filePath,
    getPhysicalFilePath: () => undefined,
    rangeToLocation: () => ({ start: { line: 1, column: 0 }, end: { line: 1, column: 0 } }),
  } as unknown as SecretLintSourceCode;
}

/**
 * A finding's range, widened to cover every occurrence of the values the rule reported that overlaps
 * it. Some rules report the right length at the wrong place (the AWS secret key rule starts its range
 * at the `aws_secret_access_key=` before the key): the reported value itself is what must go.
 * The values are only compared here, never kept or logged.
 */
function widen(text: string, range: readonly [number, number], data: unknown): [number, number] {
  let [start, end] = range;
  if (typeof data !== 'object' || data === null) return [start, end];
  for (const value of Object.values(data)) {
    if (typeof value !== 'string' || value.length < MIN_SECRET_CHARS) continue;
    let at = text.indexOf(value, Math.max(0, range[0] - value.length + 1));
    while (at !== -1 && at < range[1]) {
      start = Math.min(start, at);
      end = Math.max(end, at + value.length);
      at = text.indexOf(value, at + 1);
    }
  }
  return [start, end];
}
