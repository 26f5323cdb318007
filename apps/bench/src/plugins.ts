/**
 * Section 3, what the first-party plugins buy and cost (README.md, section 3):
 * a. cache hits through a gateway with `@switchyard/plugin-cache` vs direct reads of a slow upstream; the
 *    upstream must serve no read at all during a gateway round;
 * b. audit → rate-limit → access → cache (coherent, then `coherent: false`) on cache misses vs a bare
 *    gateway; the upstream serves one read per read, and the audit files hold one `miss` record per read;
 * c. each governance plugin alone (secrets, pin, approve, access) per tool call vs a bare gateway, on
 *    ~1 KiB and ~1 MiB results; every answer the unredacted echo, one upstream call per call.
 */
import { readFile } from 'node:fs/promises';
import { availableParallelism, loadavg } from 'node:os';
import { join } from 'node:path';
import type { Client } from '@modelcontextprotocol/client';
import {
  children,
  counters,
  type Gateway,
  type PluginEntry,
  profiledAs,
  REQUEST_OPTIONS,
  type RunOptions,
  Scope,
  warningsOf,
} from './harness.js';
import { checkedListing } from './lists.js';
import { callLoop, filler, measureCompared, oneCallEach, readLoop } from './measure.js';
import { gatewayReadPaths, measureReadPaths, type ReadPathLevel } from './read-paths.js';
import { comparedSection, int, planLine } from './report/format.js';
import type { Sizes } from './sizes.js';

type Log = (message: string) => void;

/** Subdirectories of the `--cpu-prof` directory, one per gateway of this section. */
export const PLUGIN_PROFILE_DIRS = [
  'cache-hit',
  'bare',
  'stack',
  'stack-incoherent',
  ...['bare', 'secrets', 'pin', 'approve', 'access'].map((p) => `governance-${p}`),
];

/**
 * The most hits per second this box can serve at one concurrency: each hit costs the client and the
 * gateway CPU (median round), so `cores` give at most `cores × 1e6 ÷ (client + gateway µs)` reads per
 * second; `ratio` is that ÷ the direct path's req/s.
 */
function hitCeiling(level: ReadPathLevel) {
  const { cache: hit, direct } = level.medians;
  const gatewayUs = hit?.cpuUsPerRead.gateway;
  if (!hit || !direct || gatewayUs === undefined) return [];
  const cores = availableParallelism();
  const rps = (cores * 1e6) / (hit.cpuUsPerRead.client + gatewayUs);
  const clientUs = hit.cpuUsPerRead.client;
  return [{ concurrency: level.concurrency, cores, clientUs, gatewayUs, rps, ratio: rps / direct.rps }];
}

/** a. Cache hits through the gateway vs reads straight from a slow upstream. */
export function runCacheHitBenchmark(config: Sizes['plugins']['hit'], log: Log, options: RunOptions = {}) {
  const plugins: PluginEntry[] = [['@switchyard/plugin-cache', {}]];
  return Scope.with(async (scope) => {
    const { resources, payloadBytes, latencyMs } = config;
    const upstream = await scope.upstream({ name: 'a', resources, payloadBytes, latencyMs });
    const gateway = await scope.gateway([upstream], profiledAs(options, 'cache-hit', plugins));
    const direct = await scope.client(upstream.url, 'bench-direct', options);
    const viaGateway = await scope.client(gateway.url, 'bench-cache', options);
    log(`plugins/cache-hit: upstream ${upstream.url} (${latencyMs} ms per read), gateway ${gateway.url}`);
    const listed = await checkedListing('resources', direct, viaGateway, upstream.name, resources);

    // Warm: every URI once through the gateway (each a miss), then once more (each must be a hit).
    const stats = counters(upstream);
    const pass = async () => {
      const before = await stats();
      await readLoop(viaGateway, listed.exposed, resources, 1, payloadBytes);
      return (await stats()).reads - before.reads;
    };
    const warmUpstreamReads = await pass();
    const rehit = await pass();
    if (warmUpstreamReads !== resources || rehit !== 0) {
      throw new Error(
        `plugins/cache-hit: reading the ${resources} URIs twice through the cache made the upstream serve ` +
          `${warmUpstreamReads} then ${rehit} resources/read (expected ${resources}, then 0)`,
      );
    }
    log(`plugins/cache-hit: warmed ${resources} URIs; a second pass was all hits`);

    const levels = await measureReadPaths({
      what: 'plugins/cache-hit',
      paths: [
        { path: 'direct', client: direct, uris: listed.items, upstreamReadsPerRead: 1 },
        {
          path: 'cache',
          client: viaGateway,
          uris: listed.exposed,
          gateways: [gateway],
          upstreamReadsPerRead: 0,
        },
      ],
      levels: config.levels,
      rounds: config.rounds,
      payloadBytes,
      upstream,
      pairs: [['cache', 'direct']],
      log,
    });
    return {
      config,
      plugins,
      warmUpstreamReads,
      levels,
      ceilings: levels.flatMap(hitCeiling),
      gatewayWarnings: Object.fromEntries(gateway.proc.warnings),
    };
  });
}

export type CacheHitResult = Awaited<ReturnType<typeof runCacheHitBenchmark>>;

export function renderCacheHit(hit: CacheHitResult): string[] {
  const c = hit.config;
  return comparedSection(
    `3a. Cache hits vs direct — 1 testkit upstream (${c.resources} resources, ${c.payloadBytes} B payload, ` +
      `${c.latencyMs} ms per read); gateway with @switchyard/plugin-cache (defaults)`,
    planLine('reads', c.levels, c.rounds),
    hit.levels,
    {
      paths: [
        { path: 'direct', label: 'direct' },
        { path: 'cache', label: 'gateway + cache (hits)' },
      ],
    },
    [
      `   checked: warming read each of the ${c.resources} URIs once upstream (${hit.warmUpstreamReads} upstream ` +
        'reads, then a second pass with none); the upstream served 0 reads during every gateway round, i.e. ' +
        'every timed gateway read was a hit.',
    ],
  );
}

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

/** The governance plugins measured, each alone on its own gateway, in the order of the table. */
const GOVERNANCE = ['secrets', 'pin', 'approve', 'access'] as const;
type GovernancePath = 'bare' | (typeof GOVERNANCE)[number];
const SERVER = 'a';
const TOOL = `${SERVER}__tool_0`;

/** The plugin entries of each gateway (the pin lock file lives in a scratch dir of this run). */
function governancePlugins(lockFile: string): Record<GovernancePath, PluginEntry[]> {
  const never = { tools: [`${SERVER}__*`], when: 'arguments.seq < 0' };
  return {
    bare: [],
    secrets: [['@switchyard/plugin-secrets', {}]],
    pin: [['@switchyard/plugin-pin', { lockFile }]],
    approve: [['@switchyard/plugin-approve', { rules: [never] }]],
    access: [['@switchyard/plugin-access', { default: 'allow', rules: [{ effect: 'deny', ...never }] }]],
  };
}

/** The tools the lock file pins for the server, waiting up to 5 s for the gateway to write it. */
async function pinnedTools(lockFile: string): Promise<string[]> {
  const deadline = Date.now() + 5000;
  for (;;) {
    try {
      const lock = JSON.parse(await readFile(lockFile, 'utf8')) as {
        servers?: Record<string, { tools?: Record<string, string> }>;
      };
      const tools = Object.keys(lock.servers?.[SERVER]?.tools ?? {});
      if (tools.length > 0) return tools;
    } catch {
      // not written yet (or mid-rename): try again
    }
    if (Date.now() > deadline)
      throw new Error(`governance bench: pin wrote no pins to ${lockFile} within 5 s`);
    await new Promise((r) => setTimeout(r, 50));
  }
}

/** c. Each governance plugin alone vs a bare gateway, one call at a time, per result size. */
export function runGovernanceBenchmark(
  config: Sizes['plugins']['governance'],
  log: Log,
  options: RunOptions = {},
) {
  const start = loadavg();
  return Scope.with(async (scope) => {
    const lockFile = join(await children.scratchDir('switchyard-bench-pin-'), 'switchyard.lock.json');
    const plugins = governancePlugins(lockFile);
    const up = await scope.upstream({ name: SERVER, resources: 0, tools: 1 });
    const stats = counters(up);
    const served = async () => (await stats()).calls;
    const calls = oneCallEach(served);
    const gateways = await scope.pluginGateways([up], plugins, options, 'governance-');
    const client = {} as Record<GovernancePath, Client>;
    const posts = {} as Record<GovernancePath, { posts: number; streamed: number }>;
    for (const [path, gateway] of Object.entries(gateways) as [GovernancePath, Gateway][]) {
      posts[path] = { posts: 0, streamed: 0 };
      client[path] = await scope.client(gateway.url, `bench-${path}`, {
        ...options,
        postCounter: posts[path],
      });
      // On the pin gateway this first listing is the trust on first use that writes the lock file.
      const listed = (await client[path].request({ method: 'tools/list', params: {} }, REQUEST_OPTIONS)) as {
        tools?: { name: string }[];
      };
      if (!listed.tools?.some((t) => t.name === TOOL)) {
        throw new Error(`governance bench: ${path}: tools/list did not list ${TOOL}`);
      }
    }
    const pinned = await pinnedTools(lockFile);
    log(`governance: pin wrote ${lockFile} pinning ${SERVER}: ${pinned.join(', ')}`);

    const sizes = [];
    for (const size of config.sizes) {
      const text = filler(Math.floor(size.resultBytes / 2) - 64);
      const sample = await client.bare.request({
        method: 'tools/call',
        params: { name: TOOL, arguments: { text, seq: 0 } },
      });
      calls.totals.issued += 1;
      const [level] = await measureCompared({
        what: `governance ${size.resultBytes} B`,
        levels: [{ concurrency: 1, warmup: size.warmup, count: size.calls }],
        rounds: config.rounds,
        log,
        pairs: GOVERNANCE.map((path) => [path, 'bare'] as const),
        variants: (Object.keys(plugins) as GovernancePath[]).map((path) => ({
          name: path,
          loop: (count: number) =>
            callLoop(client[path], { tools: [TOOL], upstreamTools: ['tool_0'] }, text, count, 1).catch(
              (error: Error) => {
                throw new Error(`governance bench: ${path}: ${error.message}`);
              },
            ),
          cpu: { upstream: up.proc, gateway: gateways[path].proc },
        })),
        counters: {
          calls,
          // Timed calls the gateway answered as an SSE stream (the SDK client's count).
          streamed: {
            read: (variant) => posts[variant.name as GovernancePath].streamed,
            timed: true,
          },
        },
        after: (_run, moved) => ({ streamedCalls: options.rawClient ? undefined : moved.streamed }),
        note: (run) => (run.streamedCalls ? `, ${run.streamedCalls} answered as streams` : ''),
      });
      sizes.push({
        ...level!,
        resultBytes: size.resultBytes,
        measuredResultBytes: Buffer.byteLength(JSON.stringify(sample)),
      });
    }
    calls.totals.served = await served();
    return {
      config,
      plugins: {
        secrets: plugins.secrets,
        pin: plugins.pin,
        approve: plugins.approve,
        access: plugins.access,
      },
      sizes,
      upstreamCalls: calls.totals,
      pinnedTools: pinned,
      loadavg: { start, end: loadavg() },
      gatewayWarnings: warningsOf(gateways),
    };
  });
}

export function renderGovernance(gov: Awaited<ReturnType<typeof runGovernanceBenchmark>>): string[] {
  const measured = gov.sizes.map((s) => `${int.format(s.measuredResultBytes)} B`).join(', ');
  const load = (l: number[]) => l.map((x) => x.toFixed(2)).join(' ');
  const sizeLabel = (b: number) => (b >= 1024 * 1024 ? `${b / 1024 / 1024} MiB` : `${b / 1024} KiB`);
  return comparedSection(
    [
      '3c. Governance plugins per tool call — 1 testkit upstream echo tool; a bare gateway vs one gateway per ' +
        'plugin (secrets, pin, approve, access: configs in README, 3c), each alone, one call at a time; ' +
        `pin trusted on first use: ${gov.pinnedTools.join(', ')}`,
    ],
    `calls per round: ${gov.config.sizes.map((s) => `${s.warmup} + ${s.calls}`).join(', ')}; ` +
      `${gov.config.rounds} rounds, paths interleaved (order rotated each round); results of ${measured} ` +
      '(the echo holds the argument twice)',
    gov.sizes,
    {
      paths: ['bare', ...GOVERNANCE].map((path) => ({
        path,
        label: path === 'bare' ? 'bare gateway' : `gateway + ${path}`,
      })),
      first: { header: 'result', cell: (size) => sizeLabel(size.resultBytes) },
      columns: [
        [
          'streamed',
          'r',
          (run) => (run.streamedCalls === undefined ? 'n/a' : `${run.streamedCalls}/${run.count}`),
        ],
      ],
    },
    [
      '   streamed: timed calls the gateway answered as an SSE stream, not JSON (README, 3c).',
      `   checked: every answer is the unredacted echo; the upstream served ${int.format(gov.upstreamCalls.served)} ` +
        `tools/call for ${int.format(gov.upstreamCalls.issued)} issued (one per call on every path and round); ` +
        `load avg ${load(gov.loadavg.start)} at the start, ${load(gov.loadavg.end)} at the end.`,
    ],
  );
}
