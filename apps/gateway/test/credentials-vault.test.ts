import { type Logger, MemoryStore } from '@switchyard/core';
import { Cleanup } from '@switchyard/testkit';
import { afterEach, describe, expect, it } from 'vitest';
import { grantKey } from '../src/credentials/store-keys.js';
import type { StoredGrant } from '../src/credentials/types.js';
import { TokenVault, type TokenVaultOptions } from '../src/credentials/vault.js';

// The vault over the memory store: what it keeps, how it seals it (AES-256-GCM under credentials.key, bound
// to the store key), key rotation, and the change feed.

const cleanup = new Cleanup();
afterEach(() => cleanup.run());

const OLD_KEY = 'old-credentials-key-0123456789abcdef';
const NEW_KEY = 'new-credentials-key-0123456789abcdef';
/** Where the vault keeps alice's tracker grant in the root store. */
const ALICE_TRACKER = `credentials:${grantKey('alice', 'tracker')}`;

/** A MemoryStore that remembers every key and value written (to look at what the vault really stores). */
class InspectedStore extends MemoryStore {
  readonly writes: { key: string; value: string; ttlMs?: number }[] = [];

  override async set(key: string, value: string, options?: { ttlMs?: number }): Promise<void> {
    this.writes.push({ key, value, ttlMs: options?.ttlMs });
    await super.set(key, value, options);
  }

  override async setIfAbsent(key: string, value: string, options?: { ttlMs?: number }): Promise<boolean> {
    this.writes.push({ key, value, ttlMs: options?.ttlMs });
    return super.setIfAbsent(key, value, options);
  }
}

interface LogEntry {
  level: string;
  message: string;
  fields?: Record<string, unknown>;
}

function recordingLogger(entries: LogEntry[]): Logger {
  const logger: Logger = {
    debug: (message, fields) => entries.push({ level: 'debug', message, fields }),
    info: (message, fields) => entries.push({ level: 'info', message, fields }),
    warn: (message, fields) => entries.push({ level: 'warn', message, fields }),
    error: (message, fields) => entries.push({ level: 'error', message, fields }),
    child: () => logger,
  };
  return logger;
}

function storeFixture(): InspectedStore {
  const store = new InspectedStore();
  cleanup.add(() => store.dispose());
  return store;
}

async function vaultOver(
  store: InspectedStore,
  options: Partial<TokenVaultOptions> = {},
): Promise<{ vault: TokenVault; log: LogEntry[] }> {
  const log: LogEntry[] = [];
  const vault = new TokenVault({ store, key: NEW_KEY, logger: recordingLogger(log), ...options });
  await vault.start();
  cleanup.add(() => vault.close());
  return { vault, log };
}

function grant(overrides: Partial<StoredGrant> = {}): StoredGrant {
  return {
    accessToken: 'at-secret-ALPHA-0001',
    refreshToken: 'rt-secret-BRAVO-0001',
    expiresAt: Date.now() + 3_600_000,
    scope: 'mcp',
    issuer: 'https://as.example.com',
    clientId: 'gateway',
    obtainedAt: Date.now(),
    ...overrides,
  };
}

describe('TokenVault', () => {
  it('keeps grants per (identity, upstream): put, get, list, delete', async () => {
    const { vault } = await vaultOver(storeFixture());
    const alice = grant();
    const bob = grant({ accessToken: 'at-bob', refreshToken: 'rt-bob' });
    await vault.put('alice', 'tracker', alice);
    await vault.put('alice', 'wiki', grant({ accessToken: 'at-alice-wiki' }));
    await vault.put('bob', 'tracker', bob);

    expect(await vault.get('alice', 'tracker')).toEqual(alice);
    expect(await vault.get('bob', 'tracker')).toEqual(bob);
    expect(await vault.get('carol', 'tracker')).toBeUndefined();
    expect(await vault.list('alice')).toEqual(['tracker', 'wiki']);
    expect(await vault.list('bob')).toEqual(['tracker']);
    expect(await vault.list('carol')).toEqual([]);

    expect(await vault.delete('alice', 'tracker')).toBe(true);
    expect(await vault.delete('alice', 'tracker')).toBe(false);
    expect(await vault.get('alice', 'tracker')).toBeUndefined();
    expect(await vault.list('alice')).toEqual(['wiki']);
    expect(await vault.get('bob', 'tracker')).toEqual(bob);
  });

  it('keeps identities apart whatever characters their ids hold', async () => {
    const { vault } = await vaultOver(storeFixture());
    await vault.put('a:b', 'c', grant({ accessToken: 'first' }));
    await vault.put('a', 'b:c', grant({ accessToken: 'second' }));
    expect((await vault.get('a:b', 'c'))?.accessToken).toBe('first');
    expect((await vault.get('a', 'b:c'))?.accessToken).toBe('second');
    expect(await vault.get('a:b', 'b:c')).toBeUndefined();
    expect(await vault.list('a:b')).toEqual(['c']);
    expect(await vault.list('a')).toEqual(['b:c']);
  });

  it('lists every upstream when one person connects several at once', async () => {
    const { vault } = await vaultOver(storeFixture());
    const upstreams = Array.from({ length: 12 }, (_, i) => `upstream-${String(i).padStart(2, '0')}`);
    await Promise.all(upstreams.map((upstream) => vault.put('alice', upstream, grant())));
    expect(await vault.list('alice')).toEqual(upstreams);
  });

  it('stores only sealed values under hashed keys: no token, scope or identity id in the store', async () => {
    const store = storeFixture();
    const { vault } = await vaultOver(store);
    await vault.put('alice@example.com', 'tracker', grant());
    await vault.get('alice@example.com', 'tracker');
    await vault.list('alice@example.com');
    const written = store.writes.map((w) => `${w.key} ${w.value}`).join('\n');
    expect(store.writes.length).toBeGreaterThan(0);
    for (const secret of [
      'at-secret-ALPHA',
      'rt-secret-BRAVO',
      'alice@example.com',
      'as.example.com',
      'tracker',
    ])
      expect(written).not.toContain(secret);
  });

  it('gives a refreshable grant a long life, and one without a refresh token its access token’s', async () => {
    const store = storeFixture();
    const { vault } = await vaultOver(store);
    await vault.put('alice', 'tracker', grant());
    await vault.put('alice', 'wiki', grant({ refreshToken: undefined, expiresAt: Date.now() + 120_000 }));
    const ttl = (upstream: string) =>
      store.writes.find((w) => w.key === `credentials:${grantKey('alice', upstream)}`)?.ttlMs;
    expect(ttl('tracker')).toBe(90 * 24 * 3600 * 1000);
    expect(ttl('wiki')).toBeGreaterThan(110_000);
    expect(ttl('wiki')).toBeLessThanOrEqual(120_000);
  });

  it('reads an altered value as absent, deletes it, and says so once without its content', async () => {
    const store = storeFixture();
    const { vault, log } = await vaultOver(store);
    await vault.put('alice', 'tracker', grant());
    const raw = (await store.get(ALICE_TRACKER))!;
    const flipped = raw.slice(0, -2) + (raw.at(-2) === 'A' ? 'B' : 'A') + raw.at(-1);
    await store.set(ALICE_TRACKER, flipped);
    const heard: [string, string, boolean][] = [];
    vault.onChange((...change) => heard.push(change));

    expect(await vault.get('alice', 'tracker')).toBeUndefined();
    expect(await store.get(ALICE_TRACKER)).toBeUndefined();
    expect(await vault.get('alice', 'tracker')).toBeUndefined();
    expect(await vault.list('alice')).toEqual([]);
    expect(heard).toEqual([['alice', 'tracker', false]]);
    const warnings = log.filter((e) => e.level === 'warn');
    expect(warnings).toHaveLength(1);
    expect(warnings[0]!.fields).toEqual({ identity: 'alice', upstream: 'tracker' });
    expect(JSON.stringify(log)).not.toContain('secret');
  });

  it('does not open a value copied under another identity’s key', async () => {
    const store = storeFixture();
    const { vault } = await vaultOver(store);
    await vault.put('alice', 'tracker', grant());
    await store.set(`credentials:${grantKey('mallory', 'tracker')}`, (await store.get(ALICE_TRACKER))!);
    expect(await vault.get('mallory', 'tracker')).toBeUndefined();
    expect((await vault.get('alice', 'tracker'))?.accessToken).toBe('at-secret-ALPHA-0001');
  });

  it('rotates keys: a value sealed under a previous key opens, and is sealed again under the current one', async () => {
    const store = storeFixture();
    const { vault: before } = await vaultOver(store, { key: OLD_KEY });
    const stored = grant();
    await before.put('alice', 'tracker', stored);
    const sealedOld = (await store.get(ALICE_TRACKER))!;

    // The new key alone does not open it (and, the key check being sealed under the old key, leaves it be).
    const { vault: newOnly, log: newOnlyLog } = await vaultOver(store, { key: NEW_KEY });
    expect(await newOnly.get('alice', 'tracker')).toBeUndefined();
    expect(await store.get(ALICE_TRACKER)).toBe(sealedOld);

    const { vault: rotated } = await vaultOver(store, { key: NEW_KEY, previousKeys: [OLD_KEY] });
    expect(await rotated.get('alice', 'tracker')).toEqual(stored);
    const sealedNew = (await store.get(ALICE_TRACKER))!;
    expect(sealedNew).not.toBe(sealedOld);
    expect(await rotated.list('alice')).toEqual(['tracker']);

    // Now the new key alone opens it, and the old key alone no longer does.
    const { vault: after } = await vaultOver(store, { key: NEW_KEY });
    expect(await after.get('alice', 'tracker')).toEqual(stored);
    expect(await after.list('alice')).toEqual(['tracker']);
    const { vault: stale, log: staleLog } = await vaultOver(store, { key: OLD_KEY });
    expect(await stale.get('alice', 'tracker')).toBeUndefined();
    expect(await store.get(ALICE_TRACKER)).toBe(sealedNew);

    // Replicas whose key is wrong say so, once, and never delete.
    for (const log of [newOnlyLog, staleLog]) {
      expect(log.filter((e) => e.level === 'error')).toHaveLength(1);
      expect(log.filter((e) => e.level === 'error')[0]!.message).toMatch(/credentials\.key/);
    }
  });

  it('drops a value sealed under a key every replica dropped', async () => {
    const store = storeFixture();
    const { vault: before } = await vaultOver(store, { key: OLD_KEY });
    await before.put('alice', 'tracker', grant());
    // A rotation starts (the key check moves to the new key), but alice's grant is not read before the old
    // key is dropped from the config: now it opens under no key.
    await vaultOver(store, { key: NEW_KEY, previousKeys: [OLD_KEY] });
    const { vault: after, log } = await vaultOver(store, { key: NEW_KEY });
    expect(await after.get('alice', 'tracker')).toBeUndefined();
    expect(await store.get(ALICE_TRACKER)).toBeUndefined();
    expect(await after.list('alice')).toEqual([]);
    expect(log.filter((e) => e.level === 'warn')).toHaveLength(1);
    expect(log.filter((e) => e.level === 'error')).toHaveLength(0);
  });

  it('tells every vault over the store of connects and disconnects, each once', async () => {
    const store = storeFixture();
    const { vault: a } = await vaultOver(store);
    const { vault: b } = await vaultOver(store);
    const heardA: [string, string, boolean][] = [];
    const heardB: [string, string, boolean][] = [];
    a.onChange((...change) => heardA.push(change));
    const stop = b.onChange((...change) => heardB.push(change));

    await a.put('alice', 'tracker', grant());
    await b.delete('alice', 'tracker');
    await b.delete('alice', 'tracker'); // nothing there: nothing to tell
    stop();
    await a.put('bob', 'wiki', grant());

    expect(heardA).toEqual([
      ['alice', 'tracker', true],
      ['alice', 'tracker', false],
      ['bob', 'wiki', true],
    ]);
    expect(heardB).toEqual([
      ['alice', 'tracker', true],
      ['alice', 'tracker', false],
    ]);
  });

  it('refuses an empty key', () => {
    expect(() => new TokenVault({ store: storeFixture(), key: '', logger: recordingLogger([]) })).toThrow(
      /credentials\.key/,
    );
  });
});
