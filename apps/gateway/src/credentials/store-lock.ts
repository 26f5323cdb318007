import { randomUUID } from 'node:crypto';
import type { Store } from '@switchyard/core';

/** Gives a held lock back (only if it is still this holder's: one that expired and was taken is left alone). */
export type Release = () => Promise<void>;

/** How long a waiting `lock` sleeps between attempts: 20 ms, doubling, at most 250 ms. */
const FIRST_BACKOFF_MS = 20;
const MAX_BACKOFF_MS = 250;

/**
 * Takes the lock `key` if nobody holds it (atomically across replicas sharing `store`): a key set with
 * `setIfAbsent` that disappears after `ttlMs` even if its holder dies. Resolves to how to release it, or
 * undefined when someone else holds it.
 */
export async function tryLock(store: Store, key: string, ttlMs: number): Promise<Release | undefined> {
  const holder = randomUUID();
  if (!(await store.setIfAbsent(key, holder, { ttlMs }))) return undefined;
  return async () => {
    // The store has no compare-and-delete: a lock that expired and was taken between these two calls would
    // be released too early, which costs at most one duplicate write (holders re-read before writing).
    if ((await store.get(key)) === holder) await store.delete(key);
  };
}

/**
 * Takes the lock `key`, waiting (with a bounded backoff) up to `waitMs` for its holder to release it or
 * for it to expire. Resolves undefined when it could not be had in time.
 */
export async function lock(
  store: Store,
  key: string,
  options: { ttlMs: number; waitMs: number },
): Promise<Release | undefined> {
  const deadline = Date.now() + options.waitMs;
  for (let backoff = FIRST_BACKOFF_MS; ; backoff = Math.min(backoff * 2, MAX_BACKOFF_MS)) {
    const release = await tryLock(store, key, options.ttlMs);
    if (release) return release;
    const left = deadline - Date.now();
    if (left <= 0) return undefined;
    await sleep(Math.min(backoff, left));
  }
}

/** Waits `ms` (a poll interval, never a fixed wait for something to happen). */
export function sleep(ms: number): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, ms));
}
