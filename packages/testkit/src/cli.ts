#!/usr/bin/env node
import { rename, writeFile } from 'node:fs/promises';
import { parseArgs } from 'node:util';
import { type HttpTestServer, startHttpListener } from './http.js';
import { modesOn, parseMisbehaveModes } from './misbehave/modes.js';
import type { TestServerOptions } from './options.js';
import { TestServer } from './test-server.js';

const USAGE = `usage: switchyard-testkit [--stdio | --http] [--port N] [--host H] [--name S] [--resources N]
  [--page-size N] [--templates N] [--blob-every N] [--payload-bytes N] [--latency-ms N] [--progress N]
  [--completions a,b,c] [--no-subscribe] [--fixture conformance] [--control-file PATH]
  [--modern] [--cache-ttl-ms N] [--cache-scope public|private]
  [--tools N] [--tool-name NAME]... [--behavior-tools] [--prompts N] [--misbehave MODE]...

  --stdio (default)  serve MCP on stdin/stdout (stdout carries only the protocol; logs go to stderr)
  --http             serve sessionful Streamable HTTP; prints {"url","controlUrl"} on one stdout line
  --modern           also serve the modern era (2026-07-28): stateless at the same HTTP URL; on stdio the
                     opening message picks the era
  --cache-ttl-ms N   ttlMs on modern list/templates/read results (default: SDK default)
  --cache-scope S    cacheScope (public|private) on those results (default: SDK default)
  --tools N          generated echo tools tool_0 … tool_{N-1} (default 0)
  --tool-name NAME   an extra echo tool with exactly this name (repeat the flag for more)
  --behavior-tools   the fixed tools echo, slow, fail, throw, link, elicit, sample, roots, log
  --prompts N        generated prompts prompt_0 … prompt_{N-1} (default 0)
  --control-file P   write the control API base URL to P (atomically) once listening; in stdio mode this
                     also starts the HTTP control API on 127.0.0.1 (ephemeral port)
  --misbehave MODE   misbehave like a real-world upstream (repeat the flag for more); everything else stays
                     healthy. On both transports and, where served, both eras unless noted:
    no-result-type           2026-07-28-era results go out without resultType (2025-era ones are untouched)
    invalid-result           tools invalid_result ({"content":"not-an-array"}) and non_object_result (the
                             response's result is the string "not an object")
    unknown-ids              before every response, a response to an id never used ("unknown-<n>")
    duplicate-ids            every response is sent twice
    stdout-noise             stdio only (ignored with a warning on --http): a banner line first, then a
                             non-JSON line and a line of broken JSON before every response
    malformed-notifications  after every response, notifications with malformed params and an unknown one
    huge-result              tool huge {bytes?}: one text item of bytes characters (default 40 MiB)
    repeating-cursor         every list answers its first page with nextCursor "again", for every cursor
    endless-cursor           every list answers its first page with nextCursor page-1, page-2, ...
    bad-tool-names           echo tools my.tool, "my tool", my/tool, my_tool, ünïcødé and x repeated 100 times
    list-changed-burst       tool burst {count? = 2000, kind? = tools|resources|prompts}: that many
                             notifications/<kind>/list_changed (2025: on the call; modern: to listen streams)
    server-requests          tool ask {method, unrelated?, params?}: a server-to-client request (2025 era
                             only), answers "answered: <json>", "error <code>: <message>" or "no answer
                             within 15 s"
    hang-handshake           never answers anything, initialize and server/discover included (still counted
                             in stats.handshakes; the control API still serves)
    http-500                 HTTP only (ignored with a warning on stdio): a POST calling tool http_500 gets
                             HTTP 500 with an HTML page, one calling http_429 gets HTTP 429 with
                             Retry-After: 7`;

function log(message: string): void {
  process.stderr.write(`[switchyard-testkit] ${message}\n`);
}

function integer(raw: string | undefined, flag: string): number | undefined {
  if (raw === undefined) return undefined;
  if (!/^\d+$/.test(raw)) throw new Error(`${flag} expects a non-negative integer, got '${raw}'`);
  return Number(raw);
}

interface CliConfig {
  mode: 'stdio' | 'http';
  host: string;
  port: number;
  controlFile: string | undefined;
  options: TestServerOptions;
}

function parse(argv: string[]): CliConfig | undefined {
  const { values } = parseArgs({
    args: argv,
    strict: true,
    allowPositionals: false,
    options: {
      stdio: { type: 'boolean' },
      http: { type: 'boolean' },
      port: { type: 'string' },
      host: { type: 'string' },
      name: { type: 'string' },
      resources: { type: 'string' },
      'page-size': { type: 'string' },
      templates: { type: 'string' },
      'blob-every': { type: 'string' },
      'payload-bytes': { type: 'string' },
      'latency-ms': { type: 'string' },
      progress: { type: 'string' },
      completions: { type: 'string' },
      'no-subscribe': { type: 'boolean' },
      fixture: { type: 'string' },
      'control-file': { type: 'string' },
      modern: { type: 'boolean' },
      'cache-ttl-ms': { type: 'string' },
      'cache-scope': { type: 'string' },
      tools: { type: 'string' },
      'tool-name': { type: 'string', multiple: true },
      'behavior-tools': { type: 'boolean' },
      prompts: { type: 'string' },
      misbehave: { type: 'string', multiple: true },
      help: { type: 'boolean', short: 'h' },
    },
  });
  if (values.help) return undefined;
  if (values.stdio && values.http) throw new Error('--stdio and --http are mutually exclusive');
  const options: TestServerOptions = {};
  const set = <K extends keyof TestServerOptions>(key: K, value: TestServerOptions[K] | undefined): void => {
    if (value !== undefined) options[key] = value;
  };
  set('name', values.name);
  set('resources', integer(values.resources, '--resources'));
  set('pageSize', integer(values['page-size'], '--page-size'));
  set('templates', integer(values.templates, '--templates'));
  set('blobEvery', integer(values['blob-every'], '--blob-every'));
  set('payloadBytes', integer(values['payload-bytes'], '--payload-bytes'));
  set('latencyMs', integer(values['latency-ms'], '--latency-ms'));
  set('progress', integer(values.progress, '--progress'));
  if (values.completions !== undefined) {
    options.completions = values.completions
      .split(',')
      .map((c) => c.trim())
      .filter((c) => c !== '');
  }
  if (values['no-subscribe']) options.subscribe = false;
  if (values.fixture !== undefined) {
    if (values.fixture !== 'conformance' && values.fixture !== 'none') {
      throw new Error(`--fixture must be "conformance" or "none", got "${values.fixture}"`);
    }
    options.fixture = values.fixture;
  }
  if (values.modern) options.modern = true;
  set('cacheTtlMs', integer(values['cache-ttl-ms'], '--cache-ttl-ms'));
  if (values['cache-scope'] !== undefined) {
    const scope = values['cache-scope'];
    if (scope !== 'public' && scope !== 'private') {
      throw new Error(`--cache-scope must be "public" or "private", got "${scope}"`);
    }
    options.cacheScope = scope;
  }
  set('tools', integer(values.tools, '--tools'));
  set('toolNames', values['tool-name']);
  if (values['behavior-tools']) options.behaviorTools = true;
  set('prompts', integer(values.prompts, '--prompts'));
  const mode = values.http ? 'http' : 'stdio';
  if (values.misbehave !== undefined) {
    let modes: NonNullable<TestServerOptions['misbehave']>;
    try {
      modes = parseMisbehaveModes(values.misbehave);
    } catch (error) {
      throw new Error(`--misbehave: ${error instanceof Error ? error.message : String(error)}`);
    }
    const { served, ignored } = modesOn(modes, mode);
    for (const ignoredMode of ignored)
      log(`warning: --misbehave ${ignoredMode} has no meaning on ${mode}: ignored`);
    options.misbehave = served;
  }
  return {
    mode,
    host: values.host ?? '127.0.0.1',
    port: integer(values.port, '--port') ?? 0,
    controlFile: values['control-file'],
    options,
  };
}

async function writeAtomically(path: string, content: string): Promise<void> {
  const tmp = `${path}.${process.pid}.tmp`;
  await writeFile(tmp, content, 'utf8');
  await rename(tmp, path);
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

  const server = new TestServer(config.options);
  server.onCrash = () => {
    log('crash failure injected: exiting with code 1');
    process.exit(1);
  };
  let control: HttpTestServer | undefined;
  let stopping = false;
  const shutdown = async (reason: string): Promise<void> => {
    if (stopping) return;
    stopping = true;
    log(`shutting down (${reason})`);
    try {
      await Promise.allSettled([control?.close(), server.close()]);
    } finally {
      process.exit(0);
    }
  };
  process.once('SIGTERM', () => void shutdown('SIGTERM'));
  process.once('SIGINT', () => void shutdown('SIGINT'));

  if (config.mode === 'http') {
    const http = await server.listenHttp({ host: config.host, port: config.port });
    process.stdout.write(`${JSON.stringify({ url: http.url, controlUrl: http.controlUrl })}\n`);
    if (config.controlFile !== undefined) await writeAtomically(config.controlFile, http.controlUrl);
    log(`serving '${server.options.name}' at ${http.url}`);
    return;
  }

  process.stdin.once('end', () => void shutdown('stdin ended'));
  process.stdin.once('close', () => void shutdown('stdin closed'));
  await server.serveStdio();
  if (config.controlFile !== undefined) {
    control = await startHttpListener({ control: server }, { host: '127.0.0.1', port: 0 });
    await writeAtomically(config.controlFile, control.controlUrl);
    log(`control API at ${control.controlUrl}`);
  }
  log(`serving '${server.options.name}' on stdio`);
}

main().catch((error: unknown) => {
  log(`fatal: ${error instanceof Error ? (error.stack ?? error.message) : String(error)}`);
  process.exit(1);
});
