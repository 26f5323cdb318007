/** Section 3b: audit → rate-limit → access → cache on cache misses vs a bare gateway (README.md, section 3). */
import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import {
  counters,
  type Log,
  type PluginEntry,
  REQUEST_OPTIONS,
  type RunOptions,
  Scope,
  warningsOf,
} from '../harness.js';
import { checkedListing } from '../lists.js';
import { gatewayReadPaths, measureReadPaths } from '../read-paths.js';
import { comparedSection, int, planLine } from '../report/format.js';
import type { Sizes } from '../sizes.js';

const AUDIT_FILE = 'audit.jsonl';

/** Short labels of the stack paths (table rows). */
const STACK_LABELS = {
  bare: 'bare gateway',
  stack: 'stack, coherent',
  'stack-incoherent': 'stack, coherent: false',
};
type StackPath = keyof typeof STACK_LABELS;

/**
 * The four plugins in the documented order (audit outermost, cache innermost: access refuses a cache
 * listed before it). Limits far above the load, one deny rule that matches nothing read.
 */
function stackPlugins(upstream: string, maxBytes: number, coherent: boolean): PluginEntry[] {
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
    ['@switchyard/plugin-cache', coherent ? { maxBytes } : { maxBytes, coherent: false }],
  ];
}

/** The `resources/read` records of an audit file (JSON Lines) by cache status; throws unless one `miss` per read. */
async function checkAudit(path: StackPath, file: string, readsIssued: number) {
  const check = {
    path,
    file,
    readsIssued,
    readRecords: 0,
    cacheStatus: {} as Record<string, number>,
    errors: 0,
    otherRecords: 0,
  };
  for (const line of (await readFile(file, 'utf8')).split('\n')) {
    const record =
      line === '' ? {} : (JSON.parse(line) as { method?: string; outcome?: string; cache?: string });
    if (line !== '' && record.method !== 'resources/read') check.otherRecords += 1;
    if (record.method !== 'resources/read') continue;
    check.readRecords += 1;
    const status = record.cache ?? '(none)';
    check.cacheStatus[status] = (check.cacheStatus[status] ?? 0) + 1;
    if (record.outcome !== 'ok') check.errors += 1;
  }
  if (check.readRecords !== readsIssued || check.cacheStatus.miss !== readsIssued || check.errors > 0) {
    throw new Error(
      `plugins/stack: the ${path} gateway's audit log has ${check.readRecords} resources/read records ` +
        `(cache status ${JSON.stringify(check.cacheStatus)}, ${check.errors} errors) for ` +
        `${readsIssued} reads issued; expected one 'miss' record per read`,
    );
  }
  return check;
}

/** b. The four-plugin stack on cache misses vs a bare gateway, both in front of a 0 ms upstream. */
export function runStackBenchmark(config: Sizes['plugins']['stack'], log: Log, options: RunOptions = {}) {
  return Scope.with(async (scope) => {
    const up = await scope.upstream({
      name: 'a',
      resources: config.resources,
      payloadBytes: config.payloadBytes,
    });
    const plugins: Record<StackPath, PluginEntry[]> = {
      bare: [],
      stack: stackPlugins(up.name, config.cacheMaxBytes, true),
      'stack-incoherent': stackPlugins(up.name, config.cacheMaxBytes, false),
    };
    const gateways = await scope.pluginGateways([up], plugins, options);
    const urls = Object.entries(gateways).map(([path, gateway]) => `${path} ${gateway.url}`);
    log(`plugins/stack: upstream ${up.url}, gateways ${urls.join(', ')}`);
    const direct = await scope.client(up.url, 'bench-direct', options);
    const paths = await gatewayReadPaths(
      gateways,
      (gateway, path) => scope.client(gateway.url, `bench-${path}`, options),
      async (client) =>
        (await checkedListing('resources', direct, client, up.name, config.resources)).exposed,
      1,
    );
    // How many entries the cache can hold: an entry's size is the JSON of the result.
    const sample = await direct.request(
      { method: 'resources/read', params: { uri: `test://${up.name}/r/0` } },
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
    log(`plugins/stack: cache ≈ ${cacheCapacityEntries} entries of ${entryBytes} B: every read misses`);

    const levels = await measureReadPaths({
      what: 'plugins/stack',
      paths,
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
    const audit = [];
    for (const path of ['stack', 'stack-incoherent'] as const) {
      const issued = levels
        .flatMap((l) => l.rounds)
        .reduce((n, r) => (r.path === path ? n + r.readsIssued : n), 0);
      audit.push(await checkAudit(path, join(gateways[path].dir, AUDIT_FILE), issued));
    }
    return {
      config,
      entryBytes,
      cacheCapacityEntries,
      plugins,
      levels,
      audit,
      upstreamSubscriptionsHeld: (await counters(up)()).held,
      gatewayWarnings: warningsOf(gateways),
    };
  });
}

export function renderStack(stack: Awaited<ReturnType<typeof runStackBenchmark>>): string[] {
  const c = stack.config;
  const audit = stack.audit
    .map(
      (a) =>
        `${STACK_LABELS[a.path]}: ${int.format(a.readRecords)} read records / ${int.format(a.readsIssued)} reads, ` +
        JSON.stringify(a.cacheStatus),
    )
    .join('; ');
  return comparedSection(
    [
      `3b. Plugin stack on cache misses vs a bare gateway — 1 testkit upstream (${c.resources} resources, ` +
        `${c.payloadBytes} B payload, 0 ms)`,
      '   stack (outermost first): audit (fsync interval) → rate-limit (limits far above the load) → access ' +
        `(allow + 1 deny rule matching nothing) → cache (maxBytes ${int.format(c.cacheMaxBytes)} ≈ ` +
        `${stack.cacheCapacityEntries} entries of ~${int.format(stack.entryBytes)} B; reads round-robin, so every read misses)`,
    ],
    planLine('reads', c.levels, c.rounds),
    stack.levels,
    {
      paths: Object.entries(STACK_LABELS).map(([path, label]) => ({ path, label })),
      pairLabel: (vs) => `${STACK_LABELS[vs.path as StackPath].replace('stack, ', '')}/bare`,
      columns: [
        ['subs/read', 'r', (run) => (run.upstreamSubscribes / run.readsIssued).toFixed(2)],
        ['rss MiB', 'r', (run) => run.gatewayRssMiB?.toFixed(0) ?? 'n/a'],
      ],
    },
    [
      '   subs/read: upstream resources/subscribe calls per read; rss: gateway RSS after the round (README, 3b).',
      `   checked: the upstream served exactly one resources/read per read issued on every path and round; audit ` +
        `logs: ${audit}; upstream subscriptions still held at the end: ${stack.upstreamSubscriptionsHeld} ` +
        `(cached entries ≤ ~${stack.cacheCapacityEntries}, plus lingering watches of recently evicted URIs).`,
    ],
  );
}
