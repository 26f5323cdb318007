import type { Cleanup } from '@switchyard/testkit';
import {
  type Balancer,
  freePort,
  haproxyMissing,
  type RedisServer,
  redisMissing,
  startBalancer,
  startRedis,
} from '@switchyard/testkit/process';
import { type GatewayProcess, startGateway } from './harness.js';

/** Why the replica tests cannot run here (no redis-server or haproxy), or undefined when they can. */
export const replicasMissing: string | undefined = redisMissing() ?? haproxyMissing();

/** The `cursorSecret` every replica of a deployment shares, unless a test gives its own. */
export const REPLICA_SECRET = 'replica-test-secret-0123456789abcdef';

export interface ReplicaOptions {
  /** The config every replica runs, without `listen` and `store` (the harness sets them). */
  config: Record<string, unknown>;
  /** Default 2. */
  replicas?: number;
  /** `store.redis.onUnavailable` (default: the gateway's default, `local`). */
  onUnavailable?: 'local' | 'refuse';
  /** Every replica shares it (default: one made up for the test). */
  cursorSecret?: string;
  /** A Redis already running (default: a new one on an ephemeral port). */
  redis?: RedisServer;
  /** Also an admin listener on each replica (for /readyz and the status page). */
  admin?: boolean;
}

/** One replica: its gateway process and the ports it listens on (kept, so a restart reuses them). */
export interface Replica {
  gateway: GatewayProcess;
  port: number;
  adminUrl?: string;
  /** Starts the replica again on the same ports (after its process was stopped or killed). */
  restart(): Promise<void>;
}

export interface Replicas {
  redis: RedisServer;
  balancer: Balancer;
  replicas: Replica[];
  /** The MCP endpoint through the balancer: `http://127.0.0.1:<port>/mcp`. */
  url: string;
}

/**
 * A real deployment in small: one `redis-server`, N gateway replicas running the same config (with
 * `store.redis` and one `cursorSecret`), and HAProxy balancing every request round-robin over them.
 * Everything is stopped by `cleanup`.
 */
export async function startReplicas(cleanup: Cleanup, options: ReplicaOptions): Promise<Replicas> {
  const redis = options.redis ?? (await startRedis());
  if (!options.redis) cleanup.add(() => redis.stop());
  const secret = options.cursorSecret ?? REPLICA_SECRET;
  const replicas: Replica[] = [];
  for (let i = 0; i < (options.replicas ?? 2); i += 1) {
    const port = await freePort();
    const adminPort = options.admin ? await freePort() : undefined;
    const config = {
      ...options.config,
      listen: {
        http: { host: '127.0.0.1', port, path: '/mcp' },
        ...(adminPort !== undefined ? { admin: { host: '127.0.0.1', port: adminPort } } : {}),
      },
      cursorSecret: secret,
      store: {
        redis: {
          url: redis.url,
          ...(options.onUnavailable ? { onUnavailable: options.onUnavailable } : {}),
        },
      },
    };
    const replica: Replica = {
      gateway: await startGateway(cleanup, config),
      port,
      adminUrl: adminPort === undefined ? undefined : `http://127.0.0.1:${adminPort}`,
      restart: async () => {
        await replica.gateway.stop();
        replica.gateway = await startGateway(cleanup, config);
      },
    };
    replicas.push(replica);
  }
  const balancer = await startBalancer(replicas.map((r) => ({ port: r.port })));
  cleanup.add(() => balancer.stop());
  return { redis, balancer, replicas, url: `${balancer.url}/mcp` };
}
