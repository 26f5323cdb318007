import { defineProject } from 'vitest/config';

/** Settings every workspace project shares (root `test` options are not inherited by file-based projects). */
export function switchyardProject() {
  return defineProject({
    resolve: { conditions: ['@switchyard/source'] },
    ssr: { resolve: { conditions: ['@switchyard/source'] } },
    test: {
      include: ['test/**/*.test.ts', 'src/**/*.test.ts'],
      // A worker runs file after file in one process and keeps the modules it imported (the SDKs, the
      // sources under test): isolating every file re-imported them each time, most of the suite's CPU on
      // 2 cores (the core package's 70 files: 81 s isolated, 22 s not). Each test file still runs afresh;
      // a file that changes something global (fake timers, a stubbed global) restores it in its own hooks.
      isolate: false,
      testTimeout: 30_000,
      hookTimeout: 30_000,
      teardownTimeout: 15_000,
    },
  });
}
