import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { type GatewayConfig, parseConfig } from './config/load.js';

/**
 * The embedded default: two programmable upstreams that ship with the repo (@switchyard/testkit over
 * stdio), served over Streamable HTTP on 127.0.0.1:7480. No network, nothing to install.
 */
export function defaultConfig(): GatewayConfig {
  const testkitCli = join(dirname(fileURLToPath(resolveTestkit())), 'cli.js');
  return parseConfig(
    {
      listen: { http: { host: '127.0.0.1', port: 7480, path: '/mcp' } },
      mcpServers: {
        docs: {
          command: process.execPath,
          args: [testkitCli, '--name', 'docs', '--resources', '25', '--page-size', '10'],
        },
        tickets: {
          command: process.execPath,
          args: [testkitCli, '--name', 'tickets', '--resources', '40', '--page-size', '10'],
        },
      },
    },
    { source: '(embedded default config)', baseDir: process.cwd() },
  );
}

/** The testkit is a dev dependency (the repo has it; an npm install of `switchyard` does not need it). */
function resolveTestkit(): string {
  try {
    return import.meta.resolve('@switchyard/testkit');
  } catch {
    throw new Error(
      'no --config given, and the embedded default config needs @switchyard/testkit (its bundled test ' +
        'servers), which is not installed: pass --config <file>, or install @switchyard/testkit beside switchyard',
    );
  }
}
