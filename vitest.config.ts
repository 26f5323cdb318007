import { defineConfig } from 'vitest/config';

// One root config; each workspace package is a vitest project (see vitest.shared.ts). Unit tests run
// against sources through the `@switchyard/source` export condition; end-to-end tests spawn the built CLIs.
export default defineConfig({
  test: {
    projects: ['packages/*', 'apps/gateway', 'apps/bench', 'docs/examples/*'],
    // Vitest's default is one worker per core minus one: a single file at a time on a 2-core CI box. The
    // end-to-end files mostly wait on the processes they start, so three at a time keep both cores busy.
    maxWorkers: 3,
  },
});
