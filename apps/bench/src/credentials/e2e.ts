/**
 * 9b, end to end: `tools/call` through a real gateway to an upstream that checks bearer tokens
 * (bearer-upstream.ts), (a) as a shared upstream with a static `headers.Authorization` (no vault) vs (b) as
 * `auth.user`, the caller's token read from the vault on every HTTP request to the upstream. Both are
 * servers of the same gateway in front of the same upstream process, and every round alternates them
 * (rounds.ts, `direct` = a, `gateway` = b), so the ratio (b)/(a) is what the vault adds to a call.
 *
 * With Redis: the gateway CLI with `store.redis`, its grant put beforehand by a TokenVault on the same
 * Redis URL, keyPrefix and `credentials.key`. With the memory store: `runGateway` in a child
 * (memory-gateway.ts) that puts the grant in its own store. Every answer is checked (callLoop, requests.ts), and the
 * upstream must serve exactly one `tools/call` per call issued in every round.
 */
import { writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { createLogger, openStore } from '@switchyard/core';
import { controlClient } from '@switchyard/testkit';
import { LegacyHttpClient } from '@switchyard/testkit/mcp';
import type { ManagedProcess, RedisServer } from '@switchyard/testkit/process';
import { PROBE_COMMANDS, redisCounters } from '../replicas/redis-probe.js';
import { callCounter, callLoop, filler, type Targets, targetsOf } from '../requests.js';
import { measureCompared } from '../rounds.js';
import { children, startGateway } from '../services.js';
import type { Sizes } from '../sizes.js';
import { benchGrant } from './grant.js';
import { credentialsModules, type StoredGrant } from './internals.js';
import { CREDENTIALS_KEY, IDENTITY, PERSONAL_UPSTREAM, type StoreKind } from './keeper.js';

export type E2eConfig = Sizes['credentials']['e2e'];

/** (a) the static header, (b) the vault. */
export type E2ePath = 'static' | 'vault';

export type E2eGateway = Awaited<ReturnType<typeof measureGateway>>;

/** The shared upstream (static header) and the personal one (`auth.user`), by their names at the gateway. */
const SHARED = 'team';
const CLIENT_TOKEN = 'switchyard-bench-alice-client-token-5e8f2c';
const CURSOR_SECRET = 'switchyard-bench-credentials-cursor-secret-0123456789';
const KEY_PREFIX = 'bench-e2e:';

interface BearerUpstream {
  proc: ManagedProcess;
  staticUrl: string;
  personalUrl: string;
  controlUrl: string;
}

async function startBearerUpstream(tools: number, staticToken: string, personalToken: string) {
  const { proc, ready } = await children.start({
    name: 'upstream (bearer)',
    args: [fileURLToPath(new URL('./bearer-upstream.js', import.meta.url)), '--tools', String(tools)],
    env: { BENCH_STATIC_TOKEN: staticToken, BENCH_PERSONAL_TOKEN: personalToken },
    ready: {
      stream: 'stdout',
      line: (line) => (line.startsWith('{') ? (JSON.parse(line) as Omit<BearerUpstream, 'proc'>) : undefined),
    },
  });
  return { proc, ...ready };
}

function gatewayConfig(
  upstream: BearerUpstream,
  staticToken: string,
  redis: RedisServer | undefined,
): Record<string, unknown> {
  return {
    listen: { http: { host: '127.0.0.1', port: 0, path: '/mcp' } },
    mcpServers: {
      [SHARED]: { url: upstream.staticUrl, headers: { Authorization: `Bearer ${staticToken}` } },
      [PERSONAL_UPSTREAM]: { url: upstream.personalUrl, auth: { user: {} } },
    },
    clients: { [IDENTITY.id]: { token: CLIENT_TOKEN } },
    credentials: { key: CREDENTIALS_KEY, publicUrl: 'http://127.0.0.1' },
    ...(redis
      ? { store: { redis: { url: redis.url, keyPrefix: KEY_PREFIX } }, cursorSecret: CURSOR_SECRET }
      : {}),
  };
}

/** The gateway CLI on Redis, after a TokenVault on the same Redis, keyPrefix and key stored the grant. */
async function startRedisGateway(config: Record<string, unknown>, redis: RedisServer, grant: StoredGrant) {
  const logger = createLogger({ level: 'warn', scope: 'bench-credentials' });
  const store = await openStore({ redis: { url: redis.url, keyPrefix: KEY_PREFIX } }, logger);
  const modules = await credentialsModules();
  const vault = new modules.TokenVault({ store, key: CREDENTIALS_KEY, logger });
  try {
    await vault.put(IDENTITY.id, PERSONAL_UPSTREAM, grant);
  } finally {
    await vault.close();
    await store.dispose();
  }
  const gateway = await startGateway([], { name: 'gateway (redis)', config });
  return { proc: gateway.proc, url: gateway.url, runner: 'gateway CLI, store.redis' };
}

/** runGateway in a child (memory-gateway.ts) that stores the grant in its own memory store. */
async function startMemoryGateway(config: Record<string, unknown>, grant: StoredGrant) {
  const dir = await children.scratchDir('switchyard-bench-credentials-');
  const file = join(dir, 'switchyard.json');
  await writeFile(file, JSON.stringify(config, null, 2), 'utf8');
  const seed = { key: CREDENTIALS_KEY, identity: IDENTITY.id, upstream: PERSONAL_UPSTREAM, grant };
  const { proc, ready } = await children.start({
    name: 'gateway (memory)',
    args: [fileURLToPath(new URL('./memory-gateway.js', import.meta.url)), file],
    env: { BENCH_CREDENTIALS: JSON.stringify(seed) },
    ready: {
      stream: 'stdout',
      line: (line) => (line.startsWith('{') ? (JSON.parse(line) as { url: string }).url : undefined),
    },
  });
  return { proc, url: ready, runner: 'runGateway in a child, memory store' };
}

export async function runE2e(
  config: E2eConfig,
  redis: RedisServer | undefined,
  log: (message: string) => void,
): Promise<E2eGateway[]> {
  const grant = benchGrant(IDENTITY.id);
  // The shared upstream's token is as long as the person's: both requests carry the same bytes.
  const staticToken = benchGrant('team-service').accessToken;
  const upstream = await startBearerUpstream(config.tools, staticToken, grant.accessToken);
  try {
    const out: E2eGateway[] = [];
    for (const kind of redis ? (['redis', 'memory'] as const) : (['memory'] as const)) {
      const gwConfig = gatewayConfig(upstream, staticToken, kind === 'redis' ? redis : undefined);
      const gateway =
        kind === 'redis' && redis
          ? await startRedisGateway(gwConfig, redis, grant)
          : await startMemoryGateway(gwConfig, grant);
      try {
        log(
          `credentials: e2e ${kind}: upstream ${upstream.staticUrl} | ${upstream.personalUrl}, gateway ${gateway.url}`,
        );
        out.push(
          await measureGateway(config, kind, gateway, upstream, kind === 'redis' ? redis : undefined, log),
        );
      } finally {
        await gateway.proc.stop();
      }
    }
    return out;
  } finally {
    await upstream.proc.stop();
  }
}

async function measureGateway(
  config: E2eConfig,
  kind: StoreKind,
  gateway: { proc: ManagedProcess; url: string; runner: string },
  upstream: BearerUpstream,
  redis: RedisServer | undefined,
  log: (message: string) => void,
) {
  const session = await LegacyHttpClient.open(gateway.url, {
    clientName: 'bench-credentials',
    headers: { authorization: `Bearer ${CLIENT_TOKEN}` },
  });
  try {
    const text = filler(config.argumentBytes);
    const targets: Record<E2ePath, Targets> = {
      static: targetsOf(SHARED, 0, config.tools, true),
      vault: targetsOf(PERSONAL_UPSTREAM, 0, config.tools, true),
    };
    const loop = (path: E2ePath) => (count: number, concurrency: number) =>
      callLoop(session, targets[path], text, count, concurrency);
    const control = controlClient(upstream.controlUrl);
    const calls = callCounter(
      `credentials e2e ${kind}`,
      async () => (await control.stats()).requests['tools/call'] ?? 0,
    );
    const commands = async () => (redis ? (await redisCounters(redis.url)).commands : 0);
    for (const path of ['static', 'vault'] as const) await loop(path)(config.prewarm, 4);
    const levels = await measureCompared({
      plan: {
        what: `credentials: e2e ${kind} tools/call`,
        levels: config.levels.map((l) => ({ concurrency: l.concurrency, warmup: l.warmup, count: l.calls })),
        rounds: config.rounds,
      },
      variants: (['static', 'vault'] as const).map((path) => ({
        name: path,
        loop: loop(path),
        cpu: { upstream: upstream.proc, gateway: gateway.proc, redis: redis?.proc },
      })),
      log,
      pairs: [['vault', 'static']],
      before: async () => ({ served: await calls.before(), commands: await commands() }),
      after: async (run, before, issued) => {
        await calls.check(run, before.served, issued);
        const commandsPerCall = ((await commands()) - before.commands - PROBE_COMMANDS) / issued;
        return { redisCommandsPerCall: redis ? commandsPerCall : undefined };
      },
    });
    return {
      store: kind,
      runner: gateway.runner,
      levels,
      upstreamCalls: calls.totals,
      gatewayWarnings: Object.fromEntries(gateway.proc.warnings),
    };
  } finally {
    await session.close();
  }
}
