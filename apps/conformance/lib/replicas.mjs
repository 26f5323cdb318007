// The fixture behind two gateway replicas that share a redis-server (DESIGN §12), with HAProxy balancing
// every request round-robin over them: the suite must see one gateway.
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import {
  freePort,
  haproxyMissing,
  redisMissing,
  startBalancer,
  startRedis,
} from '@switchyard/testkit/process';
import { startServer } from './processes.mjs';

/** Why the replicas cannot run here (no redis-server or haproxy), or undefined. */
export function replicasMissing() {
  return redisMissing() ?? haproxyMissing();
}

/**
 * Starts redis-server, two gateways on one config (store.redis, one cursorSecret) each fronting its own
 * fixture over stdio with `"prefix": false`, and HAProxy in front. Resolves with the same shape as the
 * other targets: `{ child, url, stop, stderr }` (`child.exitCode` is a replica's, once one exited).
 */
export async function startReplicas(gatewayCli, fixtureCli, dir) {
  const redis = await startRedis();
  const stops = [() => redis.stop()];
  try {
    const gateways = [];
    for (const n of [1, 2]) {
      const port = await freePort();
      const configFile = join(dir, `switchyard-replica-${n}.json`);
      writeFileSync(
        configFile,
        JSON.stringify({
          listen: { http: { host: '127.0.0.1', port, path: '/mcp' } },
          logLevel: 'info',
          store: { redis: { url: redis.url } },
          cursorSecret: 'conformance-replicas-secret',
          mcpServers: {
            fixture: { command: process.execPath, args: [fixtureCli, '--stdio'], prefix: false },
          },
        }),
      );
      const gateway = await startServer(
        `gateway replica ${n}`,
        [gatewayCli, '--config', configFile],
        'stderr',
        (line) => /listening on (http:\/\/\S+)/.exec(line)?.[1],
      );
      stops.unshift(() => gateway.stop());
      gateways.push({ ...gateway, port });
    }
    const balancer = await startBalancer(gateways.map((g) => ({ port: g.port })));
    stops.unshift(() => balancer.stop());
    return {
      url: `${balancer.url}/mcp`,
      child: {
        get exitCode() {
          return gateways.find((g) => g.child.exitCode !== null)?.child.exitCode ?? null;
        },
      },
      stderr: () => gateways.map((g, i) => `replica ${i + 1}:\n${g.stderr()}`).join('\n'),
      stop: async () => {
        for (const stop of stops) await stop();
      },
    };
  } catch (error) {
    for (const stop of stops) await stop();
    throw error;
  }
}
