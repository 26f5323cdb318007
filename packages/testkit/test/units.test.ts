import { describe, expect, it } from 'vitest';
import { ResourceCatalog } from '../src/catalog.js';
import { FailureQueue, parseFailure } from '../src/failures.js';
import { resolveOptions } from '../src/options.js';
import { decodeCursor, encodeCursor, pageWindow } from '../src/paging.js';

describe('options', () => {
  it('applies defaults', () => {
    const o = resolveOptions();
    expect(o).toEqual({
      name: 'testkit',
      resources: 10,
      uriBase: 'test://testkit/',
      pageSize: 0,
      blobEvery: 0,
      payloadBytes: 0,
      templates: 1,
      completions: ['alpha', 'beta', 'gamma'],
      subscribe: true,
      latencyMs: 0,
      progress: 0,
      fixture: 'none',
    });
    expect(resolveOptions({ name: 'docs' }).uriBase).toBe('test://docs/');
    expect(() => resolveOptions({ resources: -1 })).toThrow(RangeError);
  });
});

describe('paging', () => {
  it('round-trips cursors and rejects malformed ones with -32602', () => {
    expect(decodeCursor(encodeCursor(42))).toBe(42);
    for (const bad of ['', 'x', '!!!', Buffer.from('o-1').toString('base64url'), 7, `${encodeCursor(3)}=`]) {
      expect(() => decodeCursor(bad)).toThrow(expect.objectContaining({ code: -32602 }));
    }
  });

  it('computes windows', () => {
    expect(pageWindow(undefined, 5, 0)).toEqual({ start: 0, end: 5 });
    expect(pageWindow(undefined, 5, 2)).toEqual({ start: 0, end: 2, nextCursor: encodeCursor(2) });
    expect(pageWindow(encodeCursor(4), 5, 2)).toEqual({ start: 4, end: 5 });
    expect(pageWindow(encodeCursor(9), 5, 2)).toEqual({ start: 5, end: 5 });
  });
});

describe('catalog', () => {
  it('models static resources, blobs, padding, templates and overrides', () => {
    const c = new ResourceCatalog(
      resolveOptions({ name: 'x', resources: 4, blobEvery: 2, payloadBytes: 16, templates: 3 }),
    );
    expect(c.resourceAt(0)).toEqual({ uri: 'test://x/r/0', name: 'r0', mimeType: 'text/plain' });
    expect(c.resourceAt(1).mimeType).toBe('application/octet-stream');
    expect(c.read('test://x/r/0')).toEqual({
      uri: 'test://x/r/0',
      mimeType: 'text/plain',
      text: 'resource 0......',
    });
    expect(c.read('test://x/r/1')).toMatchObject({
      blob: Buffer.from('resource 1......').toString('base64'),
    });
    expect(c.read('test://x/r/4')).toBeUndefined();
    expect(c.read('test://x/r/01')).toBeUndefined();
    expect(c.templateAt(0).uriTemplate).toBe('test://x/items/{id}');
    expect(c.templateAt(2)).toEqual({ uriTemplate: 'test://x/t2/{id}', name: 't2', mimeType: 'text/plain' });
    expect(c.read('test://x/items/a%20b')).toMatchObject({ text: 'item a b' });
    expect(c.read('test://x/t2/7')).toMatchObject({ text: 'item 7' });
    expect(c.read('test://x/t3/7')).toBeUndefined();
    c.setText('test://x/r/2', 'custom');
    expect(c.read('test://x/r/2')).toMatchObject({ text: 'custom' });
    expect(c.complete('test://x/t1/{id}', 'g')).toEqual({ values: ['gamma'], total: 1, hasMore: false });
    expect(c.complete('test://other/{id}', '')).toEqual({ values: [], total: 0, hasMore: false });
  });
});

describe('failures', () => {
  it('consumes in order, honours times and uri', () => {
    const q = new FailureQueue();
    q.add({ method: 'resources/read', mode: 'error', uri: 'u1' });
    q.add({ method: 'resources/read', mode: 'hang', times: 2 });
    q.add({ method: 'ping', mode: 'error', times: -1 });
    expect(q.take('resources/read', 'u2')?.mode).toBe('hang');
    expect(q.take('resources/read', 'u1')?.mode).toBe('error');
    expect(q.take('resources/read', 'u1')?.mode).toBe('hang');
    expect(q.take('resources/read', 'u1')).toBeUndefined();
    for (let i = 0; i < 5; i++) expect(q.take('ping', undefined)?.mode).toBe('error');
    q.clear();
    expect(q.take('ping', undefined)).toBeUndefined();
  });

  it('validates untrusted input', () => {
    expect(() => parseFailure({ method: 'x', mode: 'explode' })).toThrow(TypeError);
    expect(() => parseFailure(null)).toThrow(TypeError);
    expect(parseFailure({ method: 'x', mode: 'error', code: -32000, times: 2 })).toEqual({
      method: 'x',
      mode: 'error',
      code: -32000,
      times: 2,
    });
  });
});
