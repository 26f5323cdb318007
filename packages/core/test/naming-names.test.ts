import { describe, expect, it } from 'vitest';
import { nameFilter } from '../src/naming/curation.js';
import { EXPOSED_NAME_PATTERN, exposeName, splitExposedName } from '../src/naming/names.js';

describe('exposeName', () => {
  it('prefixes with <server>__ and keeps valid names as they are', () => {
    expect(exposeName('gh', 'search_repos', true)).toBe('gh__search_repos');
    expect(exposeName('gh', 'Search-Repos_2', false)).toBe('Search-Repos_2');
  });

  it('replaces every character outside [A-Za-z0-9_-] (per code point) by _', () => {
    expect(exposeName('fs', 'read.file/v2 now', true)).toBe('fs__read_file_v2_now');
    expect(exposeName('fs', '😀x', true)).toBe('fs___x');
    expect(exposeName('fs', '', false)).toBe('_');
  });

  it('cuts names past 64 characters and appends a stable 8-character hash of the original', () => {
    const long = exposeName('server', 'a'.repeat(100), true);
    expect(long).toHaveLength(64);
    expect(long).toMatch(/^server__a+_[0-9a-f]{8}$/);
    expect(exposeName('server', 'a'.repeat(100), true)).toBe(long);
    expect(exposeName('server', `${'a'.repeat(100)}b`, true)).not.toBe(long);
    for (const name of [long, exposeName('x', 'é'.repeat(200), false)])
      expect(name).toMatch(EXPOSED_NAME_PATTERN);
  });

  it('splits <server>__<name> at the first separator', () => {
    expect(splitExposedName('gh__search__x')).toEqual({ server: 'gh', name: 'search__x' });
    expect(splitExposedName('plain')).toBeUndefined();
    expect(splitExposedName('__x')).toBeUndefined();
  });
});

describe('nameFilter', () => {
  it('exposes everything without curation', () => {
    expect(nameFilter(undefined)('anything')).toBe(true);
    expect(nameFilter({})('anything')).toBe(true);
  });

  it('allows only what matches allow, and never what matches deny', () => {
    const allowed = nameFilter({ allow: ['search_*', 'get_?'], deny: ['*_delete'] });
    expect(['search_code', 'get_x', 'search_delete', 'get_xy', 'list'].map(allowed)).toEqual([
      true,
      true,
      false,
      false,
      false,
    ]);
    expect(nameFilter({ deny: ['*'] })('x')).toBe(false);
    expect(nameFilter({ allow: [] })('x')).toBe(false);
  });

  it('treats every other character literally', () => {
    const allowed = nameFilter({ allow: ['a.b(c)+[d]'] });
    expect(allowed('a.b(c)+[d]')).toBe(true);
    expect(allowed('aXb(c)+[d]')).toBe(false);
  });

  it('takes names with dashes, slashes and unicode (server-everything names its tools get-sum, echo-…)', () => {
    const allowed = nameFilter({ allow: ['get-*', 'a/b', 'ünï-?'], deny: ['get-secret'] });
    expect(['get-sum', 'get-secret', 'a/b', 'ünï-x', 'get_sum'].map(allowed)).toEqual([
      true,
      false,
      true,
      true,
      false,
    ]);
  });
});
