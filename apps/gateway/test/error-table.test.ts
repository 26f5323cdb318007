import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { CORE_ERROR_REASONS, ErrorCode, registeredErrorReasons } from '@switchyard/core';
import access from '@switchyard/plugin-access';
import approve from '@switchyard/plugin-approve';
import audit from '@switchyard/plugin-audit';
import cache from '@switchyard/plugin-cache';
import pin from '@switchyard/plugin-pin';
import rateLimit from '@switchyard/plugin-rate-limit';
import secrets from '@switchyard/plugin-secrets';
import { describe, expect, it } from 'vitest';
import { httpStatusOf } from '../src/listeners/http-errors.js';
import { GatewayReasons } from '../src/reasons.js';

// docs/operations.md keeps one table of every code and reason the gateway sends (DESIGN §9): each
// ErrorCode number, each reason core declares and each reason the first-party plugins and the app's
// listeners register must be there, a registered reason on a row with its own code, so a new one cannot
// ship undocumented.

const FIRST_PARTY = [access, approve, audit, cache, pin, rateLimit, secrets];

const root = join(import.meta.dirname, '..', '..', '..');
const operations = readFileSync(join(root, 'docs', 'operations.md'), 'utf8');
const section = operations.slice(operations.indexOf('## Errors clients see'));
const table = section.slice(0, section.indexOf('\n\n', section.indexOf('| code')));
const rows = table
  .split('\n')
  .filter((line) => line.startsWith('| '))
  .map((line) => line.split('|').map((cell) => cell.trim()));

/** What the first-party plugins (loaded above) and the gateway app registered, not a test's own plugin. */
function firstPartyReasons() {
  const owners = new Set(FIRST_PARTY.map((plugin) => plugin.name));
  return registeredErrorReasons().filter((r) => owners.has(r.owner) || r.owner === 'switchyard');
}

describe('the error table in docs/operations.md', () => {
  it('has a row for every code the gateway sends', () => {
    const documented = new Set(
      rows.flatMap((r) => [...(r[1] ?? '').matchAll(/-32\d\d\d/g)].map((m) => m[0])),
    );
    for (const [name, code] of Object.entries(ErrorCode)) {
      expect(documented.has(String(code)), `${name} (${code}) in the table`).toBe(true);
    }
  });

  it('names every reason the core declares', () => {
    expect(CORE_ERROR_REASONS.length).toBeGreaterThan(20);
    const documentedElsewhere = section.slice(0, section.indexOf('\n## ', 5));
    for (const reason of CORE_ERROR_REASONS) {
      expect(documentedElsewhere.includes(`\`${reason}\``), `data.reason "${reason}" documented`).toBe(true);
    }
  });

  it('has each reason the first-party plugins and the listeners register on a row with its code', () => {
    const registered = firstPartyReasons();
    const owners = new Set(registered.map((r) => r.owner));
    expect(owners.has('switchyard'), "the app registers its listeners' reasons").toBe(true);
    for (const plugin of ['secrets', 'pin', 'approve']) {
      expect(owners.has(`@switchyard/plugin-${plugin}`), `plugin-${plugin} registers its reasons`).toBe(true);
    }
    for (const { reason, code, owner } of registered) {
      const row = rows.find((r) => (r[2] ?? '').includes(`\`${reason}\``));
      expect(row, `${owner}'s "${reason}" has a row`).toBeDefined();
      expect(row?.[1], `${owner}'s "${reason}" on a row with its code ${code}`).toContain(String(code));
    }
  });

  it('has the status the HTTP listener answers each of its registered refusals with', () => {
    for (const entry of Object.values(GatewayReasons)) {
      const row = rows.find((r) => (r[2] ?? '').includes(`\`${entry.reason}\``));
      expect(httpStatusOf(entry.error('refused')), `${entry.reason}'s status`).toBe(entry.httpStatus);
      expect(row?.slice(1, 4).join(' '), `${entry.reason}'s row names HTTP ${entry.httpStatus}`).toContain(
        String(entry.httpStatus),
      );
    }
  });
});
