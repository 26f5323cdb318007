/**
 * The floor: a pass-through proxy with no MCP logic (HTTP POST bodies in, the same bytes to the upstream
 * over its transport, the answer back; ids rewritten on stdio and WebSocket), its own process so its CPU is
 * read like the gateway's: what any Node process in the path costs on this machine.
 *
 * Usage: node floor-proxy.js stdio <command> [args…] | http <url> | ws <url>; prints `listening <port>`.
 */
import { spawn } from 'node:child_process';
import { Agent, createServer, type IncomingMessage, request, type ServerResponse } from 'node:http';
import WebSocket from 'ws';

type Answer = (line: string) => void;

/** Sends one framed JSON-RPC message upstream; `answer` gets the matching reply's text. */
type Forward = (message: { id?: unknown }, answer: Answer) => void;

const [kind, target, ...rest] = process.argv.slice(2);
const pending = new Map<number, { id: unknown; answer: Answer }>();
let nextId = 1;

/** Rewrites a request's id to ours (several clients may reuse ids) and notes whom the answer goes to. */
function correlate(message: { id?: unknown }, answer: Answer, write: (text: string) => void): void {
  if (message.id === undefined) {
    write(JSON.stringify(message));
    answer('');
    return;
  }
  const id = nextId++;
  pending.set(id, { id: message.id, answer });
  write(JSON.stringify({ ...message, id }));
}

/** A reply from upstream, handed to the request it answers with the client's id put back. */
function settle(text: string): void {
  const message = JSON.parse(text) as { id?: unknown };
  const entry = typeof message.id === 'number' ? pending.get(message.id) : undefined;
  if (!entry) return; // a notification or a server-to-client request: the bench sends none
  pending.delete(message.id as number);
  entry.answer(JSON.stringify({ ...message, id: entry.id }));
}

function stdioForward(command: string, args: string[]): Forward {
  const child = spawn(command, args, { stdio: ['pipe', 'pipe', 'inherit'] });
  let buffer = '';
  child.stdout.setEncoding('utf8');
  child.stdout.on('data', (chunk: string) => {
    buffer += chunk;
    for (let nl = buffer.indexOf('\n'); nl >= 0; nl = buffer.indexOf('\n')) {
      settle(buffer.slice(0, nl));
      buffer = buffer.slice(nl + 1);
    }
  });
  process.once('exit', () => child.kill());
  return (message, answer) => correlate(message, answer, (text) => child.stdin.write(`${text}\n`));
}

function wsForward(url: string): Forward {
  const socket = new WebSocket(url, 'mcp');
  const open = new Promise((resolve, reject) => {
    socket.once('open', resolve);
    socket.once('error', reject);
  });
  socket.on('message', (data) => settle(String(data)));
  return (message, answer) => void open.then(() => correlate(message, answer, (text) => socket.send(text)));
}

/** Hop-by-hop headers, not relayed. */
const HOP_BY_HOP = new Set(['host', 'connection', 'keep-alive', 'transfer-encoding']);

/** Relays a whole request to the upstream URL, its headers included, and the answer back as is. */
function httpRelay(url: URL) {
  const agent = new Agent({ keepAlive: true, maxSockets: 256 });
  return (req: IncomingMessage, body: Buffer, res: ServerResponse) => {
    const headers: Record<string, string | string[]> = {};
    for (const [name, value] of Object.entries(req.headers)) {
      if (value !== undefined && !HOP_BY_HOP.has(name)) headers[name] = value;
    }
    const out = request(url, { method: req.method, agent, headers }, (up) => {
      const back: Record<string, string> = {};
      for (const name of ['content-type', 'mcp-session-id']) {
        const value = up.headers[name];
        if (typeof value === 'string') back[name] = value;
      }
      res.writeHead(up.statusCode ?? 502, back);
      up.pipe(res);
    });
    out.on('error', () => res.destroy());
    out.end(body);
  };
}

function main(): void {
  if (!target || !['stdio', 'http', 'ws'].includes(kind ?? '')) {
    process.stderr.write('usage: floor-proxy stdio <command> [args…] | http <url> | ws <url>\n');
    process.exit(2);
  }
  const relay = kind === 'http' ? httpRelay(new URL(target)) : undefined;
  const forward =
    kind === 'stdio' ? stdioForward(target, rest) : kind === 'ws' ? wsForward(target) : undefined;
  const server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (chunk: Buffer) => chunks.push(chunk));
    req.on('end', () => {
      const body = Buffer.concat(chunks);
      if (relay) return relay(req, body, res);
      if (req.method === 'DELETE') return void res.writeHead(200).end();
      forward?.(JSON.parse(body.toString('utf8')) as { id?: unknown }, (text) => {
        if (text === '') res.writeHead(202).end();
        else res.writeHead(200, { 'content-type': 'application/json', 'mcp-session-id': 'floor' }).end(text);
      });
    });
  });
  server.keepAliveTimeout = 65_000;
  server.listen(0, '127.0.0.1', () => {
    const address = server.address();
    process.stdout.write(`listening ${typeof address === 'object' && address ? address.port : 0}\n`);
  });
}

main();
