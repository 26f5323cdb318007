import { lintSource } from '@secretlint/core';
import { rules as recommendedRules } from '@secretlint/secretlint-rule-preset-recommend';
import type { SecretLintCoreConfig } from '@secretlint/types';

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
/** Data values shorter than this are not searched for (they are labels, not credentials). */
const MIN_SECRET_CHARS = 8;

/** `@secretlint/secretlint-rule-github` → `github`. */
export function shortRuleName(ruleId: string): string {
  return ruleId.startsWith(RULE_PREFIX) ? ruleId.slice(RULE_PREFIX.length) : ruleId;
}

/**
 * The scanner of secretlint's recommended preset (`@secretlint/secretlint-rule-preset-recommend`),
 * every rule with its defaults, except `filter-comments`.
 */
export function recommendedScanner(): Scanner {
  const config: SecretLintCoreConfig = {
    rules: recommendedRules
      .filter((rule) => rule.meta.id !== FILTER_COMMENTS)
      .map((rule) => ({ id: rule.meta.id, rule })),
  };
  return {
    rules: config.rules.map((r) => shortRuleName(r.id)),
    async scan(text) {
      const result = await lintSource({
        source: { content: text, filePath: 'switchyard-secrets.txt', contentType: 'text' },
        options: { config, noPhysicFilePath: true },
      });
      return result.messages.map((message) => {
        const [start, end] = widen(text, message.range, message.data);
        return { rule: shortRuleName(message.ruleId), start, end };
      });
    },
  };
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
