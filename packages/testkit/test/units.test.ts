import { describe, expect, it } from 'vitest';
import { ResourceCatalog } from '../src/catalog.js';
import { FailureQueue, parseFailure } from '../src/failures.js';
import { resolveOptions } from '../src/options.js';
import { decodeCursor, encodeCursor, pageWindow } from '../src/paging.js';
import { PromptCatalog } from '../src/prompt-catalog.js';
import { ToolCatalog } from '../src/tool-catalog.js';

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
      modernSubscribe: true,
      latencyMs: 0,
      progress: 0,
      fixture: 'none',
      tools: 0,
      toolNames: [],
      behaviorTools: false,
      prompts: 0,
    });
    expect(resolveOptions({ name: 'docs' }).uriBase).toBe('test://docs/');
    expect(() => resolveOptions({ resources: -1 })).toThrow(RangeError);
    expect(() => resolveOptions({ tools: 1.5 })).toThrow(RangeError);
  });

  it('refuses tool names that would collide', () => {
    expect(() => resolveOptions({ toolNames: ['a', 'a'] })).toThrow(/twice/);
    expect(() => resolveOptions({ toolNames: ['tool_3'] })).toThrow(/generated/);
    expect(() => resolveOptions({ toolNames: ['echo'], behaviorTools: true })).toThrow(/behaviour/);
    expect(resolveOptions({ toolNames: ['echo', 'tool_x', 'a.b'] }).toolNames).toEqual([
      'echo',
      'tool_x',
      'a.b',
    ]);
  });
});

describe('tool and prompt catalogs', () => {
  it('list generated, named and behaviour tools in order and find them by name', () => {
    const options = resolveOptions({ tools: 2, toolNames: ['n.1'], behaviorTools: true });
    const tools = new ToolCatalog(options);
    expect(tools.count).toBe(2 + 1 + 9);
    expect([0, 1, 2, 3, 11].map((i) => tools.at(i).name)).toEqual(['tool_0', 'tool_1', 'n.1', 'echo', 'log']);
    expect(tools.find('tool_1')?.behavior).toBe('echo');
    expect(tools.find('n.1')?.tool._meta).toBeUndefined();
    expect(tools.find('slow')?.behavior).toBe('slow');
    expect(tools.find('tool_2')).toBeUndefined();
    expect(tools.find('tool_01')).toBeUndefined();
    options.tools = 3;
    expect(tools.find('tool_2')?.tool._meta).toEqual({ 'testkit/index': 2 });
  });

  it('list generated then fixture prompts and answer prompts/get', () => {
    const options = resolveOptions({ prompts: 2, resources: 1, fixture: 'conformance' });
    const prompts = new PromptCatalog(options, new ResourceCatalog(options));
    expect(prompts.count).toBe(3);
    expect(prompts.at(2).name).toBe('test_prompt_with_arguments');
    expect(prompts.has('prompt_1')).toBe(true);
    expect(prompts.has('prompt_2')).toBe(false);
    expect(prompts.get('prompt_0', { topic: 't' })?.messages).toHaveLength(2);
    expect(prompts.get('test_prompt_with_arguments', undefined)?.messages).toHaveLength(1);
    expect(prompts.get('nope', undefined)).toBeUndefined();
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
    q.add({ method: 'tools/call', mode: 'error', name: 'b' });
    expect(q.take('tools/call', undefined, 'a')).toBeUndefined();
    expect(q.take('tools/call', undefined, 'b')?.mode).toBe('error');
  });

  it('validates untrusted input', () => {
    expect(() => parseFailure({ method: 'x', mode: 'explode' })).toThrow(TypeError);
    expect(() => parseFailure(null)).toThrow(TypeError);
    expect(() => parseFailure({ method: 'x', mode: 'error', name: 7 })).toThrow(TypeError);
    expect(parseFailure({ method: 'x', mode: 'error', code: -32000, times: 2 })).toEqual({
      method: 'x',
      mode: 'error',
      code: -32000,
      times: 2,
    });
  });
});
