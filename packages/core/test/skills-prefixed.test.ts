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
} from './support/skills.js';

const cleanup = new Cleanup();
afterEach(() => cleanup.run());

/** `a`: the conformance fixture's two skills; `b`: three more, all one per page, both prefixed. */
async function twoPrefixedUpstreams() {
  const a = await skillsUpstream(cleanup);
  const b = await skillsUpstream(
    cleanup,
    await catalogOf({
      'b-lint/SKILL.md': skillMd('b-lint', 'Lints things.'),
      'b-notes/SKILL.md': skillMd('b-notes', 'Takes notes.', 'Pick one from [templates](templates/).'),
      'b-notes/templates/meeting.md': '# Meeting\n',
      'b-zeta/SKILL.md': skillMd('b-zeta', 'The last one.'),
    }),
  );
  return startGateway(cleanup, [upstreamConfig('a', a), upstreamConfig('b', b)]);
}

// A prefixed upstream's skill URIs are exposed like every resource URI, <server>+skill://… (DESIGN §4):
// their skill paths (the skill name, relative references) stay the upstream's own.
describe('skills of prefixed upstreams', () => {
  it('merges both listings concurrently under <server>+skill://…, every entry still a valid skill entry', async () => {
    const gateway = await twoPrefixedUpstreams();
    const { pages } = await listSkills(gateway);
    // a has two pages, b three: as many round trips as the longest upstream.
    expect(pages.map((p) => (p.skills as unknown[]).length)).toEqual([2, 2, 1]);
    expect(skillUris(pages).sort()).toEqual([
      'a+skill://conformance-greeting/SKILL.md',
      'a+skill://conformance-summary/SKILL.md',
      'b+skill://b-lint/SKILL.md',
      'b+skill://b-notes/SKILL.md',
      'b+skill://b-zeta/SKILL.md',
    ]);
    for (const skill of pages.flatMap((p) => p.skills as Record<string, unknown>[])) {
      const uri = skill.uri as string;
      const root = uri.slice(0, -'/SKILL.md'.length);
      expect(root.split('/').at(-1), uri).toBe((skill.frontmatter as { name: string }).name);
      for (const file of skill.resources as { uri: string }[]) {
        expect(file.uri === uri || file.uri.startsWith(`${root}/`), file.uri).toBe(true);
      }
    }
  });

  it('reads every listed file through the gateway, verified against the entry by an SDK SkillsClient', async () => {
    const gateway = await twoPrefixedUpstreams();
    const skills = new SkillsClient(await connect(cleanup, gateway));
    const listing = await skills.list();
    expect(listing.invalid).toEqual([]);
    expect(listing.skills).toHaveLength(5);
    for (const skill of listing.skills) {
      for (const file of skill.resources as { uri: string }[]) {
        const read = await skills.read(skill, file.uri);
        expect(read, file.uri).toMatchObject({ uri: file.uri, verified: true });
      }
    }
    const notes = listing.skills.find((s) => s.frontmatter.name === 'b-notes')!;
    expect((await skills.read(notes, 'templates/meeting.md')).text).toBe('# Meeting\n');
  });

  it('routes skills/get and directory reads to the upstream the prefix names', async () => {
    const gateway = await twoPrefixedUpstreams();
    const got = await handle(gateway, 'skills/get', { uri: 'b+skill://b-notes/SKILL.md' });
    expect(got.skill).toMatchObject({
      uri: 'b+skill://b-notes/SKILL.md',
      resources: [{ uri: 'b+skill://b-notes/SKILL.md' }, { uri: 'b+skill://b-notes/templates/meeting.md' }],
    });
    // The same skill path under the other upstream is not served: -32602, naming that upstream.
    const missing = await handleError(gateway, 'skills/get', {
      uri: 'b+skill://conformance-summary/SKILL.md',
    });
    expect(missing).toMatchObject({ code: ErrorCode.InvalidParams, data: { upstream: 'b' } });

    expect(await readDirectory(gateway, 'b+skill://b-notes')).toEqual(
      expect.arrayContaining([
        expect.objectContaining({ uri: 'b+skill://b-notes/SKILL.md' }),
        expect.objectContaining({ uri: 'b+skill://b-notes/templates', mimeType: 'inode/directory' }),
      ]),
    );
    expect(await readDirectory(gateway, 'b+skill://b-notes/templates')).toEqual([
      expect.objectContaining({ uri: 'b+skill://b-notes/templates/meeting.md' }),
    ]);
    const notDirectory = await handleError(gateway, 'resources/directory/read', {
      uri: 'a+skill://conformance-greeting/SKILL.md',
    });
    expect(notDirectory).toMatchObject({ code: ErrorCode.InvalidParams, data: { upstream: 'a' } });
  });

  it('exposes skill:// resources as <server>+skill:// in lists, skills, templates and reads (one spelling)', async () => {
    const gateway = await twoPrefixedUpstreams();
    const client = await connect(cleanup, gateway);
    const resources: string[] = [];
    let cursor: string | undefined;
    do {
      const page = await client.listResources(cursor === undefined ? {} : { cursor });
      resources.push(...page.resources.map((r) => r.uri));
      cursor = page.nextCursor;
    } while (cursor);
    expect(resources).toContain('a+skill://conformance-greeting/SKILL.md');
    expect(resources.filter((uri) => uri.startsWith('skill:'))).toEqual([]);
    const { resourceTemplates } = await client.listResourceTemplates();
    expect(resourceTemplates.map((t) => t.uriTemplate)).toEqual(
      expect.arrayContaining(['a+skill://{+path}', 'b+skill://{+path}']),
    );

    const read = await client.readResource({ uri: 'a+skill://conformance-greeting/references/GUIDE.md' });
    expect(read.contents).toEqual([
      expect.objectContaining({ uri: 'a+skill://conformance-greeting/references/GUIDE.md' }),
    ]);
    // The upstream's own spelling names nothing through the gateway (one name per resource).
    await expect(
      client.readResource({ uri: 'skill://conformance-greeting/references/GUIDE.md' }),
    ).rejects.toThrow(/Resource not found: skill:/);
  });
});
