import { describe, expect, it } from 'vitest';
import { expansions } from '../src/search/synonyms.js';
import { indexTerm, stem } from '../src/search/terms.js';
import { typeValues } from '../src/search/values.js';
import { words } from '../src/search/words.js';

describe('words', () => {
  it('splits snake_case, kebab-case, camelCase, acronyms and digits', () => {
    expect(words('create_pull_request')).toEqual(['create', 'pull', 'request']);
    expect(words('get-tiny-image')).toEqual(['get', 'tiny', 'image']);
    expect(words('getFileInfo')).toEqual(['get', 'file', 'info']);
    expect(words('HTTPServerError')).toEqual(['http', 'server', 'error']);
    expect(words('list_ec2_instances')).toEqual(['list', 'ec', '2', 'instances']);
    expect(words('github__createIssue')).toEqual(['github', 'create', 'issue']);
  });

  it('splits prose on punctuation and drops contractions', () => {
    expect(words("What's in notes.txt? I'm sure it isn't big.")).toEqual([
      'what',
      'in',
      'notes',
      'txt',
      'i',
      'sure',
      'it',
      'is',
      'big',
    ]);
  });

  it('folds accents and case, keeps letters of every script', () => {
    expect(words('Café RÉSUMÉ')).toEqual(['cafe', 'resume']);
    expect(words('ファイル を 読む')).toEqual(['ファイル', 'を', '読む']);
    expect(words('Привет_мир')).toEqual(['привет', 'мир']);
  });

  it('finds no words in punctuation, emoji or the empty string', () => {
    expect(words('')).toEqual([]);
    expect(words('--- __ ... 🚀🔥')).toEqual([]);
  });
});

describe('terms', () => {
  it('folds plural endings and leaves singular look-alikes alone', () => {
    expect(stem('issues')).toBe('issue');
    expect(stem('entities')).toBe('entity');
    expect(stem('branches')).toBe('branch');
    expect(stem('boxes')).toBe('box');
    expect(stem('releases')).toBe('release');
    expect(stem('statuses')).toBe('status');
    expect(stem('caches')).toBe('cache');
    for (const word of ['status', 'class', 'analysis', 'bus', 'get']) expect(stem(word)).toBe(word);
  });

  it('drops stop words and lone letters, keeps digits', () => {
    expect(indexTerm('the', true)).toBeUndefined();
    expect(indexTerm('b', true)).toBeUndefined();
    expect(indexTerm('2', true)).toBe('2');
    expect(indexTerm('files', false)).toBe('files');
  });
});

describe('query understanding', () => {
  it('expands task words and phrases to tool vocabulary, phrases before words', () => {
    expect(expansions(['spin', 'up', 'a', 'vm'])).toEqual([
      'create',
      'launch',
      'start',
      'virtual',
      'machine',
      'instance',
    ]);
    expect(expansions(['catch', 'me', 'up'])).toContain('summarize');
    expect(expansions(['__proto__', 'constructor', 'toString'])).toEqual([]);
  });

  it('reads argument values as their kind', () => {
    const typed = (query: string) => typeValues(query).replace(/\s+/g, ' ').trim();
    expect(typed('point www.example.com to 203.0.113.7')).toBe('point domain to ip address');
    expect(typed('share it with jane@acme.com')).toBe('share it with user');
    expect(typed('move WEB-12 to done')).toBe('move issue to done');
    expect(typed('open notes.txt and logo.png')).toBe('open notes file and logo image file');
    expect(typed('post in #releases for @sam')).toBe('post in channel for user');
    // A bare number is kept (found from outside: `tool 3` and `tool_3` lost the 3 the index keeps).
    expect(typed('add up 17 and 25')).toBe('add up 17 and 25');
    expect(typed('call alpha__tool_3, tool-3 or 3')).toBe('call alpha__tool_3, tool-3 or 3');
    expect(typed('list ec2 and s3')).toBe('list ec2 and s3');
  });
});
