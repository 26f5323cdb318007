import { randomUUID } from 'node:crypto';
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { NodeStreamableHTTPServerTransport } from '@modelcontextprotocol/node';
import {
  type EventId,
  type EventStore,
  type JSONRPCMessage,
  McpServer,
  type StreamId,
} from '@modelcontextprotocol/server';
import type { Cleanup } from '@switchyard/testkit';
import { z } from 'zod';

// A 2025-only Streamable HTTP upstream on the official SDK (v2) that polls as SEP-1699 lets a server:
// resumable sessions (an event store, priming events with `retry`), and tools that close their own
// response stream mid-call (`ctx.http.closeSSE`, the SDK's `closeSSEStream`), so that the client must
// come back with `GET` + `Last-Event-ID` for the answer.

export interface PollingUpstreamOptions {
  /** The `retry` its priming events ask for (ms). */
  retryMs: number;
  /** Answer every `GET` that resumes a stream with 405 (a server that closes streams it cannot resume). */
  refuseResume?: boolean;
}

/** What the upstream saw. */
export interface PollingUpstreamLog {
  /** The `Last-Event-ID` of every `GET` that resumed a stream, in order. */
  resumptions: string[];
  /** Ids of the requests the client cancelled (`notifications/cancelled`). */
  cancelled: unknown[];
  /** Tool calls started, by tool name. */
  calls: string[];
}

/**
 * Starts the upstream on an ephemeral loopback port; `cleanup` closes it. Tools:
 * - `poll` `{ ms? }`: sends progress 1 (when asked for progress), closes its response stream, waits `ms`
 *   (default 100), sends progress 2 and answers `polled`;
 * - `poll_forever`: closes its response stream, and every stream that resumes it, every 20 ms, and never
 *   answers (until cancelled);
 * - `echo` `{ text }`: answers at once.
 */
export async function pollingUpstream(cleanup: Cleanup, options: PollingUpstreamOptions) {
  const log: PollingUpstreamLog = { resumptions: [], cancelled: [], calls: [] };
  const sessions = new Map<string, { server: McpServer; transport: NodeStreamableHTTPServerTransport }>();

  const newServer = () => {
    const server = new McpServer({ name: 'polling', version: '1.0.0' });
    server.registerTool(
      'poll',
      {
        description: 'Closes its response stream, then answers',
        inputSchema: z.object({ ms: z.number().optional() }),
      },
      async ({ ms }, ctx) => {
        log.calls.push('poll');
        const token = ctx.mcpReq._meta?.progressToken;
        const progress = (n: number) =>
          token === undefined
            ? undefined
            : ctx.mcpReq.notify({
                method: 'notifications/progress',
                params: { progressToken: token, progress: n },
              });
        await progress(1);
        ctx.http?.closeSSE?.();
        await sleep(ms ?? 100, ctx.mcpReq.signal);
        await progress(2);
        return { content: [{ type: 'text', text: 'polled' }] };
      },
    );
    server.registerTool(
      'poll_forever',
      { description: 'Keeps closing its response stream and never answers', inputSchema: z.object({}) },
      async (_args, ctx) => {
        log.calls.push('poll_forever');
        while (!ctx.mcpReq.signal.aborted) {
          ctx.http?.closeSSE?.();
          await sleep(20, ctx.mcpReq.signal).catch(() => {});
        }
        return { content: [] };
      },
    );
    server.registerTool(
      'echo',
      { description: 'Answers at once', inputSchema: z.object({ text: z.string() }) },
      ({ text }) => ({ content: [{ type: 'text', text }] }),
    );
    return server;
  };

  const handle = async (req: IncomingMessage, res: ServerResponse) => {
    if (req.method !== 'POST') req.resume();
    const body = req.method === 'POST' ? await readJson(req) : undefined;
    for (const message of Array.isArray(body) ? body : [body]) {
      const m = message as { method?: unknown; params?: { requestId?: unknown } } | undefined;
      if (m?.method === 'notifications/cancelled') log.cancelled.push(m.params?.requestId);
    }
    const lastEventId = req.headers['last-event-id'];
    if (req.method === 'GET' && typeof lastEventId === 'string') {
      log.resumptions.push(lastEventId);
      if (options.refuseResume) {
        res.writeHead(405, { allow: 'POST, DELETE' }).end();
        return;
      }
    }
    const sessionId = req.headers['mcp-session-id'];
    const session = typeof sessionId === 'string' ? sessions.get(sessionId) : undefined;
    if (session) {
      await session.transport.handleRequest(req, res, body);
      return;
    }
    if (req.method !== 'POST' || (body as { method?: unknown } | undefined)?.method !== 'initialize') {
      // No session: what a 2025-only server answers (the gateway's `server/discover` probe lands here).
      res.writeHead(400, { 'content-type': 'application/json' });
      res.end(
        JSON.stringify({ jsonrpc: '2.0', id: null, error: { code: -32000, message: 'No valid session' } }),
      );
      return;
    }
    const server = newServer();
    const transport: NodeStreamableHTTPServerTransport = new NodeStreamableHTTPServerTransport({
      sessionIdGenerator: () => randomUUID(),
      eventStore: new MemoryEventStore(),
      retryInterval: options.retryMs,
      onsessioninitialized: (id) => {
        sessions.set(id, { server, transport });
      },
    });
    transport.onclose = () => {
      if (transport.sessionId !== undefined) sessions.delete(transport.sessionId);
    };
    await server.connect(transport);
    await transport.handleRequest(req, res, body);
  };

  const http = createServer((req, res) => {
    handle(req, res).catch(() => res.destroy());
  });
  await new Promise<void>((resolve) => http.listen(0, '127.0.0.1', resolve));
  cleanup.add(async () => {
    await Promise.allSettled([...sessions.values()].map((s) => s.server.close()));
    http.closeAllConnections();
    await new Promise((resolve) => http.close(resolve));
  });
  const { port } = http.address() as AddressInfo;
  return { url: `http://127.0.0.1:${port}/mcp`, log };
}

/** The SDK's resumption contract, in memory: every event of the session, replayed per stream. */
class MemoryEventStore implements EventStore {
  readonly #events = new Map<EventId, { streamId: StreamId; message: JSONRPCMessage }>();
  #next = 0;

  async storeEvent(streamId: StreamId, message: JSONRPCMessage): Promise<EventId> {
    this.#next += 1;
    const id = `${streamId}_${this.#next}`;
    this.#events.set(id, { streamId, message });
    return id;
  }

  async getStreamIdForEventId(eventId: EventId): Promise<StreamId | undefined> {
    return this.#events.get(eventId)?.streamId;
  }

  async replayEventsAfter(
    lastEventId: EventId,
    { send }: { send: (eventId: EventId, message: JSONRPCMessage) => Promise<void> },
  ): Promise<StreamId> {
    const last = this.#events.get(lastEventId);
    if (!last) throw new Error(`unknown event id ${lastEventId}`);
    let after = false;
    for (const [id, event] of this.#events) {
      if (after && event.streamId === last.streamId) await send(id, event.message);
      if (id === lastEventId) after = true;
    }
    return last.streamId;
  }
}

function readJson(req: IncomingMessage): Promise<unknown> {
  return new Promise((resolve, reject) => {
    let text = '';
    req.setEncoding('utf8');
    req.on('data', (chunk: string) => {
      text += chunk;
    });
    req.once('end', () => {
      try {
        resolve(text === '' ? undefined : JSON.parse(text));
      } catch (error) {
        reject(error);
      }
    });
    req.once('error', reject);
  });
}

function sleep(ms: number, signal: AbortSignal): Promise<void> {
  return new Promise((resolve, reject) => {
    if (signal.aborted) return reject(signal.reason);
    const timer = setTimeout(() => {
      signal.removeEventListener('abort', abort);
      resolve();
    }, ms);
    const abort = () => {
      clearTimeout(timer);
      reject(signal.reason);
    };
    signal.addEventListener('abort', abort, { once: true });
  });
}
