import { defineProject } from 'vitest/config';

export default defineProject({
  resolve: { conditions: ['@switchyard/source'] },
  ssr: { resolve: { conditions: ['@switchyard/source'] } },
  test: { include: ['test/**/*.test.ts', 'src/**/*.test.ts'] },
});
