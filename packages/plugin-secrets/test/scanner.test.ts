import { describe, expect, it } from 'vitest';
import { recommendedScanner, shortRuleName } from '../src/scanner.js';
import { GENERATORS, generate } from './credentials.js';
import {
  AWS_KEY_ID,
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
    expect([...new Set(found.map((f) => f.rule))]).toEqual([rule]);
    expect(found[0]!.text).toContain(secret);
  });

  it('finds both halves of an AWS key pair, the whole secret although the rule reports its range from the assignment', async () => {
    const found = await scan(AWS_PAIR);
    expect(found.map((f) => f.rule)).toEqual(['aws', 'aws']);
    expect(found[0]!.text).toBe(AWS_KEY_ID);
    expect(found[1]!.text).toContain(AWS_SECRET);
  });

  it('finds a legacy npm auth token on an .npmrc line (the npm rule reads those only in .npmrc files)', async () => {
    const token = [crypto.randomUUID()].join('');
    const found = await scan(`//registry.npmjs.org/:_authToken=${token}`);
    expect(found.map((f) => f.rule)).toEqual(['npm']);
    expect(found[0]!.text).toContain(token);
  });

  it('has a credential generator for every rule it runs (a rule added to the preset needs one)', () => {
    expect(Object.keys(GENERATORS).sort()).toEqual([...scanner.rules].sort());
  });

  // Five generated credentials per rule, random bodies in each service's own format (seeded: a failure
  // names its seed).
  const SEEDS = [1, 2, 3, 4, 5];
  it.each(Object.keys(GENERATORS).flatMap((rule) => SEEDS.map((seed) => [rule, seed] as const)))(
    'finds a generated %s credential (seed %i) and covers all of it',
    async (rule, seed) => {
      const [credential] = generate(rule, seed);
      const found = await scan(credential!.text);
      const own = found.filter((f) => f.rule === rule);
      expect(own.length, `${rule} finds ${JSON.stringify(credential!.text.slice(0, 40))}…`).toBeGreaterThan(
        0,
      );
      expect(own.some((f) => f.text.includes(credential!.secret))).toBe(true);
    },
  );

  it.each([
    ['alone', (id: string) => id],
    ['as a config value', (id: string) => `AWS_ACCESS_KEY_ID=${id}`],
    ['in JSON', (id: string) => JSON.stringify({ accessKeyId: id })],
  ])('finds an AWS access key id %s (AKIA and ASIA)', async (_, place) => {
    for (const seed of [11, 12, 13, 14]) {
      const id = /(?:AKIA|ASIA)[A-Z2-7]{16}/.exec(generate('aws', seed)[0]!.text)![0];
      const found = await scan(place(id));
      expect(found.map((f) => f.rule)).toEqual(['aws']);
      expect(found[0]!.text).toContain(id);
    }
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
