import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { CORE_ERROR_REASONS, ErrorCode } from '@switchyard/core';
import { describe, expect, it } from 'vitest';

// docs/operations.md keeps one table of every code and reason the gateway sends (DESIGN §9): each
// ErrorCode number and each GatewayErrorReason must have a row, so a new one cannot ship undocumented.

const root = join(import.meta.dirname, '..', '..', '..');
const operations = readFileSync(join(root, 'docs', 'operations.md'), 'utf8');
const section = operations.slice(operations.indexOf('## Errors clients see'));
const table = section.slice(0, section.indexOf('\n\n', section.indexOf('| code')));
const rows = table
  .split('\n')
  .filter((line) => line.startsWith('| '))
  .map((line) => line.split('|').map((cell) => cell.trim()));

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
    const reasons = CORE_ERROR_REASONS;
    expect(reasons.length).toBeGreaterThan(30);
    const documentedElsewhere = section.slice(0, section.indexOf('\n## ', 5));
    for (const reason of reasons) {
      expect(documentedElsewhere.includes(`\`${reason}\``), `data.reason "${reason}" documented`).toBe(true);
    }
  });
});
