/**
 * 9a, in process: `TokenKeeper.token(identity, upstream)` for a stored grant that needs no refresh (what
 * every HTTP request to a personal upstream asks), on the memory store and on a real Redis, one call at a
 * time and 16 concurrent, beside the store's own `get` of the same sealed value, so that what the vault
 * adds (unsealing AES-256-GCM, parsing the grant) shows apart from the store's round trip. Every answer is
 * checked (the grant's access token; the sealed value).
 */
import { createLogger, type Identity, openStore, type Store } from '@switchyard/core';
import type { RedisServer } from '@switchyard/testkit/process';
import { atEach, measureCompared, requestLoop } from '../rounds.js';
import type { Sizes } from '../sizes.js';
import { benchGrant } from './grant.js';
import { credentialsModules, readingKeeper } from './internals.js';

export type StoreKind = 'memory' | 'redis';
/** `store.get`: the raw read of the sealed grant; `token`: the keeper's whole answer. */
export type KeeperOp = 'store.get' | 'token';

export type KeeperConfig = Sizes['credentials']['keeper'];

export type KeeperStore = Awaited<ReturnType<typeof measureKeeper>>;

export const IDENTITY: Identity = Object.freeze({ id: 'alice', groups: [], anonymous: false });
export const PERSONAL_UPSTREAM = 'tracker';
/** `credentials.key` of every vault of the section (≥ 32 characters, as the config requires). */
export const CREDENTIALS_KEY = 'switchyard-bench-credentials-key-0123456789abcdef';

/** Measures `store` (memory, or `redis` when given): the vault seeded with one grant, then the rounds. */
export async function measureKeeper(
  config: KeeperConfig,
  kind: StoreKind,
  redis: RedisServer | undefined,
  log: (message: string) => void,
) {
  const logger = createLogger({ level: 'warn', scope: 'bench-credentials' });
  const store: Store = await openStore(
    kind === 'redis' && redis ? { redis: { url: redis.url, keyPrefix: 'bench-keeper:' } } : undefined,
    logger,
  );
  const modules = await credentialsModules();
  const vault = new modules.TokenVault({ store, key: CREDENTIALS_KEY, logger });
  try {
    const grant = benchGrant(IDENTITY.id);
    await vault.put(IDENTITY.id, PERSONAL_UPSTREAM, grant);
    const keeper = readingKeeper(modules, vault, logger);
    const raw = store.scoped(modules.CREDENTIALS_SCOPE);
    const key = modules.grantKey(IDENTITY.id, PERSONAL_UPSTREAM);
    const sealed = await raw.get(key);
    if (typeof sealed !== 'string' || sealed.includes(grant.accessToken.slice(-40))) {
      throw new Error(`credentials: the vault did not store a sealed grant under ${key}`);
    }
    const ops: Record<KeeperOp, (count: number, concurrency: number) => ReturnType<typeof requestLoop>> = {
      'store.get': (count, concurrency) =>
        requestLoop(
          count,
          concurrency,
          () => raw.get(key),
          (i, value) => {
            if (value !== sealed) throw new Error(`credentials: store.get #${i} read another value`);
          },
        ),
      token: (count, concurrency) =>
        requestLoop(
          count,
          concurrency,
          () => keeper.token(IDENTITY, PERSONAL_UPSTREAM),
          (i, token) => {
            if (token !== grant.accessToken) {
              throw new Error(
                `credentials: token() #${i} answered ${token === undefined ? 'none' : 'another token'}`,
              );
            }
          },
        ),
    };
    const { warmup, calls } = config.calls[kind];
    const levels = await measureCompared({
      plan: {
        what: `credentials: ${kind}`,
        levels: atEach(config.concurrencies, warmup, calls),
        rounds: config.rounds,
      },
      log,
      pairs: [['token', 'store.get']],
      variants: (['store.get', 'token'] as const).map((op) => ({
        name: op,
        loop: ops[op],
        cpu: { redis: redis?.proc },
      })),
      note: (run) => ` (p50 ${(run.p50 * 1000).toFixed(1)} µs p99 ${(run.p99 * 1000).toFixed(1)} µs)`,
    });
    return { store: kind, levels };
  } finally {
    await vault.close();
    await store.dispose();
  }
}
