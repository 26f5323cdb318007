import { defineConfig, mergeConfig } from 'vitest/config';
import { switchyardProject } from './vitest.shared.js';

// One root config and one test run over every workspace package (each package's own vitest.config.ts runs
// its tests alone, with the same settings). Unit tests run against sources through the
// `@switchyard/source` export condition; end-to-end tests spawn the built CLIs. One project, not one per
// package: vitest runs projects one after another, each starting its workers and transforming its sources
// afresh, which left the 2-core CI box mostly idle for the first minute, and the slowest (end-to-end) files
// ran last. In one project the files run largest first (slowest first once vitest has timed them).
export default mergeConfig(
  switchyardProject(),
  defineConfig({
    test: {
      include: [
        '{packages,apps,docs/examples}/*/test/**/*.test.ts',
        '{packages,apps,docs/examples}/*/src/**/*.test.ts',
      ],
      // Vitest's default is one worker per core minus one: a single file at a time on a 2-core CI box. The
      // end-to-end files mostly wait on the processes they start, so three at a time keep both cores busy.
      maxWorkers: 3,
    },
  }),
);
