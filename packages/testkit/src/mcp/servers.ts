/**
 * The testkit's own CLIs started in a process of their own over Streamable HTTP: the programmable test
 * server (`switchyard-testkit --http`) and the conformance fixture (`switchyard-testkit-conformance
 * --http`), ready once they print their `{"url": …}` line.
 */
import { existsSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { startProcess } from '../process/child.js';
import type { ProcessGroup } from '../process/group.js';
import type { ManagedProcess, SpawnProcessOptions } from '../process/types.js';

/** The built CLI `file` of this package (`dist/…`), from its sources or from dist alike. */
export function testkitCliPath(file: 'cli.js' | 'conformance/cli.js' = 'cli.js'): string {
  const here = fileURLToPath(new URL('.', import.meta.url));
  const dist = here.includes('/src/')
    ? new URL('../../dist/', import.meta.url)
    : new URL('../', import.meta.url);
  const cli = fileURLToPath(new URL(file, dist));
  if (!existsSync(cli))
    throw new Error(`${cli} not found: build first (pnpm --filter @switchyard/testkit build)`);
  return cli;
}

export interface TestkitHttpOptions extends Omit<SpawnProcessOptions, 'name' | 'args'> {
  /** CLI flags after `--http` (`--name`, `--resources`, `--port` …). */
  args?: readonly string[];
  /** Default `testkit`. */
  name?: string;
  /** The conformance fixture instead of the test server. */
  fixture?: boolean;
  /** A group the process joins. */
  group?: ProcessGroup;
  /** The ready line's bound; default 20 s. */
  timeoutMs?: number;
}

export interface TestkitHttp {
  proc: ManagedProcess;
  url: string;
  /** The control API of the test server (not the fixture's). */
  controlUrl?: string;
}

/** Starts a testkit CLI over Streamable HTTP (ephemeral port unless `--port`); stopped on failure. */
export async function startTestkitHttp(options: TestkitHttpOptions = {}): Promise<TestkitHttp> {
  const { args = [], name = 'testkit', fixture, group, timeoutMs, ...spawn } = options;
  const start = {
    ...spawn,
    name,
    args: [testkitCliPath(fixture ? 'conformance/cli.js' : 'cli.js'), '--http', ...args],
    ready: {
      stream: 'stdout' as const,
      timeoutMs,
      line: (line: string) => {
        if (!line.startsWith('{')) return undefined;
        const printed = JSON.parse(line) as { url?: unknown; controlUrl?: unknown };
        if (typeof printed.url !== 'string') return undefined;
        return {
          url: printed.url,
          controlUrl: typeof printed.controlUrl === 'string' ? printed.controlUrl : undefined,
        };
      },
    },
  };
  const { proc, ready } = await (group ? group.start(start) : startProcess(start));
  return { proc, ...ready };
}
