// Printing: one table per revision (scenario | direct | gateway), what was not run, failing checks, a summary.

const NOTES = {
  ok: '',
  gap: 'known gap',
  'gap-changed': 'GAP CHANGED: fails checks the baseline does not name',
  'gap-closed': 'gap closed: remove its entry from the gaps file',
  regression: 'REGRESSION: the gateway fails checks that do not fail directly',
  'fixture-bug': 'FIXTURE BUG: a required scenario fails directly',
  'direct-fail': 'fails directly (not required at this revision)',
  'server-fail': 'fails directly (the server itself does not pass it; not gated)',
};

/** The outcomes that make `pnpm conformance` exit non-zero. */
export const FAILING_OUTCOMES = new Set(['regression', 'gap-changed', 'fixture-bug']);

/** PASS/FAIL with the passed/total check counts, `Nw` for N warnings and `Ns` for N skipped checks. */
function cell(result) {
  if (result === undefined) return '-';
  if (result.status === 'skipped') return 'SKIPPED';
  const word = result.status === 'pass' ? 'PASS' : 'FAIL';
  const warnings = result.warnings > 0 ? ` ${result.warnings}w` : '';
  const skipped = result.skipped > 0 ? ` ${result.skipped}s` : '';
  return `${word} ${result.passed}/${result.total}${warnings}${skipped}`;
}

function clip(text, max) {
  const flat = String(text).replace(/\s+/g, ' ').trim();
  return flat.length > max ? `${flat.slice(0, max - 1)}…` : flat;
}

/** Prints the table, the not-run lines and the failing checks of one server and revision. */
export function printRevision(server, revision, plan, rows, counts) {
  const label = (r) =>
    r.required ? r.scenario : r.extension ? `${r.scenario} (extension)` : `${r.scenario} (not required)`;
  const width = Math.max(30, ...rows.map((r) => label(r).length)) + 2;
  console.log(`\n== ${server.id} ${revision.id}: ${revision.title}`);
  console.log(`  ${'scenario'.padEnd(width)}${'direct'.padEnd(16)}gateway`);
  for (const r of rows) {
    const note = NOTES[r.outcome] ? ` ${NOTES[r.outcome]}` : '';
    const line = `  ${label(r).padEnd(width)}${cell(r.direct).padEnd(16)}${cell(r.gateway).padEnd(16)}${note}`;
    console.log(line.trimEnd());
  }
  const byWhy = new Map();
  for (const n of plan.notRun) byWhy.set(n.why, [...(byWhy.get(n.why) ?? []), n.name]);
  for (const [why, names] of byWhy) console.log(`  not run: ${why}: ${names.join(', ')}`);
  const others = [];
  if (counts.clientCount > 0) others.push(`${counts.clientCount} client scenarios`);
  if (counts.authorizationCount > 0)
    others.push(`${counts.authorizationCount} authorization-server scenarios`);
  if (others.length > 0) {
    console.log(
      `  not run: ${others.join(' and ')} (they test MCP clients / OAuth authorization servers, not a server)`,
    );
  }

  const failed = rows.flatMap((r) =>
    [
      ['direct', r.direct],
      ['gateway', r.gateway],
    ]
      .filter(([, res]) => res?.status === 'fail')
      .map(([target, res]) => ({ r, target, res })),
  );
  if (failed.length > 0) {
    console.log('  failing checks:');
    for (const { r, target, res } of failed) {
      const note =
        target === 'gateway' && r.outcome !== 'regression' ? ` (${NOTES[r.outcome] || r.outcome})` : '';
      console.log(`    ${target} ${r.scenario}${note}`);
      // Checks failing with one and the same message (e.g. all skipped for one reason) share a line.
      // Through the gateway, a check that fails directly too is the server's own failure, and said so.
      const alsoDirect = new Set(target === 'gateway' ? (r.direct?.failures ?? []).map((f) => f.id) : []);
      const byMessage = new Map();
      for (const f of res.failures) {
        const message = (alsoDirect.has(f.id) ? '(fails directly too) ' : '') + clip(f.message, 220);
        const ids = byMessage.get(message) ?? new Set();
        ids.add(f.id);
        byMessage.set(message, ids);
      }
      for (const [message, ids] of byMessage) {
        if (ids.size > 2) console.log(`      - ${message} (${ids.size} checks): ${[...ids].join(', ')}`);
        else for (const id of ids) console.log(`      - ${id}: ${message}`);
      }
    }
  }
}

/** One summary line for a server and revision. */
export function summaryLine(server, revision, plan, rows) {
  const count = (pred) => rows.filter(pred).length;
  const directPass = count((r) => r.direct.status === 'pass');
  const gatewayPass = count((r) => r.gateway.status === 'pass');
  const outcome = (o) => count((r) => r.outcome === o);
  return (
    `${server.id} ${revision.id}: ${rows.length} run, ${plan.notRun.length} not run | ` +
    `direct ${directPass} pass, ${rows.length - directPass} fail | ` +
    `gateway ${gatewayPass} pass, ${rows.length - gatewayPass} fail ` +
    `(${outcome('gap')} known gaps, ${outcome('regression')} regressions, ${outcome('gap-changed')} changed gaps, ` +
    `${outcome('gap-closed')} closed gaps, ` +
    (server.gateDirect
      ? `${outcome('fixture-bug')} fixture bugs)`
      : `${outcome('server-fail')} fail directly)`)
  );
}
