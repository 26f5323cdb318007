/**
 * Raw wire I/O for the misbehave tests: a line reader on a spawned CLI's stdout and plain `fetch` over HTTP.
 * No SDK client: it would choke on exactly what these servers send.
 */
import { type ChildProcess, spawn } from 'node:child_process';
import { existsSync } from 'node:fs';
import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { createInterface } from 'node:readline';
import { fileURLToPath } from 'node:url';
import type { Cleanup } from '../src/test-support.js';
import { until, within } from './helpers.js';

export const CLI = resolve(dirname(fileURLToPath(import.meta.url)), '../dist/cli.js');
export const MODERN = '2026-07-28';
export const LEGACY = '2025-11-25';

export type Json = Record<string, unknown>;

/** The per-request `_meta` envelope of a 2026-07-28 request. */
export const ENVELOPE = {
  'io.modelcontextprotocol/protocolVersion': MODERN,
  'io.modelcontextprotocol/clientCapabilities': {},
  'io.modelcontextprotocol/clientInfo': { name: 'raw', version: '1' },
};

export const INITIALIZE = {
  jsonrpc: '2.0',
  id: 0,
  method: 'initialize',
  params: { protocolVersion: LEGACY, capabilities: { roots: {} }, clientInfo: { name: 'raw', version: '1' } },
};

export function request(id: number | string, method: string, params?: Json): Json {
  return { jsonrpc: '2.0', id, method, ...(params === undefined ? {} : { params }) };
}

export function modernRequest(id: number | string, method: string, params: Json = {}): Json {
  return request(id, method, { ...params, _meta: ENVELOPE });
}

export function toolCall(id: number | string, name: string, args: Json = {}, modern = false): Json {
  const params = { name, arguments: args };
  return modern ? modernRequest(id, 'tools/call', params) : request(id, 'tools/call', params);
}

/** The text of a tool result's first content item. */
export function textOf(message: Json): unknown {
  return ((message.result as Json | undefined)?.content as Json[] | undefined)?.[0]?.text;
}

function exited(child: ChildProcess): Promise<void> {
  if (child.exitCode !== null || child.signalCode !== null) return Promise.resolve();
  return new Promise((done) => child.once('exit', () => done()));
}

/** A CLI process on stdio, read line by line. */
export class RawStdio {
  readonly child: ChildProcess;
  stderr = '';
  readonly #lines: string[] = [];
  #wake: (() => void) | undefined;

  constructor(args: string[], cleanup: Cleanup) {
    this.child = spawn(process.execPath, [CLI, ...args], { stdio: ['pipe', 'pipe', 'pipe'] });
    cleanup.add(async () => {
      if (this.child.exitCode === null && this.child.signalCode === null) this.child.kill('SIGKILL');
      await exited(this.child);
    });
    this.child.stderr?.setEncoding('utf8').on('data', (chunk: string) => {
      this.stderr += chunk;
    });
    createInterface({ input: this.child.stdout!, crlfDelay: Number.POSITIVE_INFINITY }).on('line', (line) => {
      this.#lines.push(line);
      this.#wake?.();
    });
  }

  send(message: Json): void {
    this.child.stdin?.write(`${JSON.stringify(message)}\n`);
  }

  /** The next raw stdout line. */
  async line(ms = 5000): Promise<string> {
    await within(
      new Promise<void>((done) => {
        const check = (): void => {
          if (this.#lines.length > 0) done();
          else this.#wake = check;
        };
        check();
      }),
      ms,
      'next stdout line',
    );
    return this.#lines.shift() as string;
  }

  /** The next `n` lines, each parsed as JSON. */
  async messages(n: number, ms = 5000): Promise<Json[]> {
    const out: Json[] = [];
    for (let i = 0; i < n; i++) out.push(JSON.parse(await this.line(ms)) as Json);
    return out;
  }

  /** Sends `message` and reads up to its response: the lines before it (parsed) and the response. */
  async exchange(message: Json, ms = 5000): Promise<{ before: Json[]; response: Json }> {
    this.send(message);
    const before: Json[] = [];
    for (;;) {
      const parsed = JSON.parse(await this.line(ms)) as Json;
      if (parsed.id === message.id && !('method' in parsed)) return { before, response: parsed };
      before.push(parsed);
    }
  }

  /** Stdout lines received and not read yet. */
  get unread(): number {
    return this.#lines.length;
  }
}

/** A temp directory (removed on cleanup) and a control file path in it. */
export async function controlFilePath(cleanup: Cleanup): Promise<string> {
  const dir = await mkdtemp(join(tmpdir(), 'testkit-misbehave-'));
  cleanup.add(() => rm(dir, { recursive: true, force: true }));
  return join(dir, 'control.url');
}

export async function readControlUrl(path: string): Promise<string> {
  await until(() => existsSync(path), 5000, `control file ${path}`);
  return (await readFile(path, 'utf8')).trim();
}

/** An HTTP answer, with the JSON-RPC messages its body carried (a JSON body or SSE events). */
export interface RawAnswer {
  status: number;
  contentType: string;
  text: string;
  messages: Json[];
}

/** The JSON-RPC messages of SSE `text`, in order. */
export function sseMessages(text: string): Json[] {
  const messages: Json[] = [];
  for (const block of text.split('\n\n')) {
    const data = block
      .split('\n')
      .filter((line) => line.startsWith('data:'))
      .map((line) => line.slice(5).trim())
      .join('\n');
    if (data !== '') messages.push(JSON.parse(data) as Json);
  }
  return messages;
}

/** POSTs `body` to the MCP endpoint (modern bodies get the modern headers) and answers the open response. */
export function postRaw(
  url: string,
  body: Json,
  headers: Record<string, string> = {},
  signal?: AbortSignal,
): Promise<Response> {
  const params = body.params as Json | undefined;
  const modern = (params?._meta as Json | undefined)?.['io.modelcontextprotocol/protocolVersion'] === MODERN;
  const name = params?.name ?? params?.uri;
  return fetch(url, {
    method: 'POST',
    headers: {
      'content-type': 'application/json',
      accept: 'application/json, text/event-stream',
      ...(modern
        ? {
            'mcp-protocol-version': MODERN,
            'mcp-method': String(body.method),
            ...(typeof name === 'string' ? { 'mcp-name': name } : {}),
          }
        : {}),
      ...headers,
    },
    body: JSON.stringify(body),
    ...(signal === undefined ? {} : { signal }),
  });
}

/** POSTs `body` to the MCP endpoint and reads the whole answer. */
export async function post(
  url: string,
  body: Json,
  headers: Record<string, string> = {},
  signal?: AbortSignal,
): Promise<RawAnswer> {
  const response = await postRaw(url, body, headers, signal);
  const text = await response.text();
  const contentType = response.headers.get('content-type') ?? '';
  let messages: Json[] = [];
  if (contentType.startsWith('text/event-stream')) messages = sseMessages(text);
  else if (contentType.startsWith('application/json') && text !== '') messages = [JSON.parse(text) as Json];
  return { status: response.status, contentType, text, messages };
}

/** Opens a 2025 session over HTTP with raw requests; returns the headers its later requests carry. */
export async function legacySession(url: string): Promise<Record<string, string>> {
  const response = await fetch(url, {
    method: 'POST',
    headers: { 'content-type': 'application/json', accept: 'application/json, text/event-stream' },
    body: JSON.stringify(INITIALIZE),
  });
  await response.text();
  const sessionId = response.headers.get('mcp-session-id');
  if (sessionId === null) throw new Error(`initialize answered ${response.status} without a session`);
  const headers = { 'mcp-session-id': sessionId, 'mcp-protocol-version': LEGACY };
  await post(url, { jsonrpc: '2.0', method: 'notifications/initialized' }, headers);
  return headers;
}

/** Reads an open SSE response as it streams: `next()` resolves with each JSON-RPC message in turn. */
export class SseStream {
  readonly #reader: ReadableStreamDefaultReader<Uint8Array>;
  readonly #decoder = new TextDecoder();
  #buffer = '';
  readonly #ready: Json[] = [];

  constructor(response: Response) {
    if (response.body === null) throw new Error('no body to stream');
    this.#reader = response.body.getReader();
  }

  async next(ms = 5000): Promise<Json> {
    return within(this.#next(), ms, 'next SSE message');
  }

  async #next(): Promise<Json> {
    for (;;) {
      const ready = this.#ready.shift();
      if (ready !== undefined) return ready;
      const { done, value } = await this.#reader.read();
      if (done) throw new Error('SSE stream ended');
      this.#buffer += this.#decoder.decode(value, { stream: true });
      const end = this.#buffer.lastIndexOf('\n\n');
      if (end < 0) continue;
      this.#ready.push(...sseMessages(this.#buffer.slice(0, end)));
      this.#buffer = this.#buffer.slice(end + 2);
    }
  }

  async cancel(): Promise<void> {
    await this.#reader.cancel().catch(() => undefined);
  }
}

/** Spawns the CLI with `--http`; resolves with the URLs it prints (the child is killed on cleanup). */
export async function spawnHttpCli(
  args: string[],
  cleanup: Cleanup,
): Promise<{ child: ChildProcess; url: string; controlUrl: string; stderr: () => string }> {
  const child = spawn(process.execPath, [CLI, '--http', ...args], { stdio: ['ignore', 'pipe', 'pipe'] });
  cleanup.add(async () => {
    if (child.exitCode === null && child.signalCode === null) child.kill('SIGKILL');
    await exited(child);
  });
  let stderr = '';
  child.stderr?.setEncoding('utf8').on('data', (chunk: string) => {
    stderr += chunk;
  });
  const lines = createInterface({ input: child.stdout! });
  const first = await within(
    new Promise<string>((done, fail) => {
      lines.once('line', done);
      child.once('exit', (code) => fail(new Error(`cli exited early with ${code}: ${stderr}`)));
    }),
    5000,
    'cli --http startup line',
  );
  lines.close();
  const { url, controlUrl } = JSON.parse(first) as { url: string; controlUrl: string };
  return { child, url, controlUrl, stderr: () => stderr };
}
