// Runs the suite against one URL (every applicable scenario in one process, or one scenario) and reduces
// each scenario's checks.json to a verdict.
import { mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import { runProcess } from '@switchyard/testkit/process';

/** Longest one scenario may take alone (the 0.2 suite's own per-scenario timeout is 30 s). */
const SCENARIO_TIMEOUT_MS = 90_000;
/** Longest a whole-suite process may take; what it did not finish is re-run one scenario at a time. */
const SUITE_TIMEOUT_MS = 300_000;

/** `-o` writes one `server-<scenario>-<ISO timestamp>/checks.json` per scenario. */
function readResults(outDir) {
  const results = new Map();
  for (const entry of readdirSync(outDir, { withFileTypes: true })) {
    const match = /^server-(.+)-\d{4}-\d{2}-\d{2}T[\d-]+Z$/.exec(entry.name);
    if (!entry.isDirectory() || !match) continue;
    try {
      results.set(match[1], JSON.parse(readFileSync(join(outDir, entry.name, 'checks.json'), 'utf8')));
    } catch {
      // an unreadable result counts as none
    }
  }
  return results;
}

/** The verdict of one scenario's checks: `pass` when none is a FAILURE. */
export function verdict(checks) {
  const counted = checks.filter((c) => c.status === 'SUCCESS' || c.status === 'FAILURE');
  const failures = checks
    .filter((c) => c.status === 'FAILURE')
    .map((c) => ({ id: c.id, name: c.name, message: c.errorMessage ?? c.description ?? '' }));
  return {
    status: failures.length === 0 ? 'pass' : 'fail',
    passed: counted.filter((c) => c.status === 'SUCCESS').length,
    total: counted.length,
    warnings: checks.filter((c) => c.status === 'WARNING').length,
    skipped: checks.filter((c) => c.status === 'SKIPPED').length,
    failures,
    succeeded: new Set(checks.filter((c) => c.status === 'SUCCESS').map((c) => c.id)),
    skippedIds: new Set(checks.filter((c) => c.status === 'SKIPPED').map((c) => c.id)),
  };
}

/**
 * The gateway's verdict, failed for every check that succeeds directly but is SKIPPED through the gateway:
 * a scenario that skips what the gateway does not expose (an extension it does not declare) would
 * otherwise pass vacuously.
 */
export function withHiddenChecks(direct, gateway) {
  if (direct?.succeeded === undefined || gateway?.skippedIds === undefined) return gateway;
  const hidden = [...gateway.skippedIds].filter((id) => direct.succeeded.has(id));
  if (hidden.length === 0) return gateway;
  const failures = [
    ...gateway.failures,
    ...hidden.map((id) => ({ id, name: id, message: 'SKIPPED through the gateway, SUCCESS directly' })),
  ];
  return { ...gateway, status: 'fail', failures };
}

/** A failed verdict for a scenario that produced no checks.json. */
export function noResult(why) {
  return {
    status: 'fail',
    passed: 0,
    total: 0,
    warnings: 0,
    skipped: 0,
    failures: [{ id: '<no result>', name: 'NoResult', message: why }],
  };
}

/** The last three lines the process printed (either stream), on one line. */
function tail(proc) {
  const lines = proc.tail().slice(-3).join(' | ');
  return lines.length > 300 ? `…${lines.slice(-300)}` : lines;
}

/**
 * Runs the suite's server command against `url`: every scenario applicable at `specVersion` (`--suite
 * all`) in one process, which costs one Node start and one schema compile instead of one per scenario,
 * or only `scenario` (`force`: even outside its revisions, as extensions are). Resolves with a Map scenario
 * → verdict (`skipped` when the suite declared a single scenario inapplicable), plus what the process
 * printed last when something went wrong.
 */
export async function runSuite({ node, suiteCli, url, specVersion, scenario, force, workDir }) {
  const outDir = mkdtempSync(join(workDir, 'run-'));
  const args = [suiteCli, 'server', '--url', url, '-o', outDir];
  args.push(...(scenario === undefined ? ['--suite', 'all'] : ['--scenario', scenario]));
  if (specVersion !== undefined) args.push('--spec-version', specVersion);
  if (force) args.push('--force');
  const timeoutMs = scenario === undefined ? SUITE_TIMEOUT_MS : SCENARIO_TIMEOUT_MS;
  const { status, timedOut, proc } = await runProcess({
    name: `conformance suite (${scenario ?? 'all scenarios'})`,
    command: node,
    args,
    keepChars: 50_000,
    timeoutMs,
    stopGraceMs: 0,
  });
  const results = new Map();
  for (const [name, checks] of readResults(outDir)) results.set(name, verdict(checks));
  rmSync(outDir, { recursive: true, force: true });
  if (scenario !== undefined && /^SKIPPED: /m.test(proc.stdout())) {
    results.set(scenario, { status: 'skipped', passed: 0, total: 0, warnings: 0, skipped: 0, failures: [] });
  }
  const why = timedOut
    ? `the suite was killed after ${timeoutMs / 1000} s`
    : `the suite exited ${status} without a result; last output: ${tail(proc)}`;
  if (scenario !== undefined && !results.has(scenario)) results.set(scenario, noResult(why));
  return { results, why };
}
