import { Client, StreamableHTTPClientTransport } from '@modelcontextprotocol/client';
import { afterEach, describe, expect, it } from 'vitest';
import { Cleanup, eventually, httpUpstream } from './support/harness.js';
import { type Replicas, replicasMissing, startReplicas } from './support/replicas.js';

// Two gateway CLI replicas sharing one redis-server (store.redis) behind HAProxy (round-robin per
// request), running @switchyard/plugin-rate-limit from its dist (build first). Modern-era clients
// (2026-07-28, stateless) through the balancer: one per-client budget across both replicas.

const cleanup = new Cleanup();
afterEach(() => cleanup.run());

if (replicasMissing) console.warn(`skipping the replicated rate-limit tests: ${replicasMissing}`);

const PLUGIN = '@switchyard/plugin-rate-limit';
/** 3 requests per 60 s window (exact: burst / requestsPerSecond = 60 s): nothing refills during a test. */
const PER_CLIENT = { requestsPerSecond: 0.05, burst: 3 };

async function replicated(onUnavailable?: 'local' | 'refuse') {
  const up = await httpUpstream(cleanup, { name: 'docs', resources: 20 });
  const deployment = await startReplicas(cleanup, {
    config: { mcpServers: { docs: { url: up.url } }, plugins: [[PLUGIN, { perClient: PER_CLIENT }]] },
    admin: true,
    ...(onUnavailable ? { onUnavailable } : {}),
  });
  const client = await modernClient(deployment.url);
  // The same (anonymous) identity on each replica directly, bypassing the balancer.
  const direct = await Promise.all(
    deployment.replicas.map((replica) => modernClient(`http://127.0.0.1:${replica.port}/mcp`)),
  );
  let next = 0;
  const readWith = (via: Client) =>
    via.request({ method: 'resources/read', params: { uri: `docs+test://docs/r/${next++ % 20}` } });
  const read = () => readWith(client);
  /** One read on each replica directly; resolves to their outcomes (true: served). */
  const readEach = () =>
    Promise.all(
      direct.map((via) =>
        readWith(via).then(
          () => true,
          (error: unknown) => error,
        ),
      ),
    );
  const reads = () => up.server.stats.requests['resources/read'] ?? 0;
  return { deployment, read, readEach, reads };
}

/** An official SDK client pinned to the modern era (stateless: any replica answers any request). */
async function modernClient(url: string): Promise<Client> {
  const client = new Client(
    { name: 'replicas-rate-limit', version: '1' },
    { versionNegotiation: { mode: { pin: '2026-07-28' } } },
  );
  await client.connect(new StreamableHTTPClientTransport(new URL(url)));
  cleanup.add(() => client.close());
  expect(client.getProtocolEra()).toBe('modern');
  return client;
}

const rateLimited = { code: -32006, data: { reason: 'rate_limited' } };
/** What `readEach` gives for a replica that refused with rate_limited. */
const refusedThere = expect.objectContaining({
  code: -32006,
  data: expect.objectContaining({ reason: 'rate_limited' }),
});

/** Every replica's `/readyz` body says `store: wanted`. */
async function storeIs(deployment: Replicas, wanted: 'ok' | 'degraded'): Promise<void> {
  await eventually(async () => {
    for (const replica of deployment.replicas) {
      const body = (await (await fetch(`${replica.adminUrl}/readyz`)).json()) as { store?: string };
      if (body.store !== wanted) return false;
    }
    return true;
  }, `every replica's /readyz to say store "${wanted}"`);
}

/** The error a request failed with (fails the test if it succeeded). */
async function failure(request: Promise<unknown>): Promise<{ code: number; data: Record<string, unknown> }> {
  const outcome = await request.then(
    (result) => ({ result }),
    (error: unknown) => ({ error }),
  );
  if (!('error' in outcome)) throw new Error(`expected a refusal, got ${JSON.stringify(outcome.result)}`);
  return outcome.error as { code: number; data: Record<string, unknown> };
}

describe.skipIf(replicasMissing)('perClient across replicas (store.redis, HAProxy round-robin)', () => {
  it('spends one budget across both replicas, keeps serving per replica while Redis is down, and rejoins', async () => {
    const { deployment, read, readEach, reads } = await replicated();
    await storeIs(deployment, 'ok');
    // Round-robin sends these to both replicas: one budget of 3 between them, not 3 each.
    for (let i = 0; i < 3; i += 1) await expect(read()).resolves.toMatchObject({ contents: [{}] });
    const refused = await failure(read());
    expect(refused).toMatchObject(rateLimited);
    expect(refused.data.retryAfterMs).toEqual(expect.any(Number));
    expect(refused.data.retryAfterMs as number).toBeGreaterThan(0);
    expect(refused.data.retryAfterMs as number).toBeLessThanOrEqual(60_001);
    // Whichever replica served the three, each replica on its own refuses now: at least one of them
    // served fewer than 3, so its refusal comes from the shared budget.
    expect(await readEach()).toEqual([refusedThere, refusedThere]);
    expect(reads()).toBe(3);

    // Redis gone: each replica serves from a budget of its own (onUnavailable "local", the default).
    await deployment.redis.stop({ kill: true });
    await storeIs(deployment, 'degraded');
    await expect(read()).resolves.toMatchObject({ contents: [{}] });
    await expect(read()).resolves.toMatchObject({ contents: [{}] });
    expect(reads()).toBe(5);

    // Redis back (empty): the shared budget is in force again, by itself. The two local budgets have 4
    // tokens left between them, so the refusals below can only come from the shared budget.
    await deployment.redis.restart();
    await storeIs(deployment, 'ok');
    for (let i = 0; i < 3; i += 1) await expect(read()).resolves.toMatchObject({ contents: [{}] });
    await expect(read()).rejects.toMatchObject(rateLimited);
    expect(await readEach()).toEqual([refusedThere, refusedThere]);
    expect(reads()).toBe(8);
  });

  it('answers store_unavailable while Redis is down under onUnavailable "refuse"', async () => {
    const { deployment, read, reads } = await replicated('refuse');
    await storeIs(deployment, 'ok');
    await expect(read()).resolves.toMatchObject({ contents: [{}] });
    await deployment.redis.stop({ kill: true });
    await storeIs(deployment, 'degraded');
    for (let i = 0; i < 2; i += 1) {
      const refused = await failure(read());
      expect(refused).toMatchObject({ code: -32000, data: { reason: 'store_unavailable' } });
    }
    expect(reads()).toBe(1); // the refused requests went no further
    await deployment.redis.restart();
    await storeIs(deployment, 'ok');
    await expect(read()).resolves.toMatchObject({ contents: [{}] });
    expect(reads()).toBe(2);
  });
});
