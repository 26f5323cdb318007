import {
  Agent,
  type IncomingHttpHeaders,
  type IncomingMessage,
  request,
  type ServerResponse,
} from 'node:http';
import { sendError } from '../listeners/http-errors.js';
import { Refusals } from '../listeners/refusals.js';
import { FORWARDED_HEADER } from './forward-proof.js';

/** `forwarded`: the owner's answer (or its failure mid-way) went to the client; `unreachable`: nothing was sent. */
export type ForwardOutcome = 'forwarded' | 'unreachable';

const HOP_BY_HOP = new Set([
  'connection',
  'keep-alive',
  'proxy-connection',
  'proxy-authenticate',
  'proxy-authorization',
  'te',
  'trailer',
  'transfer-encoding',
  'upgrade',
  'content-length',
  FORWARDED_HEADER,
]);
/** Errors that mean the request never reached the owner: it may be served elsewhere without running twice. */
const NOT_DELIVERED = new Set([
  'ECONNREFUSED',
  'EHOSTUNREACH',
  'ENETUNREACH',
  'EHOSTDOWN',
  'ENOTFOUND',
  'ECONNECTTIMEOUT',
]);
const CONNECT_TIMEOUT_MS = 2000;

/**
 * Forwards one HTTP request of a legacy session to the replica that serves the session, and streams its
 * answer back (JSON, or an SSE stream for as long as either side keeps it open). The request is sent
 * with the client's own headers (its token, Host and Origin are checked again by the owner) and the
 * proof that a replica forwarded it. The body was read before (it is bounded by `limits.maxBodyBytes`),
 * so a request the owner never received can still be served here.
 */
export class Forwarder {
  readonly #agent = new Agent({ keepAlive: true, maxSockets: 512 });

  forward(
    req: IncomingMessage,
    res: ServerResponse,
    owner: string,
    proof: string,
    body?: Buffer,
    fresh = false,
  ): Promise<ForwardOutcome> {
    const target = URL.canParse(owner) ? new URL(req.url ?? '/', owner) : undefined;
    // Nothing can be sent to an owner that is no http URL (replicas only write their own): unreachable.
    if (target?.protocol !== 'http:') return Promise.resolve('unreachable');
    const headers: Record<string, string | string[]> = { [FORWARDED_HEADER]: proof };
    for (const [name, value] of Object.entries(req.headers))
      if (value !== undefined && !HOP_BY_HOP.has(name)) headers[name] = value;
    if (body) headers['content-length'] = String(body.length);
    return new Promise<ForwardOutcome>((resolve) => {
      let answered = false;
      // A retry goes on a new connection, never on another kept-alive one.
      const upstream = request(target, { method: req.method, headers, agent: fresh ? false : this.#agent });
      upstream.on('socket', (socket) => {
        if (!socket.connecting) return;
        const timer = setTimeout(() => {
          const error = Object.assign(new Error('connect timeout'), { code: 'ECONNECTTIMEOUT' });
          upstream.destroy(error);
        }, CONNECT_TIMEOUT_MS);
        socket.once('connect', () => clearTimeout(timer));
        socket.once('close', () => clearTimeout(timer));
      });
      upstream.on('response', (answer) => {
        answered = true;
        res.writeHead(answer.statusCode ?? 502, passable(answer.headers));
        res.flushHeaders();
        answer.pipe(res);
        // The owner went away mid-answer (a stream cut): cut the client's too, so it reconnects.
        answer.once('close', () => {
          if (!answer.complete) res.destroy();
        });
        resolve('forwarded');
      });
      upstream.on('error', (error: NodeJS.ErrnoException) => {
        if (answered) return void res.destroy();
        if (NOT_DELIVERED.has(error.code ?? '')) return resolve('unreachable');
        // A kept-alive connection the owner closed (it exited) before reading the request: nothing ran.
        if (upstream.reusedSocket && error.code === 'ECONNRESET' && !fresh)
          return resolve(this.forward(req, res, owner, proof, body, true));
        // Sent, and the owner failed before answering: the request is lost (it may have run), not replayed.
        if (!res.headersSent) sendError(res, Refusals.replicaFailed());
        resolve('forwarded');
      });
      res.once('close', () => {
        if (!res.writableFinished) upstream.destroy();
      });
      upstream.end(body);
    });
  }

  close(): void {
    this.#agent.destroy();
  }
}

function passable(headers: IncomingHttpHeaders): Record<string, string | string[]> {
  const out: Record<string, string | string[]> = {};
  for (const [name, value] of Object.entries(headers))
    if (value !== undefined && (name === 'content-length' || !HOP_BY_HOP.has(name))) out[name] = value;
  return out;
}
