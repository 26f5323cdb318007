import { SkillsClient } from '@modelcontextprotocol/client/ext/skills';
import { afterEach, describe, expect, it } from 'vitest';
import { ErrorCode } from '../src/errors.js';
import { Cleanup, connect, httpUpstream, startGateway, upstreamConfig } from './support/gateway.js';
import {
  handle,
  handleError,
  listSkills,
  readDirectory,
  skillsUpstream,
  skillUris,
} from './support/skills.js';

const cleanup = new Cleanup();
afterEach(() => cleanup.run());

const GREETING = 'skill://conformance-greeting/SKILL.md';
const SUMMARY = 'skill://conformance-summary/SKILL.md';
const GUIDE = 'skill://conformance-greeting/references/GUIDE.md';

// The conformance fixture's skills (SEP-2640) through a gateway fronting it with "prefix": false, as the
// conformance run does: URIs unchanged, the extension declared, every method routed.
describe('skills through the gateway, unprefixed', () => {
  it('declares the extension (with directoryRead) and merges skills/list page by page', async () => {
    const url = await skillsUpstream(cleanup);
    const gateway = await startGateway(cleanup, [upstreamConfig('fixture', url, { prefix: false })]);
    expect(gateway.capabilities().extensions).toEqual({
      'io.modelcontextprotocol/skills': { directoryRead: true },
    });
    expect(gateway.methods).toEqual(
      expect.arrayContaining(['skills/list', 'skills/get', 'resources/directory/read']),
    );

    const { pages } = await listSkills(gateway);
    expect(pages).toHaveLength(2); // the fixture serves one skill per page
    expect(skillUris(pages)).toEqual([GREETING, SUMMARY]);
    for (const page of pages) expect(page).toMatchObject({ ttlMs: 0, cacheScope: 'private' }); // the fixture's hints
    const greeting = (pages[0]!.skills as Record<string, unknown>[])[0];
    expect(greeting).toMatchObject({
      uri: GREETING,
      frontmatter: { name: 'conformance-greeting' },
      resources: [
        { uri: GREETING, digest: expect.stringMatching(/^sha256:/), size: expect.any(Number) },
        { uri: GUIDE, digest: expect.stringMatching(/^sha256:/), size: expect.any(Number) },
      ],
    });
  });

  it('routes skills/get and resources/directory/read, and answers -32602 for what no upstream serves', async () => {
    const url = await skillsUpstream(cleanup);
    const gateway = await startGateway(cleanup, [upstreamConfig('fixture', url, { prefix: false })]);

    const got = await handle(gateway, 'skills/get', { uri: SUMMARY });
    expect(got).toMatchObject({ skill: { uri: SUMMARY }, ttlMs: 0, cacheScope: 'private' });
    expect(got.nextCursor).toBeUndefined();
    const unknown = await handleError(gateway, 'skills/get', { uri: 'skill://nobody-serves-this/SKILL.md' });
    expect(unknown.code).toBe(ErrorCode.InvalidParams);
    expect(unknown.message).toContain('No skill is served at skill://nobody-serves-this/SKILL.md');

    // One child per page (the fixture's page size): the upstream's own cursor comes back as is.
    const first = await handle(gateway, 'resources/directory/read', { uri: 'skill://conformance-greeting' });
    expect(first.resources).toHaveLength(1);
    expect(first.nextCursor).toEqual(expect.any(String));
    expect(await readDirectory(gateway, 'skill://conformance-greeting')).toEqual(
      expect.arrayContaining([
        expect.objectContaining({ uri: GREETING }),
        expect.objectContaining({
          uri: 'skill://conformance-greeting/references',
          mimeType: 'inode/directory',
        }),
      ]),
    );
    expect(await readDirectory(gateway, 'skill://conformance-greeting/references')).toEqual([
      expect.objectContaining({ uri: GUIDE }),
    ]);
    const notDirectory = await handleError(gateway, 'resources/directory/read', { uri: GREETING });
    expect(notDirectory.code).toBe(ErrorCode.InvalidParams);
  });

  it('lets an SDK SkillsClient list, get and read every file verified against its digest', async () => {
    const url = await skillsUpstream(cleanup);
    const gateway = await startGateway(cleanup, [upstreamConfig('fixture', url, { prefix: false })]);
    const skills = new SkillsClient(await connect(cleanup, gateway));
    expect(skills.supported).toBe(true);
    expect(skills.directoryRead).toBe(true);

    const listing = await skills.list();
    expect(listing.invalid).toEqual([]);
    const greeting = listing.skills.find((s) => s.uri === GREETING)!;
    const manifest = await skills.read(greeting);
    expect(manifest).toMatchObject({ verified: true, frontmatter: { name: 'conformance-greeting' } });
    expect(await skills.read(greeting, 'references/GUIDE.md')).toMatchObject({ uri: GUIDE, verified: true });
    expect((await skills.get(SUMMARY)).skill.uri).toBe(SUMMARY);
  });

  it('declares nothing and answers -32601 when no upstream serves skills', async () => {
    const plain = await httpUpstream(cleanup, { name: 'plain', resources: 1 });
    const gateway = await startGateway(cleanup, [upstreamConfig('plain', plain.url)]);
    expect(gateway.capabilities().extensions).toBeUndefined();
    for (const [method, params] of [
      ['skills/list', {}],
      ['skills/get', { uri: GREETING }],
      ['resources/directory/read', { uri: 'skill://conformance-greeting' }],
    ] as const) {
      expect((await handleError(gateway, method, params)).code, method).toBe(ErrorCode.MethodNotFound);
    }
  });
});
