#!/usr/bin/env node
import { parseArgs } from 'node:util';
import { type ConformanceHttp, startConformanceHttp } from './http.js';
import { FixtureState } from './state.js';
import { serveConformanceStdio } from './stdio.js';

const USAGE = `usage: switchyard-testkit-conformance [--stdio | --http] [--legacy] [--host H] [--port N] [--name S]

Serves the fixture the official MCP conformance suite's server scenarios expect, in both wire eras.
  --stdio (default)  one connection on stdin/stdout; the opening message picks the era (stdout carries
                     only the protocol; logs go to stderr)
  --http             Streamable HTTP on 127.0.0.1 (ephemeral port unless --port): 2025 sessions and
                     stateless 2026-07-28 requests at the same URL; prints {"url": ...} on one stdout line
  --legacy           stdio only: serve only the 2025 era (a modern client falls back to initialize)
  --name S           serverInfo.name (default conformance-fixture)`;

function log(message: string): void {
  process.stderr.write(`[switchyard-testkit-conformance] ${message}\n`);
}

interface CliConfig {
  mode: 'stdio' | 'http';
  host: string;
  port: number;
  name: string | undefined;
  legacy: boolean;
}

function parse(argv: string[]): CliConfig | undefined {
  const { values } = parseArgs({
    args: argv,
    strict: true,
    allowPositionals: false,
    options: {
      stdio: { type: 'boolean' },
      http: { type: 'boolean' },
      host: { type: 'string' },
      port: { type: 'string' },
      name: { type: 'string' },
      legacy: { type: 'boolean' },
      help: { type: 'boolean', short: 'h' },
    },
  });
  if (values.help) return undefined;
  if (values.stdio && values.http) throw new Error('--stdio and --http are mutually exclusive');
  if (values.legacy && values.http) throw new Error('--legacy applies to --stdio only');
  if (values.port !== undefined && !/^\d+$/.test(values.port)) {
    throw new Error(`--port expects a non-negative integer, got '${values.port}'`);
  }
  return {
    mode: values.http ? 'http' : 'stdio',
    host: values.host ?? '127.0.0.1',
    port: values.port === undefined ? 0 : Number(values.port),
    name: values.name,
    legacy: values.legacy === true,
  };
}

async function main(): Promise<void> {
  let config: CliConfig | undefined;
  try {
    config = parse(process.argv.slice(2));
  } catch (error) {
    log(error instanceof Error ? error.message : String(error));
    process.stderr.write(`${USAGE}\n`);
    process.exit(2);
  }
  if (config === undefined) {
    process.stderr.write(`${USAGE}\n`);
    return;
  }

  const state = await FixtureState.create();
  let stop: (() => Promise<void>) | undefined;
  let stopping = false;
  const shutdown = (reason: string): void => {
    if (stopping) return;
    stopping = true;
    log(`shutting down (${reason})`);
    void Promise.resolve(stop?.())
      .catch(() => undefined)
      .finally(() => process.exit(0));
  };
  process.once('SIGTERM', () => shutdown('SIGTERM'));
  process.once('SIGINT', () => shutdown('SIGINT'));

  if (config.mode === 'http') {
    const http: ConformanceHttp = await startConformanceHttp(state, {
      host: config.host,
      port: config.port,
      ...(config.name === undefined ? {} : { name: config.name }),
    });
    stop = () => http.close();
    process.stdout.write(`${JSON.stringify({ url: http.url })}\n`);
    log(`serving at ${http.url}`);
    return;
  }

  const handle = serveConformanceStdio(state, {
    ...(config.name === undefined ? {} : { name: config.name }),
    legacyOnly: config.legacy,
    onerror: (error) => log(`error: ${error.message}`),
  });
  stop = () => handle.close();
  process.stdin.once('end', () => shutdown('stdin ended'));
  process.stdin.once('close', () => shutdown('stdin closed'));
  log('serving on stdio');
}

main().catch((error: unknown) => {
  log(`fatal: ${error instanceof Error ? (error.stack ?? error.message) : String(error)}`);
  process.exit(1);
});
