import { defineConfig } from 'vitest/config';

// One root config; each workspace package is a vitest project and tests run against sources
// (the `@switchyard/source` export condition), while end-to-end tests spawn the built CLI.
export default defineConfig({
  test: {
    projects: ['packages/*', 'apps/gateway'],
    testTimeout: 20_000,
    hookTimeout: 20_000,
    teardownTimeout: 10_000,
    pool: 'forks',
    reporters: process.env.CI ? ['default'] : ['default'],
  },
});
