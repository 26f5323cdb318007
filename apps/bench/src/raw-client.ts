/**
 * A lean MCP client for measuring: JSON-RPC over Streamable HTTP (2025-06-18 era) on a keep-alive
 * `node:http` agent, no schema validation. It exists so that a benchmark can measure the server side
 * (the gateway, its cache) rather than the official client's own per-request cost (fetch, zod), which is
 * ~1–2 ms of CPU per request on this class of machine and is paid equally on every path. Only
 * `request` is implemented: what the benchmarks call.
 */
import { Agent, request as httpRequest, type IncomingMessage } from 'node:http';

const PROTOCOL_VERSION = '2025-06-18';

export class RawMcpClient {
  readonly #url: URL;
  readonly #agent = new Agent({ keepAlive: true, maxSockets: 64 });
  #session: string | undefined;
  #nextId = 1;

  constructor(url: string) {
    this.#url = new URL(url);
  }

  async connect(): Promise<void> {
    await this.request({
      method: 'initialize',
      params: {
        protocolVersion: PROTOCOL_VERSION,
        capabilities: {},
        clientInfo: { name: 'bench-raw', version: '0.0.0' },
      },
    });
    await this.#post({ jsonrpc: '2.0', method: 'notifications/initialized' });
  }

  /** Sends one request; resolves with its result, rejects with its JSON-RPC error. */
  async request(
    message: { method: string; params?: Record<string, unknown> },
    _options?: unknown,
  ): Promise<Record<string, unknown>> {
    const id = this.#nextId++;
    const reply = await this.#post({
      jsonrpc: '2.0',
      id,
      method: message.method,
      params: message.params ?? {},
    });
    const answer = reply.find((m) => m.id === id);
    if (!answer) throw new Error(`no response to ${message.method} (id ${id})`);
    if (answer.error) {
      const error = answer.error as { code: number; message: string };
      throw Object.assign(new Error(error.message), { code: error.code });
    }
    return answer.result as Record<string, unknown>;
  }

  async close(): Promise<void> {
    if (this.#session) {
      await new Promise<void>((resolve) => {
        const req = httpRequest(this.#url, {
          method: 'DELETE',
          agent: this.#agent,
          headers: { 'mcp-session-id': this.#session, 'mcp-protocol-version': PROTOCOL_VERSION },
        });
        req.on('response', (res) => res.resume().on('end', resolve));
        req.on('error', () => resolve());
        req.end();
      });
    }
    this.#agent.destroy();
  }

  #post(body: unknown): Promise<Record<string, unknown>[]> {
    const payload = JSON.stringify(body);
    const headers: Record<string, string | number> = {
      'content-type': 'application/json',
      accept: 'application/json, text/event-stream',
      'content-length': Buffer.byteLength(payload),
    };
    if (this.#session) {
      headers['mcp-session-id'] = this.#session;
      headers['mcp-protocol-version'] = PROTOCOL_VERSION;
    }
    return new Promise((resolve, reject) => {
      const req = httpRequest(this.#url, { method: 'POST', agent: this.#agent, headers });
      req.on('error', reject);
      req.on('response', (res: IncomingMessage) => {
        const session = res.headers['mcp-session-id'];
        if (typeof session === 'string') this.#session = session;
        const chunks: Buffer[] = [];
        res.on('data', (c: Buffer) => chunks.push(c));
        res.on('error', reject);
        res.on('end', () => {
          const text = Buffer.concat(chunks).toString('utf8');
          if ((res.statusCode ?? 0) >= 400)
            return reject(new Error(`HTTP ${res.statusCode}: ${text.slice(0, 200)}`));
          try {
            resolve(parseMessages(text, String(res.headers['content-type'] ?? '')));
          } catch (error) {
            reject(error);
          }
        });
      });
      req.end(payload);
    });
  }
}

/** A JSON body, or the `data:` lines of an event stream; 202 (no body) is no messages. */
export function parseMessages(text: string, contentType: string): Record<string, unknown>[] {
  if (text.trim() === '') return [];
  if (!contentType.includes('text/event-stream')) {
    const parsed = JSON.parse(text) as unknown;
    return (Array.isArray(parsed) ? parsed : [parsed]) as Record<string, unknown>[];
  }
  const messages: Record<string, unknown>[] = [];
  for (const event of text.split(/\r?\n\r?\n/)) {
    const data = event
      .split(/\r?\n/)
      .filter((line) => line.startsWith('data:'))
      .map((line) => line.slice(5).trimStart())
      .join('\n');
    if (data) messages.push(JSON.parse(data) as Record<string, unknown>);
  }
  return messages;
}
