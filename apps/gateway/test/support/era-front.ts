import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { Cleanup } from '@switchyard/testkit';

// One upstream address whose server is replaced by one of the other era (a restart on the same URL): a
// loopback front forwarding every request to the testkit server it stands for now. A server that speaks
// 2026-07-28 only is modelled by refusing the 2025 `initialize` the way the probe found one doing (so it
// never has a legacy session: the testkit server answers any other 2025 request for one with 404).

/** Where the front sends requests: the server's MCP endpoint, and whether it refuses `initialize`. */
export interface FrontTarget {
  url: string;
  modernOnly: boolean;
}

/** Headers not forwarded as they are (the hop's own). */
const HOP_HEADERS = new Set([
  'host',
  'connection',
  'content-length',
  'transfer-encoding',
  'content-encoding',
]);

/** Starts the front on an ephemeral loopback port in front of `target`; `cleanup` closes it. */
export async function eraFront(cleanup: Cleanup, target: FrontTarget) {
  let current = target;
  const server = createServer((req, res) => {
    void forward(req, res, current).catch(() => res.destroy());
  });
  const listen = (port: number) =>
    new Promise<void>((resolve, reject) => {
      server.once('error', reject);
      server.listen(port, '127.0.0.1', () => {
        server.off('error', reject);
        resolve();
      });
    });
  const stop = () =>
    new Promise<void>((resolve) => {
      server.closeAllConnections();
      server.close(() => resolve());
    });
  await listen(0);
  cleanup.add(() => (server.listening ? stop() : undefined));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}/mcp`,
    /** Restarts at once as `next`: every open connection (streams included) drops, new ones reach it. */
    restart(next: FrontTarget): void {
      current = next;
      server.closeAllConnections();
    },
    /** The server is gone: open connections drop and new ones are refused, until {@link up}. */
    down: stop,
    /** Listens on the same port again, as `next`. */
    up(next: FrontTarget): Promise<void> {
      current = next;
      return listen(port);
    },
  };
}

async function forward(req: IncomingMessage, res: ServerResponse, target: FrontTarget): Promise<void> {
  const chunks: Buffer[] = [];
  for await (const chunk of req) chunks.push(chunk as Buffer);
  const body = Buffer.concat(chunks);
  const message = parse(body) as { id?: unknown; method?: unknown } | undefined;
  if (target.modernOnly && message?.method === 'initialize') {
    res.writeHead(400, { 'content-type': 'application/json' });
    const error = { code: -32600, message: 'this server speaks 2026-07-28 only' };
    res.end(JSON.stringify({ jsonrpc: '2.0', id: message.id ?? null, error }));
    return;
  }
  const headers = new Headers();
  for (const [name, value] of Object.entries(req.headers)) {
    if (value !== undefined && !HOP_HEADERS.has(name)) headers.set(name, String(value));
  }
  const aborted = new AbortController();
  res.on('close', () => aborted.abort());
  const answer = await fetch(new URL(req.url ?? '/', target.url), {
    method: req.method,
    headers,
    body: req.method === 'POST' ? body : undefined,
    signal: aborted.signal,
  });
  const out: Record<string, string> = {};
  answer.headers.forEach((value, name) => {
    if (!HOP_HEADERS.has(name)) out[name] = value;
  });
  res.writeHead(answer.status, out);
  if (answer.body) for await (const chunk of answer.body) res.write(chunk);
  res.end();
}

function parse(body: Buffer): unknown {
  try {
    return JSON.parse(body.toString());
  } catch {
    return undefined;
  }
}
