#!/usr/bin/env node
// The command line and its dispatch. What a command needs is imported once it is chosen, so `--help`,
// `--version`, `init` and `import` do not load the gateway (core and the SDKs take most of a second).
import { parseArgs } from 'node:util';
import type { LogLevel } from '@switchyard/core';
import type { GatewayConfig } from './config/load.js';
import { SWITCHYARD_VERSION } from './version.js';

const HELP = `switchyard — one MCP endpoint in front of many upstream MCP servers

Usage:
  switchyard [--config <file>] [--log-level <level>] [--quiet | --banner] [--virtual-server <name>]
  switchyard check [--config <file>]
  switchyard pin --config <file> [--approve <exposed name> [--digest <sha256:…>]]
  switchyard import [<client file>…] [--out <file>] [--write-back] [--force]
  switchyard init [--out <file>]

Commands:
  (none)                   Run the gateway.
  check                    Validate the config, connect once to every upstream (each within its
                           timeoutMs, all at once) and print a table to stdout: era, transport,
                           protocol version, connect time and how many resources, resource templates,
                           tools and prompts each exposes, or its error. Exit 0 when all are fine, 1 when
                           any upstream failed, 2 for a bad config.
  pin                      Connect once to every upstream and write the lock file of the config's
                           @switchyard/plugin-pin with every tool and prompt definition (a server
                           that fails keeps its pins; exit 1). With --approve <exposed name>, pin only
                           that tool or prompt (e.g. one the gateway quarantined), as the upstream lists
                           it now (its digest is printed); with --digest too, only if that is the
                           definition of that digest (the one /admin/status showed), else nothing is
                           pinned and what is listed now is printed to review (exit 1). A running
                           gateway applies the rewritten lock file within 2 s.
  import                   Read the MCP servers of Claude Desktop, Claude Code, Cursor, VS Code and
                           Windsurf (the files named, else each client's default files that exist; the
                           format is recognised from the content, comments allowed) and write them as one
                           Switchyard config (--out, default ./switchyard.json; an existing file only with
                           --force). Secrets stay \${VAR} references (VS Code \${input:id} and \${env:VAR}
                           become \${VAR}; the variables to set are listed on stderr). --write-back replaces
                           the servers in each client file with one entry starting Switchyard on that config,
                           keeping <file>.switchyard-backup-<time> and printing the diff. A bad file: exit 1,
                           nothing written. See docs/clients.md.
  init                     Write a commented starter config (--out, default ./switchyard.yaml; never over an
                           existing file: exit 1): HTTP on 127.0.0.1:7480, the admin listener, one example
                           server, the audit and cache plugins.

Options:
  -c, --config <file>      JSON or YAML (.yaml/.yml) config (see docs/configuration.md). Without it,
                           the embedded default config runs: two bundled test servers behind
                           http://127.0.0.1:7480/mcp.
  -l, --log-level <level>  debug | info | warn | error (default: info, or "logLevel" in the config).
  -q, --quiet              No startup banner: the short block on stderr, once ready, with the MCP
                           and status page URLs, the upstreams and how to add the endpoint to a client.
                           By default it shows only when stderr is a terminal and the log level is
                           info or debug.
      --banner             Show the startup banner even when stderr is not a terminal.
      --virtual-server <name>
                           Serve stdio as that virtual server of the config ("virtualServers"): only
                           what it exposes (HTTP and WebSocket serve it at <path>/<name>).
  -o, --out <file>         import, init: the config file to write.
  --write-back             import: point each client file at Switchyard instead of the imported servers.
  --force                  import: overwrite the --out file if it exists.
  -h, --help               Show this help.
  -v, --version            Print the version.

Logs always go to stderr: in stdio mode stdout carries JSON-RPC and nothing else.
Exit codes: 0 on a clean shutdown (SIGINT/SIGTERM, or stdin closed in stdio mode), 2 for a bad
config or command line, 1 when the gateway cannot start (for example, the port is taken).
SIGHUP, or a change of the --config file, reloads it (see docs/operations.md).
SIGTERM/SIGINT drain: in-flight requests get "shutdownGraceMs" to finish; a second signal exits at
once with 143 (SIGTERM) or 130 (SIGINT).`;

const COMMANDS = ['check', 'pin', 'import', 'init'];
const LEVELS = new Set(['debug', 'info', 'warn', 'error']);

async function main(): Promise<number> {
  let args: ReturnType<typeof parse>;
  try {
    args = parse();
  } catch (error) {
    process.stderr.write(`switchyard: ${(error as Error).message}\nRun switchyard --help for usage.\n`);
    return 2;
  }
  const [command, ...extra] = args.positionals;
  const usage = (why: string) => {
    process.stderr.write(`switchyard: ${why}\nRun switchyard --help for usage.\n`);
    return 2;
  };
  // An unset variable (`--config "$CONFIG"`) must not fall back to the embedded demo config.
  const empty = (['config', 'approve', 'out', 'virtual-server'] as const).find(
    (name) => args[name]?.trim() === '',
  );
  if (empty !== undefined) return usage(`--${empty} is empty (is the variable that should hold it set?)`);
  if (command !== undefined && !COMMANDS.includes(command))
    return usage(`unknown command "${command}" (commands: ${COMMANDS.join(', ')})`);
  if (extra.length > 0 && command !== 'import') return usage(`unexpected argument "${extra[0]}"`);
  if (args.approve !== undefined && command !== 'pin') return usage('--approve goes with the pin command');
  if (args.digest !== undefined && args.approve === undefined)
    return usage('--digest goes with pin --approve <exposed name>');
  if (args.out !== undefined && command !== 'import' && command !== 'init')
    return usage('--out goes with the import and init commands');
  if ((args['write-back'] || args.force) && command !== 'import')
    return usage(`--${args.force ? 'force' : 'write-back'} goes with the import command`);
  if (args.config !== undefined && (command === 'import' || command === 'init'))
    return usage(`${command} takes no --config (it writes one: --out <file>)`);
  if (command === 'pin' && args.config === undefined && !args.help) {
    process.stderr.write('switchyard: pin needs --config <file> (the config naming the lock file)\n');
    return 2;
  }
  if (args.help) {
    process.stderr.write(`${HELP}\n`);
    return 0;
  }
  if (args.version) {
    process.stderr.write(`switchyard ${SWITCHYARD_VERSION}\n`);
    return 0;
  }
  if (command === 'import') {
    const { runImport } = await import('./import/command.js');
    return runImport(
      { files: extra, out: args.out, writeBack: args['write-back'], force: args.force },
      (text) => void process.stdout.write(text),
      (text) => void process.stderr.write(text),
    );
  }
  if (command === 'init') {
    const { runInit } = await import('./init/command.js');
    return runInit(
      args.out,
      (text) => void process.stdout.write(text),
      (text) => void process.stderr.write(text),
    );
  }
  const level = args['log-level'];
  if (level !== undefined && !LEVELS.has(level)) {
    process.stderr.write(
      `switchyard: --log-level must be one of debug, info, warn, error (got "${level}")\n`,
    );
    return 2;
  }
  const { ConfigError, loadConfigFile } = await import('./config/load.js');
  let config: GatewayConfig;
  try {
    config = args.config
      ? await loadConfigFile(args.config)
      : (await import('./default-config.js')).defaultConfig();
  } catch (error) {
    process.stderr.write(`switchyard: ${error instanceof ConfigError ? error.message : String(error)}\n`);
    return 2;
  }
  const endpoint = args['virtual-server'];
  if (endpoint !== undefined) {
    const known = [...(config.virtualServers?.keys() ?? [])];
    if (!config.virtualServers?.has(endpoint)) {
      process.stderr.write(
        `switchyard: --virtual-server ${endpoint}: ${config.source} has no virtual server of that name (${known.length > 0 ? `it has ${known.join(', ')}` : 'it defines no "virtualServers"'})\n`,
      );
      return 2;
    }
    if (!config.listen.stdio) {
      process.stderr.write(
        `switchyard: --virtual-server serves stdio, and ${config.source} does not listen on stdio (omit "listen", or set "listen.stdio": true); HTTP and WebSocket serve each virtual server at <path>/<name>\n`,
      );
      return 2;
    }
  }
  if (command === 'check' || command === 'pin') {
    const { createLogger } = await import('@switchyard/core');
    const logger = createLogger({ level: (level as LogLevel | undefined) ?? 'warn' });
    if (command === 'check') {
      const { runCheck } = await import('./check/command.js');
      return runCheck(
        config,
        (text) => process.stdout.write(text),
        logger,
        (text) => process.stderr.write(text),
      );
    }
    const { runPin } = await import('./pin/command.js');
    const write = (stream: NodeJS.WriteStream) => (text: string) => void stream.write(text);
    const approve = args.approve === undefined ? undefined : { name: args.approve, digest: args.digest };
    return runPin(config, approve, write(process.stdout), write(process.stderr), logger);
  }
  const { serve } = await import('./serve.js');
  return serve(config, {
    logLevel: level as LogLevel | undefined,
    watch: args.config !== undefined,
    virtualServer: endpoint,
    quiet: args.quiet,
    banner: args.banner,
  });
}

function parse() {
  const { values, positionals } = parseArgs({
    options: {
      config: { type: 'string', short: 'c' },
      approve: { type: 'string' },
      digest: { type: 'string' },
      out: { type: 'string', short: 'o' },
      'write-back': { type: 'boolean' },
      force: { type: 'boolean' },
      'log-level': { type: 'string', short: 'l' },
      quiet: { type: 'boolean', short: 'q' },
      banner: { type: 'boolean' },
      'virtual-server': { type: 'string' },
      help: { type: 'boolean', short: 'h' },
      version: { type: 'boolean', short: 'v' },
    },
    strict: true,
    allowPositionals: true,
  });
  return { ...values, positionals };
}

main().then(
  (code) => process.exit(code),
  (error) => {
    process.stderr.write(
      `switchyard: fatal: ${error instanceof Error ? (error.stack ?? error.message) : String(error)}\n`,
    );
    process.exit(1);
  },
);
