import { once } from 'node:events';
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { Cleanup } from '@switchyard/testkit';

// A legacy HTTP+SSE upstream (2024-11-05) on a loopback port, in the test's process, that misbehaves on
// request: its tools answer too big, with garbage, not at all, or by dropping the event stream.

type Json = Record<string, unknown>;

export interface SseUpstreamOptions {
  /** Only a GET with this `Authorization` (and `?token=` below) gets a stream; any other gets 401. */
  authorization?: string;
  token?: string;
}

/** One event stream the upstream served: a server session, and the methods POSTed to it in order. */
export interface SseSession {
  id: string;
  methods: string[];
  /** URIs subscribed in this session. */
  subscribed: string[];
}

export interface SseUpstream {
  /** The `/sse` URL. */
  url: string;
  sessions: SseSession[];
  /** GETs of the stream refused with 503 (while `refusing`). */
  refused: number;
  /** While set, a GET of the stream is answered 503. */
  refusing: boolean;
  /** Ends every open event stream. */
  dropStreams(): void;
}

const MIB = 1024 * 1024;
const TOOLS = ['good', 'huge', 'garbage', 'drop', 'silent'].map((name) => ({
  name,
  inputSchema: { type: 'object' },
}));

export async function sseUpstream(cleanup: Cleanup, options: SseUpstreamOptions = {}): Promise<SseUpstream> {
  const streams = new Map<string, ServerResponse>();
  let next = 0;
  const upstream: SseUpstream = {
    url: '',
    sessions: [],
    refused: 0,
    refusing: false,
    dropStreams: () => {
      for (const stream of streams.values()) stream.end();
    },
  };
  const event = (stream: ServerResponse, data: string) => stream.write(`event: message\ndata: ${data}\n\n`);

  const openStream = (req: IncomingMessage, res: ServerResponse, url: URL) => {
    const authorized =
      (options.authorization === undefined || req.headers.authorization === options.authorization) &&
      (options.token === undefined || url.searchParams.get('token') === options.token);
    if (!authorized) return void res.writeHead(401).end('who are you');
    if (upstream.refusing) {
      upstream.refused += 1;
      return void res.writeHead(503).end('down for a moment');
    }
    const id = String(++next);
    upstream.sessions.push({ id, methods: [], subscribed: [] });
    res.writeHead(200, { 'content-type': 'text/event-stream', 'cache-control': 'no-cache' });
    res.write(`event: endpoint\ndata: /messages?sessionId=${id}\n\n`);
    streams.set(id, res);
    res.on('close', () => streams.delete(id));
  };

  const answer = async (stream: ServerResponse, session: SseSession, message: Json) => {
    const { id, method } = message as { id?: number | string; method: string };
    session.methods.push(method);
    if (id === undefined) return;
    const params = (message.params ?? {}) as Json;
    const reply = (result: Json) => event(stream, JSON.stringify({ jsonrpc: '2.0', id, result }));
    const text = (value: string) => reply({ content: [{ type: 'text', text: value }] });
    switch (method) {
      case 'initialize':
        return reply({
          protocolVersion: params.protocolVersion,
          capabilities: { tools: {}, resources: { subscribe: true } },
          serverInfo: { name: 'sse-upstream', version: '1.0.0' },
        });
      case 'tools/list':
        return reply({ tools: TOOLS });
      case 'resources/list':
        return reply({ resources: [{ uri: 'note://one', name: 'one' }] });
      case 'resources/subscribe':
        session.subscribed.push(String(params.uri));
        return reply({});
      case 'tools/call': {
        const args = (params.arguments ?? {}) as Json;
        switch (params.name) {
          case 'good':
            return text(`ok from session ${session.id}`);
          case 'huge': {
            // One answer of `mb` MiB, written as it is made: only a reader that discards it stays small.
            stream.write(
              `event: message\ndata: {"jsonrpc":"2.0","id":${JSON.stringify(id)},"result":{"content":[{"type":"text","text":"`,
            );
            const chunk = 'y'.repeat(MIB);
            for (let mb = 0; mb < Number(args.mb) && !stream.destroyed; mb++)
              if (!stream.write(chunk)) await once(stream, 'drain');
            return void stream.write('"}]}}\n\n');
          }
          case 'garbage':
            event(stream, 'this is not json {');
            return text('after garbage');
          case 'drop':
            return void stream.end();
          case 'silent':
            return;
        }
      }
    }
    event(stream, JSON.stringify({ jsonrpc: '2.0', id, error: { code: -32601, message: 'no such method' } }));
  };

  const server = createServer(async (req, res) => {
    const url = new URL(req.url ?? '/', 'http://upstream');
    if (req.method === 'GET' && url.pathname === '/sse') return openStream(req, res, url);
    if (req.method !== 'POST' || url.pathname !== '/messages') return void res.writeHead(404).end();
    const session = upstream.sessions.find((s) => s.id === url.searchParams.get('sessionId'));
    const stream = session && streams.get(session.id);
    let body = '';
    for await (const chunk of req) body += chunk;
    if (!session || !stream) return void res.writeHead(404).end('no such session');
    res.writeHead(202).end('Accepted');
    void answer(stream, session, JSON.parse(body) as Json);
  });
  server.listen(0, '127.0.0.1');
  await once(server, 'listening');
  cleanup.add(async () => {
    server.closeAllConnections();
    await new Promise((resolve) => server.close(resolve));
  });
  upstream.url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/sse`;
  return upstream;
}
