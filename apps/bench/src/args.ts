/** The bench's command line. */
import { parseArgs } from 'node:util';

export const USAGE = `usage: node apps/bench/dist/main.js [--quick] [--json PATH] [--only SECTION] [--cpu-prof DIR] [--client sdk|raw]

  --quick          small sizes for a CI smoke run: every section, path and check, small counts
  --json PATH      where to write the JSON results (default apps/bench/results/latest.json)
  --only SECTION   run one section: read, enumerate, plugins, governance (3c alone; old name: secrets), tools,
                   replicas (needs redis-server and haproxy, skipped with a message without them), paths,
                   session-memory, catalog or credentials (Redis rows skipped without redis-server)
  --cpu-prof DIR   run the gateway(s) under node --cpu-prof, writing .cpuprofile files to DIR (paths: the two
                   slowest paths run again on profiled gateways after the timed matrix)
  --client WHICH   sdk (default): the official SDK client; raw: a lean JSON-RPC client (testkit/mcp) on every
                   path, so results show the servers' cost rather than the client's`;

export interface BenchArgs {
  quick: boolean;
  json?: string;
  only?: string;
  cpuProf?: string;
  client: 'sdk' | 'raw';
  help: boolean;
}

/** Old names `--only` still accepts, and the section each now runs. */
const SECTION_ALIASES: Record<string, string> = { secrets: 'governance' };

/**
 * Parses argv (`sections`: the names `--only` accepts, in run order); throws with a message for the usage
 * line on anything unknown or malformed.
 */
export function parseBenchArgs(sections: readonly string[], argv = process.argv.slice(2)): BenchArgs {
  const { values } = parseArgs({
    args: argv,
    options: {
      quick: { type: 'boolean' },
      json: { type: 'string' },
      only: { type: 'string' },
      'cpu-prof': { type: 'string' },
      client: { type: 'string' },
      help: { type: 'boolean', short: 'h' },
    },
    strict: true,
    allowPositionals: false,
  });
  if (values.client !== undefined && values.client !== 'sdk' && values.client !== 'raw') {
    throw new Error(`--client must be sdk or raw, got '${values.client}'`);
  }
  const only = values.only === undefined ? undefined : (SECTION_ALIASES[values.only] ?? values.only);
  if (only !== undefined && !sections.includes(only)) {
    throw new Error(`--only must be one of ${sections.join(', ')}, got '${values.only}'`);
  }
  return {
    quick: values.quick === true,
    json: values.json,
    only,
    cpuProf: values['cpu-prof'],
    client: values.client === 'raw' ? 'raw' : 'sdk',
    help: values.help === true,
  };
}
