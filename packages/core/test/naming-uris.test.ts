import { describe, expect, it } from 'vitest';
import { expandUriTemplate, exposeUri, SERVER_NAME_PATTERN, splitExposedUri } from '../src/naming/uris.js';

describe('exposeUri', () => {
  it('prefixes with server+ only when asked', () => {
    expect(exposeUri('docs', 'file:///a.txt', true)).toBe('docs+file:///a.txt');
    expect(exposeUri('docs', 'file:///a.txt', false)).toBe('file:///a.txt');
  });
});

describe('splitExposedUri', () => {
  it('splits at the first +', () => {
    expect(splitExposedUri('docs+file:///a.txt')).toEqual({ server: 'docs', uri: 'file:///a.txt' });
    expect(splitExposedUri('git+git+ssh://host/repo')).toEqual({ server: 'git', uri: 'git+ssh://host/repo' });
    expect(splitExposedUri('a-1+x+y')).toEqual({ server: 'a-1', uri: 'x+y' });
  });

  it('returns undefined when there is no valid server prefix', () => {
    for (const uri of [
      'file:///a.txt',
      '+file:///a',
      'Docs+file:///a',
      '1docs+x',
      'my_docs+x',
      'a b+x',
      'x:y+z',
    ]) {
      expect(splitExposedUri(uri), uri).toBeUndefined();
    }
  });

  it('reverses exposeUri for every valid server name', () => {
    const servers = ['a', 'docs', 'git-hub', 'x1'];
    const uris = ['file:///a', 'test://x/r/0', 'a+b', 'weird+uri+with+plus', ''];
    for (const server of servers) {
      expect(SERVER_NAME_PATTERN.test(server)).toBe(true);
      for (const uri of uris) expect(splitExposedUri(exposeUri(server, uri, true))).toEqual({ server, uri });
    }
  });

  it('never accepts a server name containing +', () => {
    expect(SERVER_NAME_PATTERN.test('a+b')).toBe(false);
    expect(SERVER_NAME_PATTERN.test('')).toBe(false);
    expect(SERVER_NAME_PATTERN.test('-a')).toBe(false);
  });
});

describe('expandUriTemplate', () => {
  it('expands a variable named like an Object.prototype member only from what is given', () => {
    expect(expandUriTemplate('docs+test://x/{constructor}/{toString}', {})).toBe('docs+test://x//');
    expect(expandUriTemplate('docs+test://x/{constructor}', { constructor: 'c' } as never)).toBe(
      'docs+test://x/c',
    );
    expect(expandUriTemplate('docs+test://x/{__proto__}', JSON.parse('{"__proto__":"p"}'))).toBe(
      'docs+test://x/p',
    );
  });
});
