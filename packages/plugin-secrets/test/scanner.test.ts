import { describe, expect, it } from 'vitest';
import { recommendedScanner, shortRuleName } from '../src/scanner.js';
import {
  AWS_PAIR,
  AWS_SECRET,
  GITHUB_TOKEN,
  NPM_TOKEN,
  PLAIN_TEXTS,
  POSTGRES_URL,
  PRIVATE_KEY,
  SLACK_TOKEN,
} from './fixtures.js';

const scanner = recommendedScanner();

/** The rule names found in `text`, and whether each finding's range covers `secret`. */
async function scan(text: string) {
  const findings = await scanner.scan(text);
  return findings.map((f) => ({ rule: f.rule, text: text.slice(f.start, f.end) }));
}

describe('the recommended scanner', () => {
  it('runs the recommended preset without the comment filter', () => {
    expect(scanner.rules).toEqual(expect.arrayContaining(['aws', 'github', 'slack', 'privatekey', 'npm']));
    expect(scanner.rules).not.toContain('filter-comments');
    expect(shortRuleName('@secretlint/secretlint-rule-github')).toBe('github');
    expect(shortRuleName('acme-rule')).toBe('acme-rule');
  });

  it.each([
    ['github', GITHUB_TOKEN, `token: ${GITHUB_TOKEN} (expires soon)`],
    ['slack', SLACK_TOKEN, `SLACK_BOT_TOKEN=${SLACK_TOKEN}`],
    ['npm', NPM_TOKEN, `//registry.npmjs.org/:_authToken=${NPM_TOKEN}`],
    ['privatekey', PRIVATE_KEY, `key:\n${PRIVATE_KEY}\n`],
    ['database-connection-string', POSTGRES_URL, `DATABASE_URL=${POSTGRES_URL}`],
  ])('finds a %s credential and its whole range', async (rule, secret, text) => {
    const found = await scan(text);
    expect(found.map((f) => f.rule)).toEqual([rule]);
    expect(found[0]!.text).toContain(secret);
  });

  it('covers the whole AWS secret key, although the rule reports its range from the assignment', async () => {
    const found = await scan(AWS_PAIR);
    expect(found.map((f) => f.rule)).toEqual(['aws']);
    expect(found[0]!.text).toContain(AWS_SECRET);
  });

  it.each(PLAIN_TEXTS)('flags no ordinary text: %s', async (text) => {
    expect(await scan(text)).toEqual([]);
  });

  it('cannot be switched off by a secretlint-disable comment in the scanned text', async () => {
    const text = `// secretlint-disable\n${GITHUB_TOKEN}\n/* secretlint-disable-line */ ${SLACK_TOKEN}`;
    expect((await scan(text)).map((f) => f.rule).sort()).toEqual(['github', 'slack']);
  });

  it('leaves nothing behind per scan (no performance marks kept, as lintSource left them)', async () => {
    const before = performance.getEntriesByType('mark').length;
    for (let i = 0; i < 200; i++) await scanner.scan(`call ${i}: ${GITHUB_TOKEN}`);
    expect(performance.getEntriesByType('mark').length).toBe(before);
  });
});
