import { defineErrorReasons, type GatewayError, type ReasonsOf } from '@switchyard/core';
import { PACKAGE } from './package-info.js';
import type { WalkLimits } from './walker.js';

/** The secrets plugin's refusals (DESIGN §8), registered with the gateway's error table when it loads. */
export const SecretsReasons = defineErrorReasons(PACKAGE.name, {
  secret_detected: {
    code: -32010,
    summary: 'a credential in the request (not sent upstream) or in the answer (`action: "block"`)',
  },
  unscannable: {
    code: -32011,
    summary:
      'the request or the answer is more than the secrets scan looks at; refused rather than unscanned',
  },
});

declare module '@switchyard/core' {
  interface GatewayErrorReasons extends ReasonsOf<typeof SecretsReasons> {}
}

/** Where a credential was found: in what the client sent, or in what the upstream answered. */
export type Where = 'arguments' | 'result';

const WHAT: Record<Where, string> = { arguments: 'the request', result: "the upstream's answer" };

/** A credential was found: the error names the rules, never the credential. */
export function secretDetected(method: string, where: Where, rules: readonly string[]): GatewayError {
  const advice =
    where === 'arguments'
      ? "It was not sent upstream. Remove the credential and retry; pass credentials through the server's own configuration instead."
      : "The answer was withheld. Ask the server's maintainers to leave credentials out of what it returns.";
  return SecretsReasons.secret_detected.error(
    `Secret detected in ${WHAT[where]} (${method}) by rule ${rules.join(', ')}. ${advice}`,
    { rules: [...rules], where },
  );
}

/** Over a scan bound: refused, rather than passed on unscanned. */
export function unscannable(
  method: string,
  where: Where,
  limit: 'depth' | 'size',
  limits: WalkLimits,
): GatewayError {
  const why =
    limit === 'depth'
      ? `nested deeper than ${limits.maxDepth} levels`
      : `over ${limits.maxChars} characters of text`;
  return SecretsReasons.unscannable.error(
    `${WHAT[where][0]!.toUpperCase()}${WHAT[where].slice(1)} (${method}) is ${why}, more than the secrets scan looks at; it was refused rather than passed on unscanned.`,
    {
      where,
      limit: limit === 'depth' ? { maxDepth: limits.maxDepth } : { maxChars: limits.maxChars },
    },
  );
}
