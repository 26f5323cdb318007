/** The credentials section of the table (10a in process, 10b end to end). */
import { comparedLegend, comparedTable, int, intOrNa, signed } from '../report/format.js';
import type { E2eGateway } from './e2e.js';
import type { CredentialsResult } from './index.js';
import type { KeeperStore } from './keeper.js';

const load = (l: number[]): string => l.map((v) => v.toFixed(2)).join(' ');

/** 10a's table of one store: the raw read and the keeper's answer per concurrency, token compared with store.get. */
function keeperTable({ store, levels }: KeeperStore): string[] {
  const vaultAdds = levels.map((level) => {
    const { token, 'store.get': get } = level.medians;
    const cpu = token && get ? signed(token.cpuUsPerRead.client - get.cpuUsPerRead.client, 1) : 'n/a';
    return `c=${level.concurrency} ${cpu} µs`;
  });
  return [
    `   ${store} store:`,
    comparedTable(levels, {
      paths: [
        { path: 'store.get', label: 'store.get' },
        { path: 'token', label: 'token()' },
      ],
      columns: [
        [
          'cpu redis',
          'r',
          (run) => (run.cpuUsPerRead.redis === undefined ? '-' : intOrNa(run.cpuUsPerRead.redis)),
        ],
      ],
    }),
    `   CPU per call the vault adds over the store (token() − store.get, this process): ${vaultAdds.join(', ')}`,
  ];
}

/** 10b's table of one gateway: the static and vault paths per concurrency, vault compared with static. */
function e2eTable(gw: E2eGateway): string[] {
  return [
    `   ${gw.store}: ${gw.runner}`,
    comparedTable(gw.levels, {
      paths: [
        { path: 'static', label: '(a) static header' },
        { path: 'vault', label: '(b) auth.user, vault' },
      ],
      pairLabel: () => '(b)/(a)',
      columns: [
        [
          'cpu redis',
          'r',
          (run) => (run.cpuUsPerRead.redis === undefined ? '-' : intOrNa(run.cpuUsPerRead.redis)),
        ],
        ['redis cmd/call', 'r', (run) => run.redisCommandsPerCall?.toFixed(2) ?? '-'],
      ],
    }),
  ];
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
    ...result.keeper.flatMap(keeperTable),
    ...comparedLegend(),
    '',
    `10b. tools/call through a gateway to an upstream checking bearer tokens (${e.tools} echo tools, ${e.argumentBytes} B argument)`,
    "   (a) server with a static headers.Authorization; (b) the same upstream as auth.user, the caller's token from the vault",
    `   ${int.format(e.prewarm)} calls of each path first, then per round ${levels}; ${e.rounds} alternated ` +
      'round(s) per path, median round (by req/s) shown',
    "   client: one legacy session of plain POSTs (testkit/mcp LegacyHttpClient) with the caller's bearer token",
    ...result.e2e.flatMap(e2eTable),
    ...comparedLegend(),
    '   redis cmd/call counts warm-up calls too.',
    `   checked: every answer echoed its tool and arguments; the upstream (which answers 401 to any other token) ` +
      `served one tools/call per call issued (${calledUpstream}).`,
    `   load average: start ${load(result.loadavg.start)}, after 10a ${load(result.loadavg.keeper)}, end ${load(result.loadavg.end)}`,
    '',
  ];
}
