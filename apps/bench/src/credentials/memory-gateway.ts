#!/usr/bin/env node
/**
 * `runGateway` with its memory store for section 10, the person's grant put in its own vault (no other
 * process can reach that store). usage: node memory-gateway.js CONFIG, with BENCH_CREDENTIALS = JSON
 * `{ key, identity, upstream, grant }`; prints `{"url"}` once the grant is stored.
 */
import { createLogger } from '@switchyard/core';
import { loadConfigFile, runGateway } from 'switchyard';
import { credentialsModules, type StoredGrant } from './internals.js';

const file = process.argv[2];
const seed = JSON.parse(process.env.BENCH_CREDENTIALS ?? 'null') as {
  key: string;
  identity: string;
  upstream: string;
  grant: StoredGrant;
} | null;
if (!file || !seed) {
  process.stderr.write('usage: memory-gateway.js CONFIG (with BENCH_CREDENTIALS set)\n');
  process.exit(2);
}

const running = await runGateway(await loadConfigFile(file));
if (running.store.driver !== 'memory' || !running.http) {
  process.stderr.write(
    `memory-gateway: expected an HTTP listener and the memory store, got ${running.store.driver}\n`,
  );
  process.exit(2);
}
const { TokenVault } = await credentialsModules();
const vault = new TokenVault({
  store: running.store,
  key: seed.key,
  logger: createLogger({ level: 'warn' }),
});
await vault.put(seed.identity, seed.upstream, seed.grant);
process.stdout.write(`${JSON.stringify({ url: running.http.url })}\n`);

const stop = (): void => {
  void Promise.allSettled([vault.close(), running.close()]).finally(() => process.exit(0));
};
process.once('SIGTERM', stop);
process.once('SIGINT', stop);
