// The gateway-gaps baseline: scenarios a correct server passes but the gateway does not (yet).
import { readFileSync, writeFileSync } from 'node:fs';

const key = (revision, scenario) => `${revision} ${scenario}`;

/** Reads and checks the baseline; returns a Map `"revision scenario"` → entry. */
export function loadGaps(file, revisionIds) {
  const json = JSON.parse(readFileSync(file, 'utf8'));
  if (!Array.isArray(json.gaps)) throw new Error(`${file}: "gaps" must be an array`);
  const gaps = new Map();
  json.gaps.forEach((entry, i) => {
    const where = `${file}: gaps[${i}]`;
    if (typeof entry.scenario !== 'string') throw new Error(`${where}.scenario must be a string`);
    if (!revisionIds.includes(entry.revision)) {
      throw new Error(
        `${where}.revision must be one of ${revisionIds.join(', ')}, got ${JSON.stringify(entry.revision)}`,
      );
    }
    if (typeof entry.reason !== 'string' || entry.reason.trim() === '')
      throw new Error(`${where}.reason is required`);
    if (!Array.isArray(entry.failingChecks) || entry.failingChecks.length === 0) {
      throw new Error(`${where}.failingChecks must list the check ids that fail`);
    }
    if (gaps.has(key(entry.revision, entry.scenario))) throw new Error(`${where} repeats ${entry.scenario}`);
    gaps.set(key(entry.revision, entry.scenario), entry);
  });
  return { comment: json.$comment, gaps };
}

export function gapFor(gaps, revision, scenario) {
  return gaps.get(key(revision, scenario));
}

/**
 * The gateway's own failures in one scenario: the checks failing through the gateway that do not fail
 * directly. All of them when the scenario passes directly; when the server itself fails some checks, the
 * gateway is still held to the others.
 */
export function gatewayFailures({ direct, gateway }) {
  if (gateway?.status !== 'fail') return [];
  const failedDirectly = new Set((direct?.failures ?? []).map((f) => f.id));
  return gateway.failures.filter((f) => !failedDirectly.has(f.id));
}

/**
 * Judges one scenario at one revision:
 * - `fixture-bug` — a required scenario fails directly against the fixture (fails the run);
 * - `regression` — the gateway fails checks that do not fail directly, not in the baseline (fails the run);
 * - `gap-changed` — in the baseline, but failing checks the baseline does not name (fails the run);
 * - `gap` — a known gap, failing only the named checks;
 * - `gap-closed` — in the baseline but now passing (remove the entry; not said of entries marked `flaky`);
 * - `direct-fail` — a not-required one fails directly, and the gateway fails nothing more (reported only);
 * - `server-fail` — the same for a server we did not write (`gateDirect: false`), required or not;
 * - `ok`.
 */
export function judge({ direct, gateway, gap, required, gateDirect = true }) {
  if (direct.status === 'fail' && gateDirect && required) return 'fixture-bug';
  const own = gatewayFailures({ direct, gateway });
  if (own.length === 0) {
    if (gap && !gap.flaky) return 'gap-closed';
    if (direct.status === 'fail') return gateDirect ? 'direct-fail' : 'server-fail';
    return 'ok';
  }
  if (!gap) return 'regression';
  const allowed = new Set(gap.failingChecks);
  return own.every((f) => allowed.has(f.id)) ? 'gap' : 'gap-changed';
}

/**
 * Rewrites the baseline from this run's gateway failures, keeping the reasons of entries that remain and
 * the `kept` entries of scenarios this run did not cover.
 */
export function writeGaps(file, comment, gaps, results, kept = []) {
  const entries = [...kept];
  for (const r of results) {
    const own = gatewayFailures(r);
    if (own.length === 0) continue;
    const previous = gapFor(gaps, r.revision, r.scenario);
    const first = own[0];
    entries.push({
      revision: r.revision,
      scenario: r.scenario,
      reason: previous?.reason ?? `TODO (auto): ${first.id}: ${first.message.slice(0, 160)}`,
      ...(previous?.flaky ? { flaky: true } : {}),
      failingChecks: [...new Set(own.map((f) => f.id))].sort(),
    });
  }
  // A flaky entry stays even when this run happened to pass.
  for (const gap of gaps.values()) {
    if (gap.flaky && !entries.some((e) => e.revision === gap.revision && e.scenario === gap.scenario)) {
      entries.push(gap);
    }
  }
  const order = (e) => `${e.revision} ${e.scenario}`;
  entries.sort((a, b) => order(a).localeCompare(order(b)));
  writeFileSync(file, `${formatJson({ $comment: comment, gaps: entries })}\n`);
  return entries.length;
}

/** JSON the way the repo's formatter (Biome, 110 columns) writes it: short string arrays on one line. */
function formatJson(value) {
  return JSON.stringify(value, null, 2).replace(
    /^( *)("[^"]+": )\[\n((?: *"(?:[^"\\]|\\.)*",?\n)+) *\]/gm,
    (all, indent, k, items) => {
      const line = `${indent}${k}[${items
        .split('\n')
        .filter(Boolean)
        .map((i) => i.trim())
        .join(' ')}]`;
      return line.length <= 110 ? line : all;
    },
  );
}
