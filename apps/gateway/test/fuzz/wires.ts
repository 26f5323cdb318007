import { messagesOf, RawWs, rawHttp } from '../support/raw-wire.js';
import type { RawStdioGateway } from '../support/stdio.js';
import {
  type AdminCase,
  buildMessage,
  expectedIds,
  type HttpVariant,
  type MessageCase,
  PROTO_NAMES,
} from './inputs.js';
import { classOf, isServerMessage, preview, problemWith, type Verdict } from './verdict.js';

// Each wire sends one case and judges the answer: an HTTP status under 500 with a JSON-RPC error or
// result, every request with an id answered, nothing left hanging (each exchange is bounded).

/** How long one exchange may take before it counts as a hang (generous: a loaded CI box is slow). */
export const CASE_TIMEOUT_MS = 30_000;
/** The stdio listener's longest line (JsonLineTransport). */
const MAX_LINE_CHARS = 16 * 1024 * 1024;
const LEGACY_VERSION = '2025-06-18';
const INITIALIZE = JSON.stringify({
  jsonrpc: '2.0',
  id: 'init',
  method: 'initialize',
  params: { protocolVersion: LEGACY_VERSION, capabilities: {}, clientInfo: { name: 'fuzz', version: '1' } },
});
const JSON_HEADERS = { 'content-type': 'application/json', accept: 'application/json, text/event-stream' };

/** Opens a legacy session over HTTP (as `token`'s client when given); its id. */
async function openSession(url: string, token?: string): Promise<string> {
  const headers = { ...JSON_HEADERS, ...(token ? { authorization: `Bearer ${token}` } : {}) };
  const init = await rawHttp(
    url,
    { target: new URL(url).pathname, headers, body: INITIALIZE },
    CASE_TIMEOUT_MS,
  );
  const id = init.headers['mcp-session-id'];
  if (!id) throw new Error(`no session: ${init.status} ${init.body}`);
  await rawHttp(url, {
    target: new URL(url).pathname,
    headers: { ...headers, 'mcp-session-id': id, 'mcp-protocol-version': LEGACY_VERSION },
    body: '{"jsonrpc":"2.0","method":"notifications/initialized"}',
  });
  return id;
}

async function closeSession(url: string, id: string, token?: string): Promise<void> {
  await rawHttp(url, {
    method: 'DELETE',
    target: new URL(url).pathname,
    headers: { 'mcp-session-id': id, ...(token ? { authorization: `Bearer ${token}` } : {}) },
  }).catch(() => {});
}

/**
 * The MCP endpoint over HTTP in one era: legacy requests on a session (or with an absent, bogus, deleted
 * or another client's session id), modern ones stateless with `MCP-Protocol-Version`, `Mcp-Method` and
 * `Mcp-Name`. Sessions a case opens (a fuzzed `initialize`) are closed again at once.
 */
export class HttpWire {
  readonly #url: string;
  readonly #path: string;
  readonly #era: 'legacy' | 'modern';
  #session = '';
  #foreign = '';
  #deleted = '';
  /** Sessions the cases opened, all closed by the time a case ends. */
  opened = 0;

  constructor(url: string, era: 'legacy' | 'modern') {
    this.#url = url;
    this.#path = new URL(url).pathname;
    this.#era = era;
  }

  async start(): Promise<void> {
    this.#session = await openSession(this.#url);
    this.#foreign = await openSession(this.#url, 'fuzz-admin');
    this.#deleted = await openSession(this.#url);
    await closeSession(this.#url, this.#deleted);
  }

  async close(): Promise<void> {
    await closeSession(this.#url, this.#session);
    await closeSession(this.#url, this.#foreign, 'fuzz-admin');
  }

  async run(c: MessageCase, v: HttpVariant): Promise<Verdict> {
    const built = buildMessage(c, this.#era);
    const headers: Record<string, string> = {};
    if (v.contentType !== null) headers['content-type'] = v.contentType;
    if (v.accept !== null) headers.accept = v.accept;
    const version =
      v.version === 'right' ? (this.#era === 'modern' ? '2026-07-28' : LEGACY_VERSION) : v.version;
    if (version !== 'none') headers['mcp-protocol-version'] = version;
    if (v.authorization !== null) headers.authorization = v.authorization;
    const session = this.#sessionHeader(v.session);
    if (session !== undefined) headers['mcp-session-id'] = session;
    if (this.#era === 'modern' && v.mirror !== 'none') {
      const wrong = v.mirror === 'wrong';
      if (built.method !== undefined) headers['mcp-method'] = wrong ? 'tools/list' : built.method;
      if (built.name !== undefined) headers['mcp-name'] = wrong ? PROTO_NAMES[0] : headerValue(built.name);
    }
    const target = v.path === '/mcp' ? this.#path : v.path;
    let answer: Awaited<ReturnType<typeof rawHttp>>;
    try {
      answer = await rawHttp(
        this.#url,
        { method: v.method, target, headers, body: built.text },
        CASE_TIMEOUT_MS,
      );
    } catch (error) {
      return { outcome: 'hang', problem: `${(error as Error).message}: ${preview(built.text)}` };
    }
    // A session the case opened is closed again; the wire's own session is reopened if the case closed it.
    const opened = answer.headers['mcp-session-id'];
    if (opened !== undefined && opened !== this.#session && opened !== this.#foreign) {
      this.opened += 1;
      await closeSession(
        this.#url,
        opened,
        v.authorization?.startsWith('Bearer fuzz-') ? v.authorization.slice(7) : undefined,
      );
    }
    if (v.method === 'DELETE' && v.session === 'valid' && answer.status === 200) {
      this.#session = await openSession(this.#url);
    }
    return judgeHttp(
      answer,
      v.method,
      built.text,
      `${v.method} ${target.slice(0, 40)} ${preview(headers, 200)} ${preview(built.text, 3_000)}`,
    );
  }

  #sessionHeader(choice: HttpVariant['session']): string | undefined {
    switch (choice) {
      case 'valid':
        return this.#era === 'legacy' ? this.#session : undefined;
      case 'none':
        return undefined;
      case 'bogus':
        return 'f00dfeed-0000-4000-8000-000000000000';
      case 'foreign':
        return this.#foreign;
      case 'deleted':
        return this.#deleted;
      case 'proto':
        return '__proto__';
      case 'long':
        return 's'.repeat(8_000);
    }
  }
}

/** A header value as the 2026-07-28 wire writes one: plain when visible ASCII, else `=?base64?…?=`. */
function headerValue(text: string): string {
  if (/^[\x21-\x7e]([\x20-\x7e]*[\x21-\x7e])?$/.test(text)) return text;
  return `=?base64?${Buffer.from(text, 'utf8').toString('base64')}?=`;
}

/** An MCP endpoint's HTTP answer: under 500, a JSON-RPC error when refused, every request id answered. */
function judgeHttp(
  answer: Awaited<ReturnType<typeof rawHttp>>,
  method: string,
  text: string,
  what: string,
): Verdict {
  const { status } = answer;
  const messages = messagesOf(answer)?.filter((m) => !isServerMessage(m));
  const first = messages?.[0];
  const outcome = `${status} ${messages === undefined ? 'unparsable' : messages.length === 0 ? 'empty' : classOf(first)}`;
  if (status === 0) return { outcome, problem: `no HTTP answer: ${what}` };
  if (status >= 500) {
    const reason = (first as { error?: { data?: { reason?: unknown } } } | undefined)?.error?.data?.reason;
    if (status === 503 && reason === 'too_many_sessions') return { outcome };
    return { outcome, problem: `HTTP ${status} ${preview(answer.body)}: ${what}` };
  }
  if (method === 'HEAD' || (method === 'GET' && status === 200)) return { outcome };
  if (messages === undefined)
    return {
      outcome,
      problem: `HTTP ${status} with a body that is no JSON-RPC: ${preview(answer.body)}: ${what}`,
    };
  for (const message of messages) {
    const problem = problemWith(message);
    if (problem !== undefined) return { outcome, problem: `HTTP ${status} ${problem}: ${what}` };
  }
  if (status >= 400) {
    if (messages.length === 0)
      return { outcome, problem: `HTTP ${status} without a JSON-RPC error: ${what}` };
    return { outcome };
  }
  // Accepted: each request with an id has its answer.
  if (method === 'POST') {
    const { ids } = expectedIds(text);
    const answered = new Set(messages.map((m) => (m as { id?: unknown }).id));
    const missing = ids.filter((id) => !answered.has(id));
    if (missing.length > 0)
      return { outcome, problem: `HTTP ${status}: no answer for id(s) ${preview(missing)}: ${what}` };
  }
  return { outcome };
}

/** What a framed wire (WebSocket, stdio) is: send one text, wait for a message. */
interface Framed {
  send(text: string): void;
  waitFor(predicate: (message: unknown) => boolean, what: string, timeoutMs: number): Promise<unknown>;
  /** Messages received since the last `clear`. */
  received(): unknown[];
  clear(): void;
}

let sentinels = 0;

/**
 * Sends one case on a framed wire and waits for a ping sent right behind it: every request of the case
 * with an id must be answered, and a text that is no JSON must get an error (id null) before that ping's
 * answer (it is answered on arrival, the ping after it).
 */
export async function runFramed(
  wire: Framed,
  c: MessageCase,
  era: 'legacy' | 'modern',
  lines = false,
): Promise<Verdict> {
  // One line per message: a newline in the text is sent as a space (which may make it JSON, or not).
  const text = lines ? buildMessage(c, era).text.replace(/\n/g, ' ') : buildMessage(c, era).text;
  // A line over the stdio limit (16 MiB) is refused whole, like text that is no JSON.
  const { ids, parses } =
    lines && text.length > MAX_LINE_CHARS ? { ids: [], parses: false } : expectedIds(text);
  // A blank line is no message on a line-framed wire (stdio skips it); a blank WebSocket frame is one.
  const blank = lines && text.trim().length === 0;
  wire.clear();
  const sentinel = `fuzz-sentinel-${++sentinels}`;
  const what = preview(text, 3_000);
  try {
    wire.send(text);
    wire.send(JSON.stringify({ jsonrpc: '2.0', id: sentinel, method: 'ping' }));
    await wire.waitFor(idIs(sentinel), 'the ping behind the case', CASE_TIMEOUT_MS);
    for (const id of ids) await wire.waitFor(idIs(id), `the answer to id ${preview(id)}`, CASE_TIMEOUT_MS);
  } catch (error) {
    return { outcome: 'hang', problem: `${(error as Error).message}: ${what}` };
  }
  const answers = wire.received().filter((m) => !idIs(sentinel)(m) && !isServerMessage(m));
  const first = answers[0];
  const outcome = answers.length === 0 ? 'no answer' : classOf(first);
  for (const message of answers) {
    const problem = problemWith(message);
    if (problem !== undefined) return { outcome, problem: `${problem}: ${what}` };
  }
  if (!parses && !blank && !answers.some((m) => (m as { id?: unknown }).id === null)) {
    return { outcome, problem: `no error for a text that is no JSON: ${what}` };
  }
  return { outcome };
}

function idIs(id: unknown): (message: unknown) => boolean {
  return (message) =>
    typeof message === 'object' && message !== null && (message as { id?: unknown }).id === id;
}

/** A WebSocket session; reopened when a case closes it (a frame over the size limit gets 1009). */
export class WsWire implements Framed {
  readonly #url: string;
  #ws: RawWs | undefined;
  #from = 0;
  /** Connections the gateway closed, by close code. */
  readonly closes = new Map<number, number>();

  constructor(url: string) {
    this.#url = url;
  }

  async start(): Promise<void> {
    this.#ws = await RawWs.open(this.#url);
    this.#ws.send(INITIALIZE);
    await this.#ws.waitFor(idIs('init'), 'the WebSocket initialize result');
    this.#ws.send('{"jsonrpc":"2.0","method":"notifications/initialized"}');
  }

  /** Runs a case; a connection closed by it is counted (1009, over the limit, is expected) and reopened. */
  async run(c: MessageCase, era: 'legacy' | 'modern', maxFrameBytes: number): Promise<Verdict> {
    if (this.#ws?.closed) await this.start();
    const size = Buffer.byteLength(buildMessage(c, era).text);
    const verdict = await runFramed(this, c, era);
    const closed = this.#ws?.closed;
    if (closed === undefined) return verdict;
    this.closes.set(closed.code, (this.closes.get(closed.code) ?? 0) + 1);
    await this.start();
    if (closed.code === 1009 && size > maxFrameBytes) return { outcome: 'close 1009' };
    return {
      outcome: `close ${closed.code}`,
      problem: verdict.problem ?? `the gateway closed the connection (${closed.code})`,
    };
  }

  send(text: string): void {
    this.#ws!.send(text);
  }

  waitFor(predicate: (message: unknown) => boolean, what: string, timeoutMs: number): Promise<unknown> {
    const ws = this.#ws!;
    const from = this.#from;
    return ws.waitFor((m) => ws.messages.indexOf(m) >= from && predicate(m), what, timeoutMs);
  }

  received(): unknown[] {
    return this.#ws!.messages.slice(this.#from);
  }

  clear(): void {
    const ws = this.#ws!;
    ws.messages.splice(0);
    this.#from = 0;
  }

  close(): void {
    this.#ws?.close();
  }
}

/** The gateway's own stdin and stdout (its stdio listener). */
export class StdioWire implements Framed {
  readonly #gw: RawStdioGateway;
  #messages: unknown[] = [];
  readonly #waiters = new Set<() => void>();

  constructor(gw: RawStdioGateway) {
    this.#gw = gw;
    gw.onLine((line, stream) => {
      if (stream !== 'stdout') return;
      this.#messages.push(parse(line));
      for (const waiter of this.#waiters) waiter();
    });
  }

  async start(): Promise<void> {
    this.send(INITIALIZE);
    await this.waitFor(idIs('init'), 'the stdio initialize result', CASE_TIMEOUT_MS);
    this.send('{"jsonrpc":"2.0","method":"notifications/initialized"}');
  }

  /** Writes `text` as one line (runFramed has made it one). */
  send(text: string): void {
    this.#gw.child.stdin?.write(`${text}\n`);
  }

  /** Resolves with the first message since the last `clear` that `predicate` accepts; rejects on timeout or exit. */
  waitFor(predicate: (message: unknown) => boolean, what: string, timeoutMs: number): Promise<unknown> {
    return new Promise((resolve, reject) => {
      const check = () => {
        const found = this.#messages.find(predicate);
        if (found === undefined) return;
        done();
        resolve(found);
      };
      const timer = setTimeout(() => {
        done();
        reject(new Error(`no ${what} within ${timeoutMs} ms on stdio`));
      }, timeoutMs);
      const done = () => {
        clearTimeout(timer);
        this.#waiters.delete(check);
      };
      this.#waiters.add(check);
      this.#gw.exited.then(() => {
        done();
        reject(new Error(`the gateway exited before ${what}`));
      });
      check();
    });
  }

  received(): unknown[] {
    return [...this.#messages];
  }

  clear(): void {
    this.#messages = [];
    // The harness's own copy of every line is not needed here: keep its memory flat over a long run.
    this.#gw.lines.splice(0);
  }
}

function parse(line: string): unknown {
  try {
    return JSON.parse(line);
  } catch {
    return { unparsable: line };
  }
}

/** One admin listener request: any method, path, token and body; never a 5xx, a JSON body on /admin/. */
export async function runAdmin(url: string, c: AdminCase): Promise<Verdict> {
  const headers: Record<string, string> = {};
  if (c.token !== null) headers.authorization = `Bearer ${c.token}`;
  if (c.body !== null) headers['content-type'] = 'application/json';
  const what = `${c.method} ${c.path.slice(0, 60)} token=${c.token} ${preview(c.body, 80)}`;
  let answer: Awaited<ReturnType<typeof rawHttp>>;
  try {
    answer = await rawHttp(
      url,
      { method: c.method, target: c.path, headers, body: c.body ?? undefined },
      CASE_TIMEOUT_MS,
    );
  } catch (error) {
    return { outcome: 'hang', problem: `${(error as Error).message}: ${what}` };
  }
  const outcome = `${answer.status}`;
  if (answer.status === 0 || answer.status >= 500) {
    // 503 from /readyz is its answer (not ready), not a failure.
    if (answer.status === 503 && c.path === '/readyz') return { outcome };
    return { outcome, problem: `HTTP ${answer.status} ${preview(answer.body)}: ${what}` };
  }
  const json = c.method !== 'HEAD' && answer.headers['content-type']?.startsWith('application/json');
  if (json) {
    try {
      JSON.parse(answer.body);
    } catch {
      return { outcome, problem: `a JSON answer that does not parse: ${preview(answer.body)}: ${what}` };
    }
  }
  return { outcome };
}
