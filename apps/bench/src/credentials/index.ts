/**
 * Section 10, credentials (README.md, section 10; DESIGN §14): what reading each caller's own upstream token
 * from the vault costs per call, with the memory store and with a real Redis (skipped, with the reason,
 * without redis-server).
 * a. In process: `TokenKeeper.token(identity, upstream)` for a stored grant that needs no refresh, beside
 *    the store's raw `get` of the sealed value, so what the vault adds (unsealing, parsing) shows apart.
 * b. `tools/call` through a real gateway to an upstream that checks bearer tokens (bearer-upstream.ts):
 *    (a) a server with a static `headers.Authorization` vs (b) the same upstream as `auth.user`, the caller's
 *    token from the vault; rounds alternated, one upstream call per call issued. On Redis, the gateway CLI
 *    after a TokenVault on the same Redis stored the grant; in memory, `runGateway` in a child
 *    (memory-gateway.ts) that stores it itself.
 */
import { randomBytes, randomUUID } from 'node:crypto';
import { loadavg } from 'node:os';
import { createLogger, type Identity, openStore } from '@switchyard/core';
import { credentialOwner } from '@switchyard/core/listener';
import { controlClient } from '@switchyard/testkit';
import { LegacyHttpClient } from '@switchyard/testkit/mcp';
import { type ManagedProcess, type RedisServer, redisMissing } from '@switchyard/testkit/process';
import { jsonLine, type Log, Scope } from '../harness.js';
import {
  atEach,
  type CpuPerRead,
  callLoop,
  filler,
  measureCompared,
  oneCallEach,
  requestLoop,
  targetsOf,
} from '../measure.js';
import { PROBE_COMMANDS, redisCounters } from '../replicas/redis-probe.js';
import { comparedLegend, comparedSection, int, planLine, signed } from '../report/format.js';
import type { Sizes } from '../sizes.js';
import { credentialsModules, readingKeeper, type StoredGrant } from './internals.js';

type Config = Sizes['credentials'];

const IDENTITY: Identity = Object.freeze({ id: 'alice', groups: [], anonymous: false });
/** Whose grants the vault keeps them as: the kind of identity and its id (a static client here). */
const OWNER = credentialOwner(IDENTITY);
/** The replicas' `cursorSecret`: what the bench writes to Redis for the gateway is signed with it. */
const CURSOR_SECRET = 'switchyard-bench-credentials-cursor-secret-0123456789';
const PERSONAL_UPSTREAM = 'tracker';
/** The shared upstream (static header), by its name at the gateway. */
const SHARED = 'team';
/** `credentials.key` of every vault of the section (≥ 32 characters, as the config requires). */
const CREDENTIALS_KEY = 'switchyard-bench-credentials-key-0123456789abcdef';
const CLIENT_TOKEN = 'switchyard-bench-alice-client-token-5e8f2c';
const KEY_PREFIX = 'bench-e2e:';

const b64 = (value: unknown): string => Buffer.from(JSON.stringify(value)).toString('base64url');

/**
 * `subject`'s grant, valid for an hour (a minute-ahead refresh never triggers during the bench): a
 * 900-char access token shaped like an RS256 JWT with a typical claim set, and a refresh token.
 */
function benchGrant(subject: string, now = Date.now()): StoredGrant {
  const header = b64({ alg: 'RS256', typ: 'at+jwt', kid: 'bench-2026-11' });
  const signature = randomBytes(256).toString('base64url');
  const seconds = Math.floor(now / 1000);
  const claims: Record<string, unknown> = {
    iss: 'https://auth.tracker.example.com/',
    sub: subject,
    aud: 'https://tracker.example.com/mcp',
    client_id: 'https://mcp.example.com/oauth/client.json',
    scope: 'read write issues:read issues:write projects:read',
    iat: seconds,
    exp: seconds + 3600,
    jti: randomUUID(),
    sid: randomUUID(),
    auth_time: seconds - 120,
    ext: '',
  };
  const room = 900 - header.length - signature.length - 2 - b64(claims).length;
  claims.ext = 'x'.repeat(Math.max(0, Math.floor((room * 3) / 4)));
  return {
    accessToken: `${header}.${b64(claims)}.${signature}`,
    refreshToken: randomBytes(48).toString('base64url'),
    expiresAt: now + 3600_000,
    scope: 'read write',
    issuer: 'https://auth.tracker.example.com/',
    clientId: 'https://mcp.example.com/oauth/client.json',
    obtainedAt: now,
  };
}

/** A vault on `store` (memory, or the Redis at `redis` under `keyPrefix`), closed with the scope. */
async function openVault(scope: Scope, redis: RedisServer | undefined, keyPrefix: string) {
  const logger = createLogger({ level: 'warn', scope: 'bench-credentials' });
  const store = await openStore(
    redis ? { redis: { url: redis.url, keyPrefix } } : undefined,
    logger,
    CURSOR_SECRET,
  );
  const modules = await credentialsModules();
  const vault = new modules.TokenVault({ store, key: CREDENTIALS_KEY, logger });
  scope.add(async () => {
    await vault.close();
    await store.dispose();
  });
  return { store, modules, vault, logger };
}

/** Each call checked: `read` must answer `expected` (the sealed value, the access token) every time. */
const checked =
  <T>(what: string, read: () => Promise<T>, expected: T) =>
  (count: number, concurrency: number) =>
    requestLoop(count, concurrency, read, (i, value) => {
      if (value !== expected) {
        throw new Error(
          `credentials: ${what} #${i} answered ${value === undefined ? 'none' : 'another value'}`,
        );
      }
    });

/** a. The store's raw read vs the keeper's answer, on the memory store or the Redis at `redis`. */
function measureKeeper(config: Config['keeper'], redis: RedisServer | undefined, log: Log) {
  const kind = redis ? 'redis' : 'memory';
  return Scope.with(async (scope) => {
    const { store, modules, vault, logger } = await openVault(scope, redis, 'bench-keeper:');
    const grant = benchGrant(IDENTITY.id);
    await vault.put(OWNER, PERSONAL_UPSTREAM, grant);
    const keeper = readingKeeper(modules, vault, logger);
    const raw = store.scoped(modules.CREDENTIALS_SCOPE);
    const key = modules.grantKey(OWNER, PERSONAL_UPSTREAM);
    const sealed = await raw.get(key);
    if (typeof sealed !== 'string' || sealed.includes(grant.accessToken.slice(-40))) {
      throw new Error(`credentials: the vault did not store a sealed grant under ${key}`);
    }
    const { warmup, calls } = config.calls[kind];
    const levels = await measureCompared({
      what: `credentials: ${kind}`,
      levels: atEach(config.concurrencies, warmup, calls),
      rounds: config.rounds,
      log,
      pairs: [['token', 'store.get']],
      variants: [
        { name: 'store.get', loop: checked('store.get', () => raw.get(key), sealed) },
        {
          name: 'token',
          loop: checked('token()', () => keeper.token(IDENTITY, PERSONAL_UPSTREAM), grant.accessToken),
        },
      ].map((variant) => ({ ...variant, cpu: { redis: redis?.proc } })),
      note: (run) => ` (p50 ${(run.p50 * 1000).toFixed(1)} µs p99 ${(run.p99 * 1000).toFixed(1)} µs)`,
    });
    return { store: kind, levels };
  });
}

/** The upstream checking bearer tokens (bearer-upstream.ts): its process, its two sides and its counters. */
type BearerUpstream = { proc: ManagedProcess; staticUrl: string; personalUrl: string; controlUrl: string };

/**
 * b. The static header vs the vault through one gateway: the CLI on the Redis at `redis`, the grant put
 * beforehand by a vault on the same keyPrefix; without it, `runGateway` in a child that puts it itself.
 */
async function measureE2e(
  config: Config['e2e'],
  upstream: BearerUpstream,
  tokens: { static: string; grant: StoredGrant },
  redis: RedisServer | undefined,
  log: Log,
) {
  const kind = redis ? 'redis' : 'memory';
  const gwConfig = {
    listen: { http: { host: '127.0.0.1', port: 0, path: '/mcp' } },
    mcpServers: {
      [SHARED]: { url: upstream.staticUrl, headers: { Authorization: `Bearer ${tokens.static}` } },
      [PERSONAL_UPSTREAM]: { url: upstream.personalUrl, auth: { user: {} } },
    },
    clients: { [IDENTITY.id]: { token: CLIENT_TOKEN } },
    credentials: { key: CREDENTIALS_KEY, publicUrl: 'http://127.0.0.1' },
    ...(redis
      ? { store: { redis: { url: redis.url, keyPrefix: KEY_PREFIX } }, cursorSecret: CURSOR_SECRET }
      : {}),
  };
  return Scope.with(async (scope) => {
    let gateway: { proc: ManagedProcess; url: string; runner: string };
    if (redis) {
      await Scope.with(async (vaultScope) => {
        const { vault } = await openVault(vaultScope, redis, KEY_PREFIX);
        await vault.put(OWNER, PERSONAL_UPSTREAM, tokens.grant);
      });
      const g = await scope.gateway([], { name: 'gateway (redis)', config: gwConfig });
      gateway = { proc: g.proc, url: g.url, runner: 'gateway CLI, store.redis' };
    } else {
      const seed = { config: gwConfig, owner: OWNER, upstream: PERSONAL_UPSTREAM, grant: tokens.grant };
      const env = { BENCH_CREDENTIALS: JSON.stringify(seed) };
      const g = await scope.script(
        'gateway (memory)',
        import.meta.url,
        ['./memory-gateway.js'],
        jsonLine<{ url: string }>,
        env,
      );
      gateway = { proc: g.proc, url: g.ready.url, runner: 'runGateway in a child, memory store' };
    }
    log(
      `credentials: e2e ${kind}: upstream ${upstream.staticUrl} | ${upstream.personalUrl}, gateway ${gateway.url}`,
    );
    const session = scope.own(
      await LegacyHttpClient.open(gateway.url, {
        clientName: 'bench-credentials',
        headers: { authorization: `Bearer ${CLIENT_TOKEN}` },
      }),
    );
    const text = filler(config.argumentBytes);
    const sides = [
      ['static', SHARED],
      ['vault', PERSONAL_UPSTREAM],
    ] as const;
    const variants = sides.map(([name, server]) => {
      const targets = targetsOf(server, 0, config.tools, true);
      return {
        name,
        loop: (count: number, concurrency: number) => callLoop(session, targets, text, count, concurrency),
        cpu: { upstream: upstream.proc, gateway: gateway.proc, redis: redis?.proc },
      };
    });
    for (const variant of variants) await variant.loop(config.prewarm, 4);
    const control = controlClient(upstream.controlUrl);
    const calls = oneCallEach(async () => (await control.stats()).requests['tools/call'] ?? 0);
    const levels = await measureCompared({
      what: `credentials: e2e ${kind} tools/call`,
      levels: config.levels.map((l) => ({ concurrency: l.concurrency, warmup: l.warmup, count: l.calls })),
      rounds: config.rounds,
      variants,
      log,
      pairs: [['vault', 'static']],
      counters: {
        calls,
        commands: { read: async () => (redis ? (await redisCounters(redis.url)).commands : 0) },
      },
      after: (_run, moved, issued) => ({
        redisCommandsPerCall: redis ? (moved.commands - PROBE_COMMANDS) / issued : undefined,
      }),
    });
    return {
      store: kind,
      runner: gateway.runner,
      levels,
      upstreamCalls: calls.totals,
      gatewayWarnings: Object.fromEntries(gateway.proc.warnings),
    };
  });
}

export async function runCredentialsBenchmark(config: Config, log: Log) {
  const start = loadavg();
  const redisSkipped = redisMissing();
  if (redisSkipped) log(`credentials: Redis rows skipped: ${redisSkipped}`);
  return Scope.with(async (scope) => {
    const redis = redisSkipped ? undefined : await scope.redis();
    // The memory store first in 10a, Redis first in 10b.
    const stores = redis ? [undefined, redis] : [undefined];
    const keeper = [];
    for (const store of stores) keeper.push(await measureKeeper(config.keeper, store, log));
    const afterKeeper = loadavg();
    // The shared upstream's token is as long as the person's: both requests carry the same bytes.
    const tokens = { static: benchGrant('team-service').accessToken, grant: benchGrant(IDENTITY.id) };
    const bearer = await scope.script(
      'upstream (bearer)',
      import.meta.url,
      ['./bearer-upstream.js', '--tools', String(config.e2e.tools)],
      jsonLine<Omit<BearerUpstream, 'proc'>>,
      { BENCH_STATIC_TOKEN: tokens.static, BENCH_PERSONAL_TOKEN: tokens.grant.accessToken },
    );
    const upstream = { proc: bearer.proc, ...bearer.ready };
    const e2e = [];
    for (const store of stores.reverse())
      e2e.push(await measureE2e(config.e2e, upstream, tokens, store, log));
    return {
      config,
      accessTokenChars: tokens.grant.accessToken.length,
      ...(redisSkipped ? { redisSkipped } : {}),
      keeper,
      e2e,
      loadavg: { start, keeper: afterKeeper, end: loadavg() },
    };
  });
}

type CredentialsResult = Awaited<ReturnType<typeof runCredentialsBenchmark>>;

const redisCpu = [
  'cpu redis',
  'r',
  (run: { cpuUsPerRead: CpuPerRead }) =>
    run.cpuUsPerRead.redis === undefined ? '-' : int.format(run.cpuUsPerRead.redis),
] as const;

export function renderCredentials(result: CredentialsResult): string[] {
  const { keeper: k, e2e: e } = result.config;
  const load = (l: number[]): string => l.map((v) => v.toFixed(2)).join(' ');
  const calls = Object.entries(k.calls)
    .map(([store, c]) => `${store} ${int.format(c.calls)} after ${int.format(c.warmup)} warm-up`)
    .join(', ');
  const served = result.e2e
    .map(
      (gw) => `${gw.store}: ${int.format(gw.upstreamCalls.served)} of ${int.format(gw.upstreamCalls.issued)}`,
    )
    .join(', ');
  return [
    '10. Personal upstream credentials (DESIGN §14): the vault per call, memory store and Redis',
    `   grant: a ${result.accessTokenChars}-char JWT-shaped access token + refresh token, sealed (AES-256-GCM), valid 1 h (no refresh)`,
    result.redisSkipped
      ? `   Redis: SKIPPED (${result.redisSkipped}); memory store only`
      : '   Redis: a redis-server on an ephemeral port, started and stopped by the section',
    '',
    ...result.keeper.flatMap(({ store, levels }) => {
      const vaultAdds = levels.map(({ concurrency, medians: { token, 'store.get': get } }) => {
        const cpu = token && get ? signed(token.cpuUsPerRead.client - get.cpuUsPerRead.client, 1) : 'n/a';
        return `c=${concurrency} ${cpu} µs`;
      });
      return comparedSection(
        `10a. in process, ${store} store: TokenKeeper.token(identity, upstream) vs the store's raw get of the sealed grant`,
        `calls per round: ${calls}; ${k.rounds} round(s)`,
        levels,
        {
          paths: [
            { path: 'store.get', label: 'store.get' },
            { path: 'token', label: 'token()' },
          ],
          columns: [redisCpu],
        },
        [
          `   CPU per call the vault adds over the store (token() − store.get, this process): ${vaultAdds.join(', ')}`,
        ],
      );
    }),
    ...result.e2e.flatMap((gw) =>
      comparedSection(
        [
          `10b. tools/call through a gateway (${gw.store}: ${gw.runner}) to an upstream checking bearer tokens ` +
            `(${e.tools} echo tools, ${e.argumentBytes} B argument)`,
          "   (a) a static headers.Authorization vs (b) auth.user, the caller's token from the vault (README, 10)",
        ],
        `${int.format(e.prewarm)} calls of each path first, then ${planLine('calls', e.levels, e.rounds)}`,
        gw.levels,
        {
          paths: [
            { path: 'static', label: '(a) static header' },
            { path: 'vault', label: '(b) auth.user, vault' },
          ],
          pairLabel: () => '(b)/(a)',
          columns: [redisCpu, ['redis cmd/call', 'r', (run) => run.redisCommandsPerCall?.toFixed(2) ?? '-']],
        },
      ),
    ),
    ...comparedLegend(),
    '   redis cmd/call counts warm-up calls too.',
    '   checked: every answer echoed its tool and arguments; the upstream (which answers 401 to any other token) ' +
      `served one tools/call per call issued (${served}).`,
    `   load average: start ${load(result.loadavg.start)}, after 10a ${load(result.loadavg.keeper)}, end ${load(result.loadavg.end)}`,
    '',
  ];
}
