import { describe, expect, it } from 'vitest';
import { CachedToken, type IssuedToken } from '../src/upstream/auth/cached-token.js';

/** A token source that counts its fetches and answers tokens t1, t2, … valid for `expiresIn` seconds. */
function source(expiresIn?: number) {
  let fetches = 0;
  let release: (() => void) | undefined;
  return {
    get fetches() {
      return fetches;
    },
    /** Holds the next fetches until `go()`. */
    hold() {
      const gate = new Promise<void>((resolve) => {
        release = resolve;
      });
      return { gate, go: () => release?.() };
    },
    fetch: async (gate?: Promise<void>): Promise<IssuedToken> => {
      fetches += 1;
      const n = fetches;
      await gate;
      return { accessToken: `t${n}`, expiresIn };
    },
  };
}

describe('CachedToken (the client-credentials and token-exchange token cache)', () => {
  it('reuses a token while valid and fetches a new one before it expires', async () => {
    let now = 1_000_000;
    const issuer = source(3600);
    const token = new CachedToken(
      () => issuer.fetch(),
      () => now,
    );
    expect(await token.get()).toBe('t1');
    now += 3_500_000; // 100 s left: still outside the one-minute margin
    expect(await token.get()).toBe('t1');
    expect(issuer.fetches).toBe(1);
    now += 41_000; // 59 s left: inside the margin, not yet expired
    expect(await token.get()).toBe('t2');
    expect(issuer.fetches).toBe(2);
  });

  it('refreshes a short-lived token at half its lifetime', async () => {
    let now = 0;
    const issuer = source(10);
    const token = new CachedToken(
      () => issuer.fetch(),
      () => now,
    );
    await token.get();
    now = 4_999;
    expect(await token.get()).toBe('t1');
    now = 5_000;
    expect(await token.get()).toBe('t2');
  });

  it('shares one fetch between concurrent callers', async () => {
    const issuer = source(60);
    const { gate, go } = issuer.hold();
    const token = new CachedToken(() => issuer.fetch(gate));
    const waiting = Promise.all([token.get(), token.get(), token.get()]);
    go();
    expect(await waiting).toEqual(['t1', 't1', 't1']);
    expect(issuer.fetches).toBe(1);
  });

  it('drops a refused token once: callers refused the same token share the next fetch', async () => {
    const issuer = source(3600);
    const token = new CachedToken(() => issuer.fetch());
    const first = await token.get();
    token.refused(first);
    expect(await token.get()).toBe('t2');
    token.refused(first); // a late 401 for the old token changes nothing
    expect(await token.get()).toBe('t2');
    expect(issuer.fetches).toBe(2);
  });

  it('fetches again after a failed fetch', async () => {
    let fail = true;
    const token = new CachedToken(async () => {
      if (fail) throw new Error('issuer down');
      return { accessToken: 'ok' };
    });
    await expect(token.get()).rejects.toThrow('issuer down');
    fail = false;
    expect(await token.get()).toBe('ok');
  });
});
