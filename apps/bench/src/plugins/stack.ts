import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { type BenchClient, closeAll, connectClient, REQUEST_OPTIONS, type RunOptions } from '../client.js';
import { checkedListing, RESOURCES } from '../lists.js';
import { measureReadPaths, profiledAs, type ReadPath, statsOf, upstreamCounters } from '../read-paths.js';
import {
  type GatewayOptions,
  ownUpstream,
  type PluginEntry,
  startGateways,
  Teardown,
  warningsOf,
} from '../services.js';
import type { AuditCheck, StackConfig, StackPath } from './model.js';

const AUDIT_FILE = 'audit.jsonl';

/**
 * The four plugins in the documented order (audit outermost, cache innermost: access refuses a cache
 * listed before it). Limits far above the load, one deny rule that matches nothing read.
 */
function stackPlugins(upstream: string, cacheMaxBytes: number, coherent: boolean): PluginEntry[] {
  return [
    ['@switchyard/plugin-audit', { file: `./${AUDIT_FILE}`, fsync: 'interval' }],
    [
      '@switchyard/plugin-rate-limit',
      {
        perClient: { requestsPerSecond: 1_000_000, burst: 1_000_000 },
        perUpstream: { concurrency: 1024, maxQueue: 1024 },
      },
    ],
    [
      '@switchyard/plugin-access',
      {
        default: 'allow',
        rules: [
          {
            effect: 'deny',
            uris: [`${upstream}+test://${upstream}/never/**`],
            description: 'matches nothing the bench reads',
          },
        ],
      },
    ],
    [
      '@switchyard/plugin-cache',
      coherent ? { maxBytes: cacheMaxBytes } : { maxBytes: cacheMaxBytes, coherent: false },
    ],
  ];
}

/** Counts the `resources/read` records of an audit file by cache status (JSON Lines, one per request). */
export async function checkAudit(path: StackPath, file: string, readsIssued: number) {
  const text = await readFile(file, 'utf8');
  const check = {
    path,
    file,
    readsIssued,
    readRecords: 0,
    cacheStatus: {} as Record<string, number>,
    errors: 0,
    otherRecords: 0,
  };
  for (const line of text.split('\n')) {
    if (line === '') continue;
    const record = JSON.parse(line) as { method?: string; outcome?: string; cache?: string };
    if (record.method !== 'resources/read') {
      check.otherRecords += 1;
      continue;
    }
    check.readRecords += 1;
    const status = record.cache ?? '(none)';
    check.cacheStatus[status] = (check.cacheStatus[status] ?? 0) + 1;
    if (record.outcome !== 'ok') check.errors += 1;
  }
  return check;
}

/** b. The four-plugin stack on cache misses vs a bare gateway, both in front of a 0 ms upstream. */
export async function runStackBenchmark(
  config: StackConfig,
  log: (message: string) => void,
  options: RunOptions = {},
) {
  const teardown = new Teardown();
  const clients: BenchClient[] = [];
  teardown.add(() => closeAll(clients));
  try {
    const up = await ownUpstream(
      { name: 'a', resources: config.resources, payloadBytes: config.payloadBytes },
      teardown,
    );
    const plugins: Record<StackPath, PluginEntry[]> = {
      bare: [],
      stack: stackPlugins(up.name, config.cacheMaxBytes, true),
      'stack-incoherent': stackPlugins(up.name, config.cacheMaxBytes, false),
    };
    const paths = Object.keys(plugins) as StackPath[];
    const gateways = await startGateways(
      up,
      Object.fromEntries(paths.map((path) => [path, profiledAs(options, path, plugins[path])])) as Record<
        StackPath,
        GatewayOptions
      >,
      teardown,
    );
    log(
      `plugins/stack: upstream ${up.url}, gateways ${paths.map((p) => `${p} ${gateways[p].url}`).join(', ')}`,
    );

    const direct = await connectClient(up.url, 'bench-direct', options);
    clients.push(direct);
    const targets: ReadPath[] = [];
    for (const path of paths) {
      const client = await connectClient(gateways[path].url, `bench-${path}`, options);
      clients.push(client);
      const listed = await checkedListing(RESOURCES, direct.client, client.client, up.name, config.resources);
      targets.push({
        path,
        client: client.client,
        uris: listed.exposed,
        gateways: [gateways[path].proc],
        upstreamReadsPerRead: 1,
        next: 0,
      });
    }
    // How many entries the cache can hold: its size is the JSON of the result.
    const sample = await direct.client.request(
      { method: 'resources/read', params: { uri: targets[0]!.uris[0]!.replace(/^[^+]*\+/, '') } },
      REQUEST_OPTIONS,
    );
    const entryBytes = Buffer.byteLength(JSON.stringify(sample)) + `${up.name}+`.length;
    const cacheCapacityEntries = Math.floor(config.cacheMaxBytes / entryBytes);
    const maxConcurrency = Math.max(...config.levels.map((l) => l.concurrency));
    if (cacheCapacityEntries + maxConcurrency >= config.resources) {
      throw new Error(
        `plugins/stack: ${config.resources} resources do not exceed the cache's ~${cacheCapacityEntries} ` +
          `entries by more than the concurrency (${maxConcurrency}): reads could hit`,
      );
    }
    log(
      `plugins/stack: cache maxBytes ${config.cacheMaxBytes} ≈ ${cacheCapacityEntries} entries of ` +
        `${entryBytes} B, ${config.resources} resources read round-robin: every read misses`,
    );

    const levels = await measureReadPaths({
      what: 'plugins/stack',
      paths: targets,
      levels: config.levels,
      rounds: config.rounds,
      payloadBytes: config.payloadBytes,
      upstream: up,
      pairs: [
        ['stack', 'bare'],
        ['stack-incoherent', 'bare'],
      ],
      log,
    });

    // Every read must be in the audit log, as a miss (records are written before the response leaves).
    const audit: AuditCheck[] = [];
    for (const path of ['stack', 'stack-incoherent'] as const) {
      const readsIssued = levels
        .flatMap((l) => l.rounds)
        .reduce((n, r) => (r.path === path ? n + r.readsIssued : n), 0);
      const check = await checkAudit(path, join(gateways[path].dir, AUDIT_FILE), readsIssued);
      audit.push(check);
      if (check.readRecords !== readsIssued || check.cacheStatus.miss !== readsIssued || check.errors > 0) {
        throw new Error(
          `plugins/stack: the ${path} gateway's audit log has ${check.readRecords} resources/read records ` +
            `(cache status ${JSON.stringify(check.cacheStatus)}, ${check.errors} errors) for ` +
            `${readsIssued} reads issued; expected one 'miss' record per read`,
        );
      }
    }
    const held = (await upstreamCounters(statsOf(up))).held;
    return {
      config,
      entryBytes,
      cacheCapacityEntries,
      plugins,
      levels,
      audit,
      upstreamSubscriptionsHeld: held,
      gatewayWarnings: warningsOf(gateways),
    };
  } finally {
    await teardown.run();
  }
}
