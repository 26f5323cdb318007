import { defineProject } from 'vitest/config';

/** Settings every workspace project shares (root `test` options are not inherited by file-based projects). */
export function switchyardProject() {
  return defineProject({
    resolve: { conditions: ['@switchyard/source'] },
    ssr: { resolve: { conditions: ['@switchyard/source'] } },
    test: {
      include: ['test/**/*.test.ts', 'src/**/*.test.ts'],
      testTimeout: 30_000,
      hookTimeout: 30_000,
      teardownTimeout: 15_000,
    },
  });
}
