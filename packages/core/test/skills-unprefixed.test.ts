import { SkillsClient } from '@modelcontextprotocol/client/ext/skills';
import { afterEach, describe, expect, it } from 'vitest';
import { ErrorCode } from '../src/errors.js';
import { Cleanup, connect, startGateway, upstreamConfig } from './support/gateway.js';
import {
  catalogOf,
  handle,
  handleError,
  listSkills,
  readDirectory,
  skillMd,
  skillsUpstream,
  skillUris,
  unlistedSkills,
} from './support/skills.js';

const cleanup = new Cleanup();
afterEach(() => cleanup.run());

const GREETING = 'skill://conformance-greeting/SKILL.md';
const OTHER = 'skill://other-tool/SKILL.md';

/**
 * `one`: the conformance fixture's skills; `two`: a skill of its own plus one at one's greeting URI. Both
 * unprefixed, and both serve every skill:// URI through the same `skill://{+path}` template.
 */
async function twoUnprefixedUpstreams(extra: Awaited<ReturnType<typeof upstreamConfig>>[] = []) {
  const one = await skillsUpstream(cleanup);
  const two = await skillsUpstream(
    cleanup,
    await catalogOf({
      'conformance-greeting/SKILL.md': skillMd('conformance-greeting', 'The other greeting.'),
      'other-tool/SKILL.md': skillMd('other-tool', 'Uses the other tool.'),
      'other-tool/docs/README.md': '# Read me\n',
    }),
  );
  return startGateway(cleanup, [
    upstreamConfig('one', one, { prefix: false }),
    upstreamConfig('two', two, { prefix: false }),
    ...extra,
  ]);
}

// Several "prefix": false upstreams serving skill:// URIs: the gateway indexes each one's skill roots from
// its skills/list, so a skill's files, directories and entry reach the upstream that lists the skill.
describe('skills of several unprefixed upstreams', () => {
  it('lists each skill URI once (config order wins a collision) and routes each skill to its own upstream', async () => {
    const gateway = await twoUnprefixedUpstreams();
    expect(skillUris((await listSkills(gateway)).pages).sort()).toEqual([
      GREETING,
      'skill://conformance-summary/SKILL.md',
      OTHER,
    ]);
    const greeting = await handle(gateway, 'skills/get', { uri: GREETING });
    expect(greeting.skill).toMatchObject({ frontmatter: { description: expect.stringMatching(/^Greets/) } });

    // Both upstreams' `skill://{+path}` templates match; the index sends two's skill to two.
    const other = await handle(gateway, 'skills/get', { uri: OTHER });
    expect(other.skill).toMatchObject({ uri: OTHER, frontmatter: { name: 'other-tool' } });
    expect(await readDirectory(gateway, 'skill://other-tool/docs')).toEqual([
      expect.objectContaining({ uri: 'skill://other-tool/docs/README.md' }),
    ]);
    const read = await handle(gateway, 'resources/read', { uri: 'skill://other-tool/docs/README.md' });
    expect(read.contents).toEqual([expect.objectContaining({ text: '# Read me\n' })]);
  });

  it('verifies every listed skill read through the gateway with an SDK SkillsClient', async () => {
    const gateway = await twoUnprefixedUpstreams();
    const skills = new SkillsClient(await connect(cleanup, gateway));
    const listing = await skills.list();
    expect(listing.invalid).toEqual([]);
    for (const skill of listing.skills) {
      for (const file of skill.resources as { uri: string }[]) {
        expect(await skills.read(skill, file.uri), file.uri).toMatchObject({ verified: true });
      }
    }
  });

  it('finds a skill no upstream lists by asking each in turn, then routes its files to that upstream', async () => {
    const hidden = await skillsUpstream(
      cleanup,
      await unlistedSkills({ 'SKILL.md': skillMd('hidden-skill', 'Not in any listing.') }, 'hidden-skill'),
    );
    const gateway = await twoUnprefixedUpstreams([upstreamConfig('three', hidden, { prefix: false })]);
    const uri = 'skill://hidden-skill/SKILL.md';
    // Unknown to the index, the URI matches one's template first: one has no such file.
    expect((await handleError(gateway, 'resources/read', { uri })).code).toBe(ErrorCode.InvalidParams);

    const got = await handle(gateway, 'skills/get', { uri });
    expect(got.skill).toMatchObject({ uri, frontmatter: { name: 'hidden-skill' } });
    const read = await handle(gateway, 'resources/read', { uri });
    expect(read.contents).toEqual([
      expect.objectContaining({ uri, text: expect.stringContaining('hidden-skill') }),
    ]);

    const nowhere = await handleError(gateway, 'skills/get', { uri: 'skill://nowhere/SKILL.md' });
    expect(nowhere).toMatchObject({
      code: ErrorCode.InvalidParams,
      data: { uri: 'skill://nowhere/SKILL.md' },
    });
  });
});
