import { describe, expect, it } from 'vitest';
import type { ListPage } from '../src/listing/walk.js';
import { silentLogger } from '../src/logger.js';
import { SkillRoots, skillRootOf } from '../src/routing/skill-roots.js';
import { UnprefixedCatalog } from '../src/routing/unprefixed-catalog.js';

const SKILLS = { extensions: { 'io.modelcontextprotocol/skills': {} } };

describe('skillRootOf', () => {
  it('is the SKILL.md URI without /SKILL.md, for a skill in a named directory only', () => {
    expect(skillRootOf('skill://a/b/SKILL.md')).toBe('skill://a/b');
    expect(skillRootOf('skill://a/SKILL.md')).toBe('skill://a');
    for (const uri of ['skill://a/README.md', 'skill://a//SKILL.md', 'SKILL.md', '/SKILL.md']) {
      expect(skillRootOf(uri), uri).toBeUndefined();
    }
  });
});

describe('SkillRoots', () => {
  it('sends a skill, its files and sub-directories to the server listing it; the longest root wins', () => {
    const roots = new SkillRoots(['one', 'two'], silentLogger);
    roots.set('one', ['skill://acme/SKILL.md', 'skill://pdf/SKILL.md']);
    roots.set('two', ['skill://acme/nested/SKILL.md', 'skill://pdf/SKILL.md', 'skill://x/not-a-manifest']);
    expect(roots.ownerOf('skill://pdf/SKILL.md')).toBe('one'); // a collision: config order wins
    expect(roots.ownerOf('skill://pdf')).toBe('one');
    expect(roots.ownerOf('skill://acme/refs/a.md')).toBe('one');
    expect(roots.ownerOf('skill://acme/nested')).toBe('two');
    expect(roots.ownerOf('skill://acme/nested/deeper/file.md')).toBe('two');
    expect(roots.ownerOf('skill://acme-other/SKILL.md')).toBeUndefined();
    expect(roots.ownerOf('skill://x/not-a-manifest')).toBeUndefined();

    roots.forget('one');
    expect(roots.ownerOf('skill://pdf/SKILL.md')).toBe('two');
  });

  it('keeps learned skills beside (and after) listed ones until the server is forgotten', () => {
    const roots = new SkillRoots(['one', 'two'], silentLogger);
    roots.set('one', ['skill://a/SKILL.md']);
    roots.learn('two', 'skill://a/SKILL.md'); // listed by one: one keeps it
    roots.learn('two', 'skill://hidden/SKILL.md');
    expect(roots.ownerOf('skill://a/x.md')).toBe('one');
    expect(roots.ownerOf('skill://hidden/x.md')).toBe('two');
    roots.set('two', []); // a new listing does not drop what skills/get found
    expect(roots.ownerOf('skill://hidden/x.md')).toBe('two');
    roots.forget('two');
    expect(roots.ownerOf('skill://hidden/x.md')).toBeUndefined();
  });
});

describe('UnprefixedCatalog skills', () => {
  /** A server with one page of resources and two pages of skills; records its calls. */
  const upstream = () => {
    const calls: string[] = [];
    const list: ListPage = async (method, cursor) => {
      calls.push(`${method} ${cursor ?? '-'}`);
      if (method !== 'skills/list')
        return method === 'resources/list' ? { resources: [] } : { resourceTemplates: [] };
      return cursor === undefined
        ? { skills: [{ uri: 'skill://a/SKILL.md' }], nextCursor: 'p1' }
        : { skills: [{ uri: 'skill://b/SKILL.md' }] };
    };
    return { list, calls };
  };

  it('indexes every page of skills/list when the server declares the extension, and only then', async () => {
    const catalog = new UnprefixedCatalog(['one', 'two'], silentLogger);
    const one = upstream();
    await catalog.refresh('one', one.list, SKILLS);
    expect(one.calls).toContain('skills/list p1');
    expect(catalog.skills.ownerOf('skill://b/refs/x.md')).toBe('one');

    const two = upstream();
    await catalog.refresh('two', two.list, { resources: {} });
    expect(two.calls.filter((c) => c.startsWith('skills/'))).toEqual([]);

    catalog.forget('one');
    expect(catalog.skills.ownerOf('skill://b/refs/x.md')).toBeUndefined();
  });

  it('keeps the skills it knew when a refresh cannot list them', async () => {
    const catalog = new UnprefixedCatalog(['one'], silentLogger);
    await catalog.refresh('one', upstream().list, SKILLS);
    const failing: ListPage = async (method) => {
      if (method === 'skills/list') throw new Error('upstream went away');
      return method === 'resources/list' ? { resources: [] } : { resourceTemplates: [] };
    };
    await catalog.refresh('one', failing, SKILLS);
    expect(catalog.skills.ownerOf('skill://a/SKILL.md')).toBe('one');
  });
});
