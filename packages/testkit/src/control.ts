import type { IncomingMessage, ServerResponse } from 'node:http';
import { type Failure, parseFailure } from './failures.js';
import type { TestServerStats } from './stats.js';

/** What the control API drives: the programmable surface of a TestServer. */
export interface ControlTarget {
  readonly stats: TestServerStats;
  setLatency(ms: number): void;
  failNext(failure: Failure): void;
  clearFailures(): void;
  setResourceCount(n: number): void;
  setText(uri: string, text: string): void;
  triggerUpdated(uri: string): Promise<void>;
  triggerListChanged(): Promise<void>;
  setToolCount(n: number): Promise<void>;
  setPromptCount(n: number): Promise<void>;
  triggerToolsListChanged(): Promise<void>;
  triggerPromptsListChanged(): Promise<void>;
}

/** A tiny typed client of the control API (global fetch). */
export interface ControlClient {
  updated(uri: string): Promise<void>;
  listChanged(): Promise<void>;
  fail(failure: Failure): Promise<void>;
  clearFailures(): Promise<void>;
  latency(ms: number): Promise<void>;
  resources(count: number): Promise<void>;
  /** Sets the number of generated tools; the server sends `notifications/tools/list_changed`. */
  tools(count: number): Promise<void>;
  /** Sets the number of generated prompts; the server sends `notifications/prompts/list_changed`. */
  prompts(count: number): Promise<void>;
  toolsListChanged(): Promise<void>;
  promptsListChanged(): Promise<void>;
  text(uri: string, text: string): Promise<void>;
  stats(): Promise<TestServerStats>;
}

const MAX_BODY_BYTES = 1024 * 1024;

export class HttpError extends Error {
  readonly status: number;
  constructor(status: number, message: string) {
    super(message);
    this.status = status;
  }
}

export function sendJson(res: ServerResponse, status: number, body: unknown): void {
  const text = JSON.stringify(body);
  res.writeHead(status, { 'content-type': 'application/json', 'content-length': Buffer.byteLength(text) });
  res.end(text);
}

/** Reads and parses a JSON request body (empty body -> undefined). */
export async function readJsonBody(req: IncomingMessage, limit = MAX_BODY_BYTES): Promise<unknown> {
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of req) {
    const buffer = typeof chunk === 'string' ? Buffer.from(chunk) : (chunk as Buffer);
    size += buffer.length;
    if (size > limit) throw new HttpError(413, 'request body too large');
    chunks.push(buffer);
  }
  const text = Buffer.concat(chunks).toString('utf8').trim();
  if (text === '') return undefined;
  try {
    return JSON.parse(text) as unknown;
  } catch {
    throw new HttpError(400, 'request body is not valid JSON');
  }
}

function field(body: unknown, name: string): unknown {
  return typeof body === 'object' && body !== null ? (body as Record<string, unknown>)[name] : undefined;
}

function stringField(body: unknown, name: string): string {
  const value = field(body, name);
  if (typeof value !== 'string') throw new HttpError(400, `'${name}' must be a string`);
  return value;
}

function countField(body: unknown, name: string): number {
  const value = field(body, name);
  if (typeof value !== 'number' || !Number.isInteger(value) || value < 0) {
    throw new HttpError(400, `'${name}' must be a non-negative integer`);
  }
  return value;
}

/**
 * Serves one control request; `route` is the path below the control prefix (e.g. `/updated`).
 * Answers `{ ok: true }`, the stats object, or `{ error }` with a 4xx status.
 */
export async function handleControl(
  target: ControlTarget,
  req: IncomingMessage,
  res: ServerResponse,
  route: string,
): Promise<void> {
  try {
    if (route === '/stats') {
      if (req.method !== 'GET') throw new HttpError(405, 'use GET');
      sendJson(res, 200, target.stats);
      return;
    }
    if (req.method !== 'POST') throw new HttpError(route === '' || route === '/' ? 404 : 405, 'use POST');
    const body = await readJsonBody(req);
    switch (route) {
      case '/updated':
        await target.triggerUpdated(stringField(body, 'uri'));
        break;
      case '/list-changed':
        await target.triggerListChanged();
        break;
      case '/fail':
        try {
          target.failNext(parseFailure(body));
        } catch (error) {
          throw new HttpError(400, error instanceof Error ? error.message : String(error));
        }
        break;
      case '/clear-failures':
        target.clearFailures();
        break;
      case '/latency':
        target.setLatency(countField(body, 'ms'));
        break;
      case '/resources':
        target.setResourceCount(countField(body, 'count'));
        break;
      case '/text':
        target.setText(stringField(body, 'uri'), stringField(body, 'text'));
        break;
      case '/tools':
        await target.setToolCount(countField(body, 'count'));
        break;
      case '/prompts':
        await target.setPromptCount(countField(body, 'count'));
        break;
      case '/tools-list-changed':
        await target.triggerToolsListChanged();
        break;
      case '/prompts-list-changed':
        await target.triggerPromptsListChanged();
        break;
      default:
        throw new HttpError(404, `unknown control route '${route}'`);
    }
    sendJson(res, 200, { ok: true });
  } catch (error) {
    const status = error instanceof HttpError ? error.status : 500;
    const message = error instanceof Error ? error.message : String(error);
    req.resume();
    if (!res.headersSent) sendJson(res, status, { error: message });
    else res.destroy();
  }
}

/**
 * A client of the control API served next to a TestServer's HTTP listener (or by the CLI's `--control-file`).
 * `controlUrl` is the base, e.g. `http://127.0.0.1:PORT/control`. Non-2xx answers reject with the server's error.
 */
export function controlClient(controlUrl: string): ControlClient {
  const base = controlUrl.replace(/\/+$/, '');
  async function call(route: string, body?: unknown): Promise<unknown> {
    const response = await fetch(`${base}${route}`, {
      method: body === undefined && route === '/stats' ? 'GET' : 'POST',
      ...(body === undefined
        ? {}
        : { headers: { 'content-type': 'application/json' }, body: JSON.stringify(body) }),
    });
    const text = await response.text();
    const parsed: unknown = text === '' ? undefined : JSON.parse(text);
    if (!response.ok) {
      const message = field(parsed, 'error');
      throw new Error(
        `control ${route} failed (${response.status}): ${typeof message === 'string' ? message : text}`,
      );
    }
    return parsed;
  }
  return {
    updated: async (uri) => void (await call('/updated', { uri })),
    listChanged: async () => void (await call('/list-changed', {})),
    fail: async (failure) => void (await call('/fail', normalizeTimes(failure))),
    clearFailures: async () => void (await call('/clear-failures', {})),
    latency: async (ms) => void (await call('/latency', { ms })),
    resources: async (count) => void (await call('/resources', { count })),
    tools: async (count) => void (await call('/tools', { count })),
    prompts: async (count) => void (await call('/prompts', { count })),
    toolsListChanged: async () => void (await call('/tools-list-changed', {})),
    promptsListChanged: async () => void (await call('/prompts-list-changed', {})),
    text: async (uri, text) => void (await call('/text', { uri, text })),
    stats: async () => (await call('/stats')) as TestServerStats,
  };
}

/** JSON cannot carry Infinity: send it as -1 (same meaning). */
function normalizeTimes(failure: Failure): Failure {
  return failure.times === Number.POSITIVE_INFINITY ? { ...failure, times: -1 } : failure;
}
