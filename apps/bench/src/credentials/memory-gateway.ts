#!/usr/bin/env node
/**
 * `runGateway` with its memory store for section 10, the person's grant put in its own vault (no other
 * process can reach that store). usage: node memory-gateway.js, with BENCH_CREDENTIALS = JSON
 * `{ config, owner, upstream, grant }` (`config`: the gateway config); prints `{"url"}` once the grant is
 * stored.
 */
import { createLogger } from '@switchyard/core';
import { parseConfig, runGateway } from 'switchyard';
import { credentialsModules, type StoredGrant } from './internals.js';

const seed = JSON.parse(process.env.BENCH_CREDENTIALS ?? 'null') as {
  config: { credentials: { key: string } };
  owner: string;
  upstream: string;
  grant: StoredGrant;
} | null;
if (!seed) {
  process.stderr.write('usage: memory-gateway.js (with BENCH_CREDENTIALS set)\n');
  process.exit(2);
}

const running = await runGateway(
  parseConfig(seed.config, { source: 'BENCH_CREDENTIALS', baseDir: process.cwd() }),
);
if (running.store.driver !== 'memory' || !running.http) {
  process.stderr.write(
    `memory-gateway: expected an HTTP listener and the memory store, got ${running.store.driver}\n`,
  );
  process.exit(2);
}
const { TokenVault } = await credentialsModules();
const vault = new TokenVault({
  store: running.store,
  key: seed.config.credentials.key,
  logger: createLogger({ level: 'warn' }),
});
await vault.put(seed.owner, seed.upstream, seed.grant);
process.stdout.write(`${JSON.stringify({ url: running.http.url })}\n`);

const stop = (): void => {
  void Promise.allSettled([vault.close(), running.close()]).finally(() => process.exit(0));
};
process.once('SIGTERM', stop);
process.once('SIGINT', stop);
