#!/usr/bin/env node
// The bad-input sweep with more cases than the test suite runs (apps/gateway/test/fuzz.e2e.test.ts):
//   pnpm fuzz [--cases 100000] [--seed 42]
// Builds first (the root script), then runs that one test file with SWITCHYARD_FUZZ_CASES and
// SWITCHYARD_FUZZ_SEED; a failure prints the seed and the case to replay it with.
import { spawnSync } from 'node:child_process';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';

const { values } = parseArgs({
  options: { cases: { type: 'string', default: '20000' }, seed: { type: 'string' } },
});
if (!/^\d+$/.test(values.cases)) throw new Error(`--cases expects a positive integer, got ${values.cases}`);
if (values.seed !== undefined && !/^\d+$/.test(values.seed)) throw new Error(`--seed expects an integer`);
const root = fileURLToPath(new URL('..', import.meta.url));
const env = { ...process.env, SWITCHYARD_FUZZ_CASES: values.cases };
if (values.seed !== undefined) env.SWITCHYARD_FUZZ_SEED = values.seed;
const vitest = spawnSync(
  process.execPath,
  [join(root, 'node_modules/vitest/vitest.mjs'), 'run', 'apps/gateway/test/fuzz.e2e.test.ts'],
  { cwd: root, env, stdio: 'inherit' },
);
process.exit(vitest.status ?? 1);
