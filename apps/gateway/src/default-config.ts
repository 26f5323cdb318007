import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { type GatewayConfig, parseConfig } from './config/load.js';

/**
 * The embedded default: two programmable upstreams that ship with the repo (@switchyard/testkit over
 * stdio), served over Streamable HTTP on 127.0.0.1:7480. No network, nothing to install.
 */
export function defaultConfig(): GatewayConfig {
  const testkitCli = join(dirname(fileURLToPath(import.meta.resolve('@switchyard/testkit'))), 'cli.js');
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
