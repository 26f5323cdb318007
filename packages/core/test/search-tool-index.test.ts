import { describe, expect, it } from 'vitest';
import { type SearchableTool, ToolSearchIndex } from '../src/index.js';
import { searchDocument } from '../src/search/documents.js';

const tool = (
  server: string,
  name: string,
  description: string,
  extra: Partial<SearchableTool> = {},
): SearchableTool => ({
  name: `${server}__${name}`,
  server,
  description,
  ...extra,
});

const CATALOG: SearchableTool[] = [
  tool('tracker', 'create_issue', 'Create a new issue (a bug, task or story) in a project.', {
    title: 'Create Issue',
    inputSchema: {
      type: 'object',
      properties: {
        summary: { type: 'string', description: 'One-line summary' },
        projectKey: { type: 'string' },
      },
    },
  }),
  tool('tracker', 'list_issues', 'List issues in a project, newest first.'),
  tool('tracker', 'transition_issue', 'Move an issue to another status, such as In Progress or Done.'),
  tool('codehost', 'create_pull_request', 'Propose merging commits from one branch into another.'),
  tool('codehost', 'merge_pull_request', 'Merge a pull request into its base branch.'),
  tool('chat', 'send_direct_message', 'Message one person privately.'),
  tool('chat', 'post_message', 'Send a message to a channel or a thread.'),
  tool('cloud', 'create_instance', 'Create a virtual machine in a region.'),
  tool('cloud', 'stop_instance', 'Shut down a virtual machine; its disks are kept.'),
  tool('filesystem', 'read_text_file', 'Read the complete contents of a file as text.'),
];

const names = (hits: { name: string }[]) => hits.map((hit) => hit.name);

describe('ToolSearchIndex', () => {
  const index = new ToolSearchIndex(CATALOG);

  it('ranks the tool a task phrasing asks for first', () => {
    expect(index.size).toBe(CATALOG.length);
    const first = (query: string) => index.search(query, { limit: 1 })[0]?.name;
    expect(first('open a bug about the login page crashing')).toBe('tracker__create_issue');
    expect(first('merge PR 42')).toBe('codehost__merge_pull_request');
    expect(first('DM Sarah that I am late')).toBe('chat__send_direct_message');
    expect(first('spin up a vm in eu-west-1')).toBe('cloud__create_instance');
    expect(first('shut down the vm')).toBe('cloud__stop_instance');
    expect(first("show me what's inside notes.txt")).toBe('filesystem__read_text_file');
    expect(first('move WEB-12 to done')).toBe('tracker__transition_issue');
  });

  it('returns hits best first, each once, with decreasing scores', () => {
    const hits = index.search('create issue pull request message', { limit: 10 });
    expect(new Set(names(hits)).size).toBe(hits.length);
    for (let i = 1; i < hits.length; i++) expect(hits[i]!.score).toBeLessThanOrEqual(hits[i - 1]!.score);
  });

  it('matches the server name, split parameter names and their descriptions', () => {
    expect(names(index.search('codehost', { limit: 5 })).sort()).toEqual([
      'codehost__create_pull_request',
      'codehost__merge_pull_request',
    ]);
    expect(searchDocument(CATALOG[0]!)).toMatchObject({
      name: 'create issue',
      server: 'tracker',
      title: 'create issue',
      params: 'summary project key',
      paramDescriptions: 'one line summary',
    });
  });

  it('filters by visible() before the limit, and never returns a tool the caller may not see', () => {
    const all = names(index.search('issue', { limit: 10 }));
    expect(all.length).toBeGreaterThanOrEqual(3);
    const hidden = new Set(all.slice(0, 2));
    const seen: string[] = [];
    const hits = index.search('issue', {
      limit: 1,
      visible: (name) => {
        seen.push(name);
        return !hidden.has(name);
      },
    });
    expect(names(hits)).toEqual([all[2]]);
    expect(names(index.search('issue', { limit: 10, visible: (name) => !hidden.has(name) }))).toEqual(
      all.slice(2),
    );
    expect(index.search('issue', { limit: 5, visible: () => false })).toEqual([]);
    expect(seen.every((name) => CATALOG.some((t) => t.name === name))).toBe(true);
  });

  it('answers nothing for an empty catalog, an empty query, a query of stop words, or limit 0', () => {
    expect(new ToolSearchIndex([]).search('create an issue', { limit: 5 })).toEqual([]);
    expect(new ToolSearchIndex([]).size).toBe(0);
    expect(index.search('', { limit: 5 })).toEqual([]);
    expect(index.search('   !!! ', { limit: 5 })).toEqual([]);
    expect(index.search('the of and to', { limit: 5 })).toEqual([]);
    expect(index.search('create issue', { limit: 0 })).toEqual([]);
    expect(index.search('create issue', { limit: Number.NaN })).toEqual([]);
    expect(index.search('create issue', { limit: 2.7 })).toHaveLength(2);
  });

  it('keeps the first of two tools with one name', () => {
    const twice = new ToolSearchIndex([tool('a', 'x', 'first'), tool('a', 'x', 'second')]);
    expect(twice.size).toBe(1);
    expect(names(twice.search('first', { limit: 5 }))).toEqual(['a__x']);
    expect(twice.search('second', { limit: 5 })).toEqual([]);
  });

  it('finds a tool by a number in its name, split in the query as in the index', () => {
    // Found from outside: the query lost the `3` of `tool_3` (read as an argument), the index kept it.
    const numbered = new ToolSearchIndex(
      [0, 1, 2, 3, 4].map((n) => tool('alpha', `tool_${n}`, `Test tool number ${n}.`)),
    );
    for (const query of ['alpha__tool_3', 'tool_3', 'tool-3', 'tool 3', 'toolThree 3', '3'])
      expect(names(numbered.search(query, { limit: 3 }))[0], query).toBe('alpha__tool_3');
    expect(names(numbered.search('3', { limit: 3 }))).toEqual(['alpha__tool_3']);
    expect(names(index.search('merge PR 42', { limit: 1 }))).toEqual(['codehost__merge_pull_request']);
  });

  it('finds the tool of an exact exposed name first, and only when the caller may see it', () => {
    const close = new ToolSearchIndex([
      tool('gh', 'create_issue_comment', 'Create a comment on an issue: create issue comments on issues.'),
      tool('gh', 'create_issue', 'Open a ticket.'),
      tool('x', 'do_it', 'Runs.'),
    ]);
    // Ranked by words alone, the comment tool (more of them) comes first.
    expect(names(close.search('gh create issue', { limit: 2 }))).toEqual([
      'gh__create_issue_comment',
      'gh__create_issue',
    ]);
    const hits = close.search(' gh__create_issue ', { limit: 2 });
    expect(names(hits)).toEqual(['gh__create_issue', 'gh__create_issue_comment']);
    expect(hits[0]!.score).toBeGreaterThanOrEqual(hits[1]!.score);
    expect(names(close.search('gh__create_issue', { limit: 1 }))).toEqual(['gh__create_issue']);
    expect(
      names(close.search('gh__create_issue', { limit: 5, visible: (name) => name !== 'gh__create_issue' })),
    ).not.toContain('gh__create_issue');
    // A name of stop words and lone letters only has no terms, and is still found by name.
    expect(names(close.search('x__do_it', { limit: 5 }))).toEqual(['x__do_it']);
    expect(close.search('do_it', { limit: 5 })).toEqual([]);
    expect(close.search('gh__create_issue', { limit: 0 })).toEqual([]);
  });

  it('takes __proto__, constructor and other Object.prototype names as ordinary names and queries', () => {
    const odd = new ToolSearchIndex([
      { name: '__proto__', server: 'x', description: 'prototype tool' },
      { name: 'constructor', server: 'x', description: 'builds things' },
      { name: 'x__toString', server: 'x', description: 'hasOwnProperty valueOf' },
      {
        name: 'x__weird',
        server: 'x',
        inputSchema: {
          type: 'object',
          properties: JSON.parse('{"__proto__": {"description": "proto param"}}'),
        },
      },
    ]);
    expect(odd.size).toBe(4);
    expect(names(odd.search('__proto__', { limit: 5 }))).toContain('__proto__');
    expect(names(odd.search('constructor', { limit: 5 }))).toEqual(['constructor']);
    expect(names(odd.search('toString hasOwnProperty', { limit: 5 }))).toEqual(['x__toString']);
    expect(names(odd.search('proto param', { limit: 5 }))).toContain('x__weird');
    expect(index.search('__proto__ constructor prototype', { limit: 5 })).toEqual([]);
  });

  it('indexes and finds text in any script, and survives emoji and control characters', () => {
    const intl = new ToolSearchIndex([
      { name: 'docs__lire_fichier', server: 'docs', description: 'Lire le contenu d’un fichier de résumé' },
      { name: 'docs__yomu', server: 'docs', title: 'ファイルを読む', description: 'ファイル を 読む' },
    ]);
    expect(names(intl.search('resume fichier', { limit: 1 }))).toEqual(['docs__lire_fichier']);
    expect(names(intl.search('ファイル', { limit: 1 }))).toEqual(['docs__yomu']);
    expect(index.search('🚀 \u0000 \u202e create issue 🔥', { limit: 1 })[0]?.name).toBe(
      'tracker__create_issue',
    );
  });

  it('answers a 1,000-character query, looking up a bounded number of terms', () => {
    const long = `create an issue ${'about the very long and winding road of words '.repeat(25)}`.slice(
      0,
      1000,
    );
    expect(long).toHaveLength(1000);
    expect(index.terms(long).size).toBeLessThanOrEqual(32);
    expect(index.search(long, { limit: 3 })[0]?.name).toBe('tracker__create_issue');
    const distinct = Array.from({ length: 200 }, (_, i) => `word${i}x`).join(' ');
    expect(index.terms(distinct).size).toBe(32);
  });

  it('holds no state between searches', () => {
    const first = index.search('send a message', { limit: 3 });
    index.search('something else entirely', { limit: 3, visible: () => false });
    expect(index.search('send a message', { limit: 3 })).toEqual(first);
  });

  it('ignores schemas that are not objects, and reads nested properties and array items', () => {
    const nested = new ToolSearchIndex([
      { name: 'a__bad', server: 'a', inputSchema: 'nonsense' as unknown },
      {
        name: 'a__nested',
        server: 'a',
        inputSchema: {
          type: 'object',
          properties: {
            entities: {
              type: 'array',
              items: { type: 'object', properties: { entityType: { description: 'Kind of node' } } },
            },
          },
        },
      },
    ]);
    expect(names(nested.search('entity type', { limit: 5 }))).toEqual(['a__nested']);
  });
});
