import { describe, expect, it } from 'vitest';
import { type SearchableTool, ToolSearchIndex } from '../src/index.js';
import { boostActions, RERANK_DEPTH } from '../src/search/actions.js';

const scored = (...scores: number[]) => scores.map((score, id) => ({ id, score }));
const ids = (results: { id: unknown }[]) => results.map((result) => result.id);

describe('boostActions (the second stage of tool search)', () => {
  const actions = ['create', 'send', 'list', undefined];
  const actionOf = (id: number) => actions[id];

  it('lifts the hits whose action is a query term by 1 + boost, and re-sorts them', () => {
    const results = scored(10, 8, 5, 4);
    boostActions(results, new Map([['send', 1]]), actionOf, 0.4);
    expect(ids(results)).toEqual([1, 0, 2, 3]);
    expect(results[0]!.score).toBeCloseTo(11.2);
    expect(results[1]!.score).toBe(10);
  });

  it('counts an expansion as much as a word of the query, and leaves a too-weak hit where it is', () => {
    const results = scored(10, 6, 5);
    boostActions(results, new Map([['send', 0.5]]), actionOf, 0.4);
    expect(ids(results)).toEqual([0, 1, 2]);
  });

  it('leaves the order alone when no action is asked for, and ranks only the first RERANK_DEPTH hits', () => {
    const results = scored(10, 8, 5, 4);
    boostActions(results, new Map([['delete', 1]]), actionOf, 0.4);
    expect(ids(results)).toEqual([0, 1, 2, 3]);

    const many = scored(...Array.from({ length: RERANK_DEPTH + 2 }, (_, i) => 100 - i));
    const sendAt = (id: number) => (id === RERANK_DEPTH + 1 ? 'send' : undefined);
    boostActions(many, new Map([['send', 1]]), sendAt, 10);
    expect(many.at(-1)!.id).toBe(RERANK_DEPTH + 1);
  });
});

describe('ToolSearchIndex: actions', () => {
  const tool = (name: string, description: string): SearchableTool => ({
    name,
    server: name.split('__')[0]!,
    description,
  });
  const catalog = [
    tool('campaigns__create_campaign', 'Create a campaign: a newsletter for an audience.'),
    tool('campaigns__send_campaign', 'Send a campaign to its audience.'),
    tool('campaigns__list_campaigns', 'List the campaigns of an audience.'),
    tool('campaigns__delete_campaign', 'Delete a campaign.'),
    tool('mail__send_email', 'Send an email message to people.'),
    tool('mail__list_emails', 'List the emails of a mailbox.'),
  ];
  const rank = (index: ToolSearchIndex, query: string, name: string) =>
    index.search(query, { limit: 10 }).findIndex((hit) => hit.name === name);

  it('ranks a tool whose name starts with the asked-for action above one BM25 alone prefers', () => {
    // "email" is searched with its expansion `send`: the action of send_campaign, not of create_campaign.
    const query = 'email the April newsletter campaign';
    const bm25 = new ToolSearchIndex(catalog, { actionBoost: 0 });
    expect(rank(bm25, query, 'campaigns__create_campaign')).toBeLessThan(
      rank(bm25, query, 'campaigns__send_campaign'),
    );
    const index = new ToolSearchIndex(catalog);
    expect(rank(index, query, 'campaigns__send_campaign')).toBeLessThan(
      rank(index, query, 'campaigns__create_campaign'),
    );
  });

  it('leaves alone a query that asks for no action of the catalog', () => {
    const query = 'the April newsletter campaign';
    const hits = (options: { actionBoost?: number }) =>
      new ToolSearchIndex(catalog, options).search(query, { limit: 10 });
    expect(hits({})).toEqual(hits({ actionBoost: 0 }));
  });
});
