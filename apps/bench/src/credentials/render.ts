/** The credentials section of the table (10a in process, 10b end to end). */
import { comparedTable, int, intOrNa, signed, table } from '../report/format.js';
import type { E2eGateway } from './e2e.js';
import type { CredentialsResult } from './index.js';
import type { KeeperLevel } from './keeper.js';

const us = (ms: number): string => (ms * 1000).toFixed(1);
const load = (l: number[]): string => l.map((v) => v.toFixed(2)).join(' ');

function keeperRows(levels: readonly KeeperLevel[]): string[][] {
  return levels.map(({ store, op, concurrency, median: m }) => [
    store,
    op,
    String(concurrency),
    int.format(m.rps),
    us(m.p50),
    us(m.p99),
    m.cpuUsPerCall.toFixed(1),
    m.redisCpuUsPerCall === undefined ? '-' : m.redisCpuUsPerCall.toFixed(1),
  ]);
}

/** What the vault adds over the store's own read, per store and concurrency (token − store.get). */
function vaultOverStore(levels: readonly KeeperLevel[]): string[] {
  const out: string[] = [];
  for (const token of levels.filter((l) => l.op === 'token')) {
    const get = levels.find(
      (l) => l.op === 'store.get' && l.store === token.store && l.concurrency === token.concurrency,
    );
    if (!get) continue;
    out.push(
      `   ${token.store} c=${token.concurrency}: token() − store.get = ${signed((token.median.p50 - get.median.p50) * 1000, 1)} µs p50, ` +
        `${signed(token.median.cpuUsPerCall - get.median.cpuUsPerCall, 1)} µs CPU per call`,
    );
  }
  return out;
}

/** 10b's table of one gateway: the static and vault paths per concurrency, vault compared with static. */
function e2eTable(gw: E2eGateway): string[] {
  return [
    `   ${gw.store}: ${gw.runner}`,
    ...comparedTable(gw.levels, {
      paths: [
        { path: 'static', label: '(a) static header' },
        { path: 'vault', label: '(b) auth.user, vault' },
      ],
      pairLabel: () => '(b)/(a)',
      columns: [
        {
          header: 'cpu redis',
          cell: (run) => (run.cpuUsPerRead.redis === undefined ? '-' : intOrNa(run.cpuUsPerRead.redis)),
        },
        { header: 'redis cmd/call', cell: (run) => run.redisCommandsPerCall?.toFixed(2) ?? '-' },
      ],
      unit: 'call',
    }),
  ];
}

/** The gateways' WARN/ERROR lines while measuring (digits masked), most frequent first. */
function warningLines(gateways: readonly E2eGateway[]): string[] {
  const out: string[] = [];
  for (const gw of gateways) {
    const kinds = Object.entries(gw.gatewayWarnings).sort((a, b) => b[1] - a[1]);
    if (kinds.length === 0) continue;
    out.push(`   gateway (${gw.store}) stderr: ${kinds.reduce((n, [, k]) => n + k, 0)} warning line(s):`);
    for (const [kind, n] of kinds.slice(0, 5))
      out.push(`     ${int.format(n).padStart(6)} × ${kind.slice(0, 140)}`);
  }
  return out;
}

export function renderCredentials(result: CredentialsResult): string[] {
  const k = result.config.keeper;
  const e = result.config.e2e;
  const calls = Object.entries(k.calls)
    .map(([store, c]) => `${store} ${int.format(c.calls)} after ${int.format(c.warmup)} warm-up`)
    .join(', ');
  const levels = e.levels
    .map((l) => `c=${l.concurrency}: ${int.format(l.calls)} after ${int.format(l.warmup)} warm-up`)
    .join('; ');
  const calledUpstream = result.e2e
    .map(
      (gw) => `${gw.store}: ${int.format(gw.upstreamCalls.served)} of ${int.format(gw.upstreamCalls.issued)}`,
    )
    .join(', ');
  return [
    '10. Personal upstream credentials (DESIGN §14): the vault per call, memory store and Redis',
    `   grant: a ${result.accessTokenChars}-char JWT-shaped access token + refresh token, sealed (AES-256-GCM), valid 1 h (no refresh)`,
    result.redisSkipped
      ? `   Redis: SKIPPED (${result.redisSkipped}); memory store only`
      : '   Redis: a redis-server on an ephemeral port, started and stopped by the section',
    '',
    `10a. in process: TokenKeeper.token(identity, upstream) vs the store's raw get of the sealed grant`,
    `   calls per round: ${calls}; ${k.rounds} round(s), median round (by calls/s) shown`,
    table(
      ['store', 'op', 'conc', 'calls/s', 'p50 µs', 'p99 µs', 'cpu µs/call', 'redis cpu µs'],
      keeperRows(result.keeper),
      'llrrrrrr',
    ),
    ...vaultOverStore(result.keeper),
    '',
    `10b. tools/call through a gateway to an upstream checking bearer tokens (${e.tools} echo tools, ${e.argumentBytes} B argument)`,
    "   (a) server with a static headers.Authorization; (b) the same upstream as auth.user, the caller's token from the vault",
    `   ${int.format(e.prewarm)} calls of each path first, then per round ${levels}; ${e.rounds} alternated ` +
      'round(s) per path, median round (by req/s) shown',
    "   client: one legacy session of plain POSTs (testkit/mcp LegacyHttpClient) with the caller's bearer token",
    ...result.e2e.flatMap(e2eTable),
    '   redis cmd/call counts warm-up calls too.',
    `   checked: every answer echoed its tool and arguments; the upstream (which answers 401 to any other token) ` +
      `served one tools/call per call issued (${calledUpstream}).`,
    ...warningLines(result.e2e),
    `   load average: start ${load(result.loadavg.start)}, after 10a ${load(result.loadavg.keeper)}, end ${load(result.loadavg.end)}`,
    '',
  ];
}
