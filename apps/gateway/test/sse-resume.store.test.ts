import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { SessionEventStore } from '../src/listeners/event-store.js';

// The per-session store behind resumable legacy Streamable HTTP streams: ids that name their stream,
// replay of exactly one stream after an id, the count and byte bounds, and the grace period.

const ids = (events: { id: string }[]) => events.map((e) => e.id);
const data = (events: { data: string }[]) => events.map((e) => e.data);

describe('SessionEventStore', () => {
  beforeEach(() => {
    vi.useFakeTimers();
  });
  afterEach(() => {
    vi.useRealTimers();
  });

  it('issues ids unique across the session that name their stream, and replays only that stream', () => {
    const store = new SessionEventStore<string>();
    const post = store.open('post', 'call');
    const get = store.open('get', 'standalone');
    const primed = store.mark(post);
    const a = store.append(post, 'a');
    const x = store.append(get, 'x');
    const b = store.append(post, 'b');
    expect([primed, a, x, b]).toEqual(['p1-1', 'p1-2', 'g2-3', 'p1-4']);
    expect(store.replay(primed)).toMatchObject({ log: { key: 'p1', owner: 'call' } });
    expect(data(store.replay(primed)!.events)).toEqual(['a', 'b']);
    expect(ids(store.replay(a)!.events)).toEqual([b]);
    expect(store.replay(b)!.events).toEqual([]);
    expect(store.replay(x)).toMatchObject({ log: { key: 'g2', kind: 'get' }, events: [] });
    expect(store.size()).toEqual({ streams: 2, events: 3, bytes: 3 });
  });

  it('refuses ids it cannot resume: malformed, unknown stream, from the future, or from before the stream', () => {
    const store = new SessionEventStore();
    const first = store.open('post', undefined);
    const early = store.append(first, 'a');
    const second = store.open('post', undefined);
    store.append(second, 'b');
    for (const id of [
      '',
      'nope',
      'p1',
      'p1-',
      '-1',
      'p1-x',
      'p9-1',
      'p1-99',
      'p2-1',
      `p2-${early.split('-')[1]}x`,
    ])
      expect(store.replay(id), id).toBeUndefined();
    expect(store.replay(early)?.log).toBe(first);
  });

  it('bounds the events it keeps by count, oldest first, and refuses a replay that would skip one', () => {
    const store = new SessionEventStore({ maxEvents: 3 });
    const log = store.open('post', undefined);
    const sent = Array.from({ length: 10 }, (_, i) => store.append(log, `e${i}`));
    expect(store.size().events).toBe(3);
    expect(data(store.replay(sent[6]!)!.events)).toEqual(['e7', 'e8', 'e9']);
    // e6 itself is gone, but a client that saw it misses nothing.
    expect(store.replay(sent[5]!)).toBeUndefined();
  });

  it('bounds the bytes it keeps, evicting finished streams before live ones', () => {
    const store = new SessionEventStore({ maxBytes: 10 });
    const done = store.open('post', 'done');
    const live = store.open('post', 'live');
    const oldLive = store.append(live, 'LLLL');
    const doneIds = [store.append(done, 'dddd'), store.append(done, 'dd')];
    store.settle(done);
    store.append(live, 'llll'); // 4 + 4 + 2 + 4 = 14 bytes: the finished stream's oldest goes first
    expect(store.size()).toMatchObject({ events: 3, bytes: 10 });
    expect(store.replay(oldLive)).toBeDefined();
    expect(store.replay(doneIds[1]!)).toBeDefined();
    expect(store.replay(`p1-${Number(doneIds[0]!.split('-')[1]) - 1}`)).toBeUndefined();
    // One event larger than the whole bound is written live but not kept.
    const huge = store.append(live, 'x'.repeat(64));
    expect(store.size().bytes).toBeLessThanOrEqual(10);
    expect(store.replay(huge)).toBeDefined(); // nothing after it was lost
  });

  it('drops a settled stream after the grace period, keeps a revived one, and forgets all on dispose', () => {
    const store = new SessionEventStore({ graceMs: 1000 });
    const finished = store.open('post', undefined);
    const finishedId = store.append(finished, 'r');
    const standalone = store.open('get', undefined);
    const standaloneId = store.append(standalone, 'n');
    store.settle(finished);
    store.settle(standalone);
    vi.advanceTimersByTime(500);
    store.revive(standalone);
    expect(store.replay(finishedId)).toBeDefined();
    vi.advanceTimersByTime(600);
    expect(store.replay(finishedId)).toBeUndefined();
    expect(finished.dropped).toBe(true);
    expect(store.replay(standaloneId)).toBeDefined();
    store.settle(standalone);
    vi.advanceTimersByTime(999);
    expect(store.replay(standaloneId)).toBeDefined();
    vi.advanceTimersByTime(1);
    expect(store.replay(standaloneId)).toBeUndefined();
    expect(store.size()).toEqual({ streams: 0, events: 0, bytes: 0 });

    const again = store.open('post', undefined);
    store.append(again, 'z');
    store.settle(again);
    store.dispose();
    expect(store.size()).toEqual({ streams: 0, events: 0, bytes: 0 });
    expect(vi.getTimerCount()).toBe(0);
  });
});
