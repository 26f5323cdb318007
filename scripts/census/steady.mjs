// Gateway CPU per request at steady state, against the floor proxy, in the same rounds: one stdio testkit
// upstream behind each gateway checkout given (`--root`, repeatable: before and after) and behind the
// bench's floor proxy; a 2025-11-25 session (declaring `--capabilities`, e.g. roots,sampling) and
// 2026-07-28 requests; each side warmed up, then rounds interleaved (order mirrored every other round);
// CPU of each middle process from /proc. Measurement only: the bench's paths section is the full matrix.
//
//   node scripts/census/steady.mjs [--root <checkout with built dist/>]... [--requests N] [--rounds R]
//                                  [--warmup W] [--capabilities roots,sampling]
import { spawn } from 'node:child_process';
import { resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { KIT_ARGS } from './upstream.mjs';

const args = process.argv.slice(2);
const all = (name) => args.flatMap((a, i) => (a === name ? [args[i + 1]] : []));
const option = (name, fallback) => all(name).at(-1) ?? fallback;
const here = fileURLToPath(new URL('../..', import.meta.url));
const roots = (all('--root').length > 0 ? all('--root') : [here]).map((r) => resolve(r));
const N = Number(option('--requests', '1500'));
const ROUNDS = Number(option('--rounds', '5'));
const WARMUP = Number(option('--warmup', '3000'));
const capabilities = Object.fromEntries(
  option('--capabilities', '')
    .split(',')
    .filter(Boolean)
    .map((c) => [c, {}]),
);

const { launchGateway, LegacyHttpClient, ModernHttpClient, testkitCliPath } = await import(
  `${here}/packages/testkit/dist/mcp/index.js`
);
const { cpuTimeMs } = await import(`${here}/packages/testkit/dist/process.js`);
const kit = [testkitCliPath(), ...KIT_ARGS];

const floor = spawn(
  process.execPath,
  [`${here}/apps/bench/dist/paths/floor-proxy.js`, 'stdio', process.execPath, ...kit],
  {
    stdio: ['ignore', 'pipe', 'ignore'],
  },
);
const gateways = [];
try {
  const port = await new Promise((resolvePort, reject) => {
    const timer = setTimeout(() => reject(new Error('the floor proxy did not start')), 20_000);
    floor.stdout.on('data', (d) => {
      const m = /listening (\d+)/.exec(String(d));
      if (m) resolvePort(m[1], clearTimeout(timer));
    });
  });
  const legacy = (url) => LegacyHttpClient.open(url, { capabilities });
  const sides = [
    {
      name: 'floor',
      pid: floor.pid,
      legacy: await legacy(`http://127.0.0.1:${port}/mcp`),
      uri: 'test://kit/r/1',
      tool: 'tool_0',
    },
  ];
  for (const root of roots) {
    const gw = await launchGateway({
      cli: `${root}/apps/gateway/dist/cli.js`,
      config: { mcpServers: { kit: { command: process.execPath, args: kit } } },
    });
    gateways.push(gw);
    sides.push({
      name: root,
      pid: gw.proc.pid,
      legacy: await legacy(gw.url),
      modern: new ModernHttpClient(gw.url),
      uri: 'kit+test://kit/r/1',
      tool: 'kit__tool_0',
    });
  }
  console.log(
    `steady state: ${WARMUP} warm-up, ${ROUNDS} rounds × ${N} requests, c=1; gateway CPU ms/request (median of rounds)`,
  );
  for (const [era, method] of [
    ['legacy', 'read'],
    ['legacy', 'call'],
    ['modern', 'read'],
    ['modern', 'call'],
  ]) {
    const here = sides.filter((s) => s[era]);
    const message = (s) =>
      method === 'read'
        ? { method: 'resources/read', params: { uri: s.uri } }
        : { method: 'tools/call', params: { name: s.tool, arguments: { text: 'x'.repeat(64) } } };
    for (const s of here) {
      s.cpu = [];
      for (let i = 0; i < WARMUP; i++) await s[era].request(message(s));
    }
    for (let r = 0; r < ROUNDS; r++) {
      for (const s of r % 2 ? [...here].reverse() : here) {
        const before = cpuTimeMs(s.pid);
        for (let i = 0; i < N; i++) await s[era].request(message(s));
        s.cpu.push((cpuTimeMs(s.pid) - before) / N);
      }
    }
    const median = (xs) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)].toFixed(3);
    console.log(
      `${era === 'legacy' ? '2025-11-25' : '2026-07-28'} ${method}: ${here.map((s) => `${s.name} ${median(s.cpu)}`).join(' | ')}`,
    );
  }
  for (const s of sides) {
    await s.legacy.close().catch(() => {});
    await s.modern?.close().catch(() => {});
  }
} finally {
  for (const gw of gateways) await gw.stop();
  floor.kill();
}
