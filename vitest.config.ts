import { defineConfig } from 'vitest/config';

// One root config; each workspace package is a vitest project (see vitest.shared.ts). Unit tests run
// against sources through the `@switchyard/source` export condition; end-to-end tests spawn the built CLIs.
export default defineConfig({
  test: {
    projects: ['packages/*', 'apps/gateway', 'docs/examples/*'],
  },
});
