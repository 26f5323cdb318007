import { normalizeUri } from '@switchyard/core';
import picomatch from 'picomatch';
import { describe, expect, it } from 'vitest';
import { compileUriGlob } from '../src/glob.js';

/** Matches a raw URI the way the plugin does: canonicalize it, then match. */
function matches(pattern: string, uri: string): boolean {
  const canonical = normalizeUri(uri);
  if (canonical === undefined) throw new Error(`not canonicalizable: ${uri}`);
  return compileUriGlob(pattern).matches(canonical);
}

describe('compileUriGlob: two wildcards', () => {
  it('* stays within one path segment', () => {
    expect(matches('docs+file:///public/*', 'docs+file:///public/a.md')).toBe(true);
    expect(matches('docs+file:///public/*', 'docs+file:///public/a/b.md')).toBe(false);
    expect(matches('docs+file:///*/readme', 'docs+file:///x/readme')).toBe(true);
    expect(matches('docs+file:///a*z', 'docs+file:///abcz')).toBe(true);
    expect(matches('docs+file:///a*z', 'docs+file:///ab/cz')).toBe(false);
  });

  it('** crosses segments, anywhere in the pattern', () => {
    expect(matches('docs+**', 'docs+file:///a/b/c.md')).toBe(true);
    expect(matches('docs+**', 'wiki+file:///a')).toBe(false);
    expect(matches('**secret**', 'docs+file:///a/secret/b')).toBe(true);
    expect(matches('**/secret/**', 'docs+file:///a/secret/b/c')).toBe(true);
    expect(matches('*+file:///private/**', 'wiki+file:///private/x/y')).toBe(true);
    expect(matches('docs+file:///a/**/z', 'docs+file:///a/b/c/z')).toBe(true);
  });

  it('a /** at a segment boundary also matches nothing', () => {
    expect(matches('docs+file:///private/**', 'docs+file:///private')).toBe(true);
    expect(matches('docs+file:///private/**', 'docs+file:///private/')).toBe(true);
    expect(matches('docs+file:///private/**', 'docs+file:///private-not')).toBe(false);
    expect(matches('docs+file:///a/**/z', 'docs+file:///a/z')).toBe(true);
    expect(matches('docs+file:///a/**/z', 'docs+file:///az')).toBe(false);
  });

  it('the README example: a dotfile at any depth on any server', () => {
    expect(matches('*+file:///**/.env', 'docs+file:///.env')).toBe(true);
    expect(matches('*+file:///**/.env', 'wiki+file:///a/b/.env')).toBe(true);
    expect(matches('*+file:///**/.env', 'wiki+file:///a/b/.envrc')).toBe(false);
  });

  it('matches dotfiles', () => {
    expect(matches('docs+file:///*', 'docs+file:///.env')).toBe(true);
    expect(matches('docs+file:///**', 'docs+file:///.git/config')).toBe(true);
  });

  it('is case-sensitive in the path, not in scheme or host', () => {
    expect(matches('docs+file:///Private/**', 'docs+file:///private/a')).toBe(false);
    expect(matches('DOCS+FILE:///private/**', 'docs+file:///private/a')).toBe(true);
    expect(matches('web+https://DOCS.example.com/**', 'web+https://docs.EXAMPLE.com/a')).toBe(true);
  });
});

describe('compileUriGlob: every other character is literal', () => {
  const literal = [
    ['?', 'docs+https://api/search?q=1', 'docs+https://api/searchXq=1'],
    ['+', 'docs+file:///a+b', 'docs+file:///aab'],
    [':', 'docs+file:///a:b', 'docs+file:///ab'],
    ['( )', 'docs+file:///f(x)', 'docs+file:///fx'],
    ['@( )', 'docs+file:///@(x)', 'docs+file:///x'],
    ['!( )', 'docs+file:///!(x)', 'docs+file:///y'],
    ['+( )', 'docs+file:///a+(b)', 'docs+file:///abb'],
    ['[ ]', 'docs+file:///[ab]', 'docs+file:///a'],
    ['{ , }', 'docs+file:///{a,b}', 'docs+file:///a'],
    ['$ ^ |', 'docs+file:///$a^|', 'docs+file:///a'],
  ] as const;
  for (const [what, uri, other] of literal) {
    it(`${what}`, () => {
      expect(matches(uri, uri)).toBe(true);
      expect(matches(uri, other)).toBe(false);
    });
  }

  it('a leading ! is not a negation', () => {
    expect(() => compileUriGlob('!docs+file:///a')).toThrow(/URI pattern/);
    expect(matches('docs+file:///!a', 'docs+file:///!a')).toBe(true);
    expect(matches('docs+file:///!a', 'docs+file:///b')).toBe(false);
  });
});

describe('compileUriGlob: patterns are canonicalized like URIs', () => {
  it('shows the canonical pattern it matches', () => {
    expect(compileUriGlob('DOCS+File:///public/../%70rivate//**').pattern).toBe('docs+file:///private/**');
  });

  it('an encoded spelling in the pattern matches the plain URI', () => {
    expect(matches('docs+file:///%70rivate/**', 'docs+file:///private/a')).toBe(true);
  });

  it('refuses what cannot be a URI pattern', () => {
    expect(() => compileUriGlob('private/**')).toThrow(/needs a scheme/);
    expect(() => compileUriGlob('docs+file:///100%')).toThrow(/percent-encoding/);
  });
});

describe('compileUriGlob: linear time', () => {
  it('answers a pathological pattern on a long URI without backtracking', () => {
    const glob = compileUriGlob(`docs+file:///${'*a'.repeat(20)}b`);
    expect(glob.matches(`docs+file:///${'a'.repeat(20_000)}`)).toBe(false);
    const deep = compileUriGlob(`docs+${'**a'.repeat(20)}b`);
    expect(deep.matches(`docs+${'a/'.repeat(10_000)}`)).toBe(false);
  });
});

describe('why not picomatch', () => {
  // Kept as executable documentation: picomatch is a file-path matcher, and these are the cases where its
  // path semantics would turn a natural URI deny rule into one that silently matches nothing.
  const options = { dot: true, noextglob: true, nobrace: true, nonegate: true, nobracket: true };
  it('its ** only spans segments when it is a whole segment, so docs+** misses deep URIs', () => {
    expect(picomatch('docs+**', options)('docs+file:///a/secret')).toBe(false);
    expect(picomatch('**secret**', options)('docs+file:///a/secret/b')).toBe(false);
    expect(matches('docs+**', 'docs+file:///a/secret')).toBe(true);
  });

  it('its ? is a single-character wildcard, not the URI query delimiter', () => {
    expect(picomatch('docs+https://api/a?b', options)('docs+https://api/axb')).toBe(true);
    expect(matches('docs+https://api/a?b', 'docs+https://api/axb')).toBe(false);
  });
});
