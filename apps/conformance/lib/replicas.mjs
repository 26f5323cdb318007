// The fixture behind two gateway replicas that share a redis-server (DESIGN §12), with HAProxy balancing
// every request round-robin over them: the suite must see one gateway.
import {
  freePort,
  haproxyMissing,
  redisMissing,
  startBalancer,
  startRedis,
} from '@switchyard/testkit/process';
import { fixtureOverStdio, startGatewayWith } from './processes.mjs';

/** Why the replicas cannot run here (no redis-server or haproxy), or undefined. */
export function replicasMissing() {
  return redisMissing() ?? haproxyMissing();
}

/**
 * Starts redis-server, two gateways on one config (store.redis, one cursorSecret) each fronting its own
 * fixture over stdio with `"prefix": false`, and HAProxy in front, all owned by `group`. Resolves with the
 * same shape as the other targets: `{ url, procs }` (`procs`: the two replicas).
 */
export async function startReplicas(group, gatewayCli, fixtureCli) {
  const started = [group.own(await startRedis())];
  const [redis] = started;
  try {
    const gateways = [];
    for (const n of [1, 2]) {
      const port = await freePort();
      const gateway = await startGatewayWith(group, {
        gatewayCli,
        name: `gateway replica ${n}`,
        port,
        store: { redis: { url: redis.url } },
        cursorSecret: 'conformance-replicas-secret',
        mcpServers: fixtureOverStdio(fixtureCli),
      });
      started.push(...gateway.procs);
      gateways.push({ ...gateway, port });
    }
    const balancer = group.own(await startBalancer(gateways.map((g) => ({ port: g.port }))));
    return { url: `${balancer.url}/mcp`, procs: gateways.flatMap((g) => g.procs) };
  } catch (error) {
    // What did start stops now, not at the end of the run.
    await Promise.allSettled(started.map((s) => s.stop()));
    throw error;
  }
}
