import { definePlugin } from '@switchyard/core';
import { secretsMiddleware } from './middleware.js';
import { secretsOptionsSchema } from './options.js';
import { PACKAGE } from './package-info.js';
import { recommendedScanner } from './scanner.js';
import { DEFAULT_LIMITS } from './walker.js';

export { SecretsReasons } from './errors.js';
export type { ScanTarget, SecretsAction, SecretsOptions } from './options.js';

const CACHE_PLUGIN = '@switchyard/plugin-cache';

/**
 * Secret scanning on secretlint's recommended rules: a credential in what a client sends (tool and
 * prompt arguments, completion arguments, names, URIs) is refused before it reaches the upstream
 * (`-32010 secret_detected`, naming the rule); in tool results, prompt messages, resource reads and
 * completions it becomes `[REDACTED:<rule>]`, or with `action: "block"` the answer is refused. The
 * rule names go to `ctx.state` (`SECRETS_FINDINGS_KEY`) for the audit log; a credential never goes to
 * a log line, an error or the state. List it after the audit log and before the cache.
 *
 * @example
 * // switchyard.json
 * "plugins": [
 *   ["@switchyard/plugin-audit", { "file": "./audit.jsonl" }],
 *   ["@switchyard/plugin-secrets", { "scan": ["arguments", "results"], "action": "redact" }]
 * ]
 */
export default definePlugin({
  name: PACKAGE.name,
  version: PACKAGE.version,
  // Released in lockstep with @switchyard/core; the contract suite checks them together.
  core: '>=0.1.0 <1.0.0',
  options: secretsOptionsSchema,
  setup(resolved, ctx) {
    if (ctx.loaded.includes(CACHE_PLUGIN)) {
      throw new Error(
        `list ${PACKAGE.name} before ${CACHE_PLUGIN} in "plugins": a cache outside the secrets scan answers cache hits without it, so it would serve reads unscanned`,
      );
    }
    const scanner = recommendedScanner();
    const findings = ctx.meter.createCounter('switchyard.secrets.findings', {
      description: 'Requests and answers in which a rule found a credential, by rule and where',
    });
    const refusals = ctx.meter.createCounter('switchyard.secrets.refused', {
      description: 'Requests refused by the secrets scan, by reason and where',
    });
    ctx.logger.debug('secret scanning on', {
      scan: [...resolved.scan],
      action: resolved.action,
      rules: scanner.rules.length,
    });
    return {
      request: secretsMiddleware(resolved, scanner, DEFAULT_LIMITS, {
        found: (where, method, rules) => {
          for (const rule of rules) findings.add(1, { rule, where });
          ctx.logger.debug('credential found', { where, method, rules });
        },
        refused: (where, method, reason) => refusals.add(1, { reason, where, method }),
      }),
    };
  },
});
