/**
 * Switchyard chaos/soak harness (`pnpm soak`): mixed traffic from many client sessions of both protocol
 * eras through one gateway process, while its upstreams are SIGKILLed and restarted, SIGSTOPped and
 * resumed, and its config file is rewritten (live reloads). It reports over time the gateway's RSS and the
 * requests answered, failed and lost, and at the end whether errors stayed on the upstream under fault,
 * every subscription came back after every fault, and the RSS stayed flat (exit 1 if not).
 *
 * Upstreams: alpha (legacy, HTTP), beta (modern 2026-07-28, HTTP), gamma (legacy, HTTP), delta (stdio,
 * spawned by the gateway), and a spare that reloads add and remove. All are testkit servers with 20
 * resources, 3 tools and 2 prompts. See chaos.ts for the fault cycle and verdict.ts for the checks.
 */
import { writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { rssMiB } from '@switchyard/testkit/process';
import { parseSoakArgs, type SoakArgs, USAGE } from './args.js';
import { Chaos } from './chaos.js';
import { children } from './children.js';
import { type ConfigState, MAX_RESULT_BYTES, renderConfig } from './config.js';
import { FaultTimeline } from './faults.js';
import { type RunningGateway, startGateway, waitForStatus } from './gateway.js';
import { Ledger } from './ledger.js';
import { UpdatePulse } from './pulse.js';
import { ConfigReloads } from './reload.js';
import { ProgressLine, renderSummary, type Summary } from './report.js';
import { RssSampler } from './rss.js';
import { Traffic } from './traffic.js';
import { HttpUpstream, type SoakUpstream, StdioUpstream } from './upstreams.js';
import { breakdown, judge } from './verdict.js';

function log(message: string): void {
  process.stderr.write(`[soak] ${message}\n`);
}

const sleep = (ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms));

let upstreams: SoakUpstream[] = [];

async function setUp(gatewayLog: string | undefined): Promise<{
  gateway: RunningGateway;
  base: SoakUpstream[];
  spare: SoakUpstream;
  wild: SoakUpstream;
  reloads: ConfigReloads;
}> {
  const dir = await children.scratchDir('switchyard-soak-');
  const [alpha, beta, gamma, spare, wild] = await Promise.all([
    HttpUpstream.start('alpha', 'legacy'),
    HttpUpstream.start('beta', 'modern'),
    HttpUpstream.start('gamma', 'legacy'),
    HttpUpstream.start('spare', 'legacy'),
    HttpUpstream.startWild('wild'),
  ]);
  let gateway: RunningGateway | undefined;
  const delta = new StdioUpstream('delta', dir, () => gateway?.proc.pid);
  const base: SoakUpstream[] = [alpha, beta, gamma, delta];
  upstreams = [...base, spare, wild];
  const state: ConfigState = {
    // The misbehaving upstream is never under fault: whatever it does must cost it nothing but the
    // requests it spoils, and cost the others nothing at all.
    upstreams: [...base, wild],
    idleSessionMs: 1_800_000,
    timeoutBump: {},
    audit: { file: join(dir, 'audit.jsonl'), arguments: false },
  };
  const started = await startGateway(renderConfig(state), gatewayLog);
  gateway = started;
  const ready = await waitForStatus(
    gateway,
    (s) => [...base, wild].every((u) => s.upstreams.some((x) => x.name === u.name && x.state === 'ready')),
    30_000,
  );
  if (ready === undefined)
    throw new Error(`not every upstream connected: ${JSON.stringify((await gateway.status()).upstreams)}`);
  log(
    `gateway ${gateway.url} (admin ${gateway.adminUrl}, pid ${gateway.proc.pid}); upstreams ${base.map((u) => `${u.name}:${u.transport}/${u.era}`).join(' ')}`,
  );
  return {
    gateway,
    base,
    spare,
    wild,
    reloads: new ConfigReloads(started.configFile, state, gateway, spare),
  };
}

async function afterClose(
  gateway: RunningGateway,
): Promise<{ sessions: number; subscriptions: number } | undefined> {
  await waitForStatus(gateway, (s) => s.sessions.total <= 1 && s.subscriptions === 0, 10_000);
  const s = await gateway.status().catch(() => undefined);
  return s && { sessions: s.sessions.total, subscriptions: s.subscriptions };
}

async function run(args: SoakArgs): Promise<boolean> {
  const { gateway, base, spare, wild, reloads } = await setUp(args.gatewayLog);
  const durationMs = args.durationS * 1000;
  const ledger = new Ledger(args.requestTimeoutMs);
  const timeline = new FaultTimeline();
  const targets = base.map((u) => u.name);
  const traffic = new Traffic({
    url: gateway.url,
    sessions: args.sessions,
    thinkMs: args.thinkMs,
    ledger,
    watched: base.map((u) => ({ upstream: u.name, uri: `${u.name}+${u.watchedUri}` })),
    upstreams: () => targets,
    wild: { name: wild.name, maxResultBytes: MAX_RESULT_BYTES },
  });
  const runStart = Date.now();
  const endAt = runStart + durationMs;
  const rss = new RssSampler(gateway.proc.pid, runStart);
  const chaos = new Chaos({
    base,
    gateway,
    reloads,
    timeline,
    sessions: () => traffic.live,
    targets,
    spare,
    runStart,
  });
  const pulse = new UpdatePulse(base, timeline);
  const progress = new ProgressLine();
  const report = () =>
    log(
      progress
        .render({
          elapsedS: (Date.now() - runStart) / 1000,
          rssMiB: rss.latest,
          ledger,
          sessions: traffic.live.size,
          updates: traffic.updates,
          fault: timeline.current?.label,
        })
        .replace(/^\[soak\] /, ''),
    );
  rss.start();
  traffic.start();
  pulse.start();
  const ticker = setInterval(report, args.reportEveryS * 1000);
  try {
    const chaosDone = sleep(Math.max(5_000, durationMs * 0.05)).then(() => chaos.run(endAt));
    await Promise.race([Promise.all([chaosDone, sleep(durationMs)]), gateway.crashed]);
  } finally {
    chaos.stop();
    pulse.stop();
    clearInterval(ticker);
  }
  report();
  rss.stop();
  log('stopping traffic (requests in flight get their answer or time out)');
  await Promise.race([traffic.stop(), gateway.crashed]);
  const released = await afterClose(gateway);
  const input = {
    ledger,
    timeline,
    steps: chaos.steps,
    rss: rss.figures(durationMs),
    connectFailures: traffic.connectFailures.length,
    listenDrops: traffic.listenDrops,
    afterClose: released,
    connects: gateway.connects,
    wild: wild.name,
    runStart,
  };
  const errors = breakdown(input);
  const checks = judge(input, errors);
  const summary: Summary = {
    durationS: args.durationS,
    sessions: args.sessions,
    opened: traffic.opened,
    upstreams: [...base, spare, wild].map(
      (u) => `${u.name} (${u.transport}, ${u.era}${u === wild ? ', misbehaving' : ''})`,
    ),
    rss: input.rss,
    soakRssMiB: rssMiB(process.pid) ?? 0,
    totals: ledger.total,
    byTarget: Object.fromEntries(ledger.byTarget),
    errors,
    partialListings: ledger.partials.length,
    updates: traffic.updates,
    pulses: pulse.emitted,
    listenDrops: traffic.listenDrops,
    steps: chaos.steps,
    gatewayWarnings: Object.fromEntries(gateway.warnings),
    connects: Object.fromEntries(gateway.connects),
    checks,
    passed: checks.every((c) => c.ok || c.advisory),
  };
  process.stdout.write(`\n${renderSummary(summary)}\n`);
  if (args.json) {
    const json = {
      ...summary,
      rssSamples: rss.samples,
      connectFailures: traffic.connectFailures.slice(0, 20),
    };
    await writeFile(args.json, `${JSON.stringify(json, null, 2)}\n`, 'utf8');
    log(`figures written to ${args.json}`);
  }
  return summary.passed;
}

async function main(): Promise<number> {
  let args: SoakArgs;
  try {
    args = parseSoakArgs();
  } catch (error) {
    process.stderr.write(`${error instanceof Error ? error.message : String(error)}\n${USAGE}\n`);
    return 2;
  }
  if (args.help) {
    process.stderr.write(`${USAGE}\n`);
    return 0;
  }
  const resumeAll = () => {
    for (const u of upstreams) u.ensureRunning();
  };
  let interrupted = false;
  for (const signal of ['SIGINT', 'SIGTERM'] as const) {
    process.once(signal, () => {
      interrupted = true;
      process.stderr.write(`\n[soak] ${signal}: stopping ${children.size} child process(es)\n`);
      resumeAll();
      void children.stopAll().finally(() => process.exit(signal === 'SIGINT' ? 130 : 143));
    });
  }
  try {
    return (await run(args)) ? 0 : 1;
  } catch (error) {
    // After SIGINT/SIGTERM the children are being stopped: what fails then is a consequence, not news.
    if (interrupted) return 130;
    log(`failed: ${error instanceof Error ? (error.stack ?? error.message) : String(error)}`);
    return 1;
  } finally {
    resumeAll();
    await children.stopAll();
  }
}

main().then(
  (code) => process.exit(code),
  (error: unknown) => {
    process.stderr.write(`[soak] fatal: ${String(error)}\n`);
    process.exit(1);
  },
);
