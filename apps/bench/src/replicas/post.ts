/** One JSON-RPC POST over Streamable HTTP on a keep-alive `node:http` agent, for the replicas benchmark. */
import { type Agent, request as httpRequest, type IncomingHttpHeaders } from 'node:http';
import { parseMessages } from '../raw-client.js';

/** The answer to one POST: its HTTP status and headers, and the JSON-RPC messages of its body. */
export interface PostReply {
  status: number;
  headers: IncomingHttpHeaders;
  messages: Record<string, unknown>[];
  /** The raw body when the status is an error (≥ 400), for messages. */
  text: string;
}

/**
 * POSTs `body` (JSON) to `url` with `headers` and reads the whole reply (JSON or an event stream).
 * Rejects only on a transport error; an HTTP error status is in the reply.
 */
export function postJson(
  url: URL,
  agent: Agent,
  body: unknown,
  headers: Record<string, string> = {},
): Promise<PostReply> {
  const payload = JSON.stringify(body);
  return new Promise((resolve, reject) => {
    const req = httpRequest(url, {
      method: 'POST',
      agent,
      headers: {
        'content-type': 'application/json',
        accept: 'application/json, text/event-stream',
        'content-length': Buffer.byteLength(payload),
        ...headers,
      },
    });
    req.on('error', reject);
    req.on('response', (res) => {
      const chunks: Buffer[] = [];
      res.on('data', (c: Buffer) => chunks.push(c));
      res.on('error', reject);
      res.on('end', () => {
        const text = Buffer.concat(chunks).toString('utf8');
        const status = res.statusCode ?? 0;
        try {
          const messages =
            status >= 400 && !text.trimStart().startsWith('{')
              ? []
              : parseMessages(text, String(res.headers['content-type'] ?? ''));
          resolve({ status, headers: res.headers, messages, text: status >= 400 ? text : '' });
        } catch (error) {
          reject(error);
        }
      });
    });
    req.end(payload);
  });
}

/** The result of the response to request `id` in `reply`; throws with its JSON-RPC error or HTTP status. */
export function resultOf(reply: PostReply, id: number, what: string): Record<string, unknown> {
  const answer = reply.messages.find((m) => m.id === id);
  if (answer?.error) {
    const error = answer.error as { code: number; message: string; data?: unknown };
    throw Object.assign(new Error(`${what}: ${error.message} (${error.code})`), {
      code: error.code,
      data: error.data,
      status: reply.status,
    });
  }
  if (!answer || reply.status >= 400) {
    throw Object.assign(new Error(`${what}: HTTP ${reply.status} ${reply.text.slice(0, 200)}`), {
      status: reply.status,
    });
  }
  return answer.result as Record<string, unknown>;
}
