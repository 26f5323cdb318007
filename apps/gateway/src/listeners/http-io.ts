import { type IncomingMessage, type Server, type ServerResponse, STATUS_CODES } from 'node:http';
import type { Duplex } from 'node:stream';

// Reading requests and writing plain JSON answers on node:http, for the HTTP listener.

export class BodyTooLarge extends Error {}

/**
 * Reads a JSON body of at most `maxBytes`. A Content-Length above it is refused before a byte is read;
 * a body without one (chunked) is refused as soon as it passes the limit, and left unread.
 */
export async function readJson(req: IncomingMessage, maxBytes: number): Promise<unknown> {
  return JSON.parse((await readBody(req, maxBytes)).toString('utf8'));
}

/**
 * The requests that asked `Expect: 100-continue` and have not been told to send their body yet, with the
 * response that tells them (see `answerClientErrors`).
 */
const awaitingContinue = new WeakMap<IncomingMessage, ServerResponse>();

/**
 * The request's body, at most `maxBytes` (else BodyTooLarge, before more is buffered). A client that asked
 * `Expect: 100-continue` is told to send it here, once the request has passed every check before its body.
 */
export async function readBody(req: IncomingMessage, maxBytes: number): Promise<Buffer> {
  const declared = Number(req.headers['content-length']);
  if (Number.isFinite(declared) && declared > maxBytes) throw new BodyTooLarge(`${declared} bytes declared`);
  const waiting = awaitingContinue.get(req);
  if (waiting) {
    awaitingContinue.delete(req);
    waiting.writeContinue();
  }
  const body = await new Promise<Buffer>((resolve, reject) => {
    const chunks: Buffer[] = [];
    let size = 0;
    const stop = () => {
      req.off('data', onData);
      req.off('end', onEnd);
      req.off('error', onError);
      req.off('close', onClose);
    };
    const onData = (chunk: Buffer) => {
      size += chunk.length;
      if (size <= maxBytes) return void chunks.push(chunk);
      stop();
      req.pause();
      reject(new BodyTooLarge(`more than ${maxBytes} bytes`));
    };
    const onEnd = () => {
      stop();
      resolve(Buffer.concat(chunks));
    };
    const onError = (error: Error) => {
      stop();
      reject(error);
    };
    const onClose = () => onError(new Error('the client closed the connection before the body ended'));
    req.on('data', onData);
    req.once('end', onEnd);
    req.once('error', onError);
    req.once('close', onClose);
  });
  return body;
}

/** The `initialize` request of a body (one message or a batch), if it has one. */
export function initializeOf(body: unknown): { params?: unknown } | undefined {
  const messages = Array.isArray(body) ? body : [body];
  return messages.find(
    (m) => typeof m === 'object' && m !== null && (m as { method?: unknown }).method === 'initialize',
  );
}

export function accepts(req: IncomingMessage, type: string): boolean {
  const accept = req.headers.accept;
  return accept === undefined || accept.includes(type) || accept.includes('*/*');
}

/**
 * A target with no query, fragment, percent-escape, dot segment, backslash or authority (`//host`): the
 * WHATWG parser returns it unchanged as the pathname.
 */
const PLAIN_PATH = /^\/(?!\/)[\w\-~/]*$/;

/**
 * The path of a request's target, or undefined when the target is no URL path at all (e.g. `//[`, which
 * `new URL` refuses by throwing): a listener answers that as an unknown path, never as an internal error.
 */
export function requestPath(req: IncomingMessage): string | undefined {
  const target = req.url ?? '/';
  // The usual target (`/mcp`, `/mcp/team-a`) is its own path: nothing in it a URL parser would change.
  if (PLAIN_PATH.test(target)) return target;
  try {
    return new URL(target, 'http://localhost').pathname;
  } catch {
    return undefined;
  }
}

/**
 * One request header by its lower-case name, undefined when absent. Node joins a repeated header's values
 * with `, ` (so a second `Mcp-Param-*` or `Mcp-Name` never hides behind the first); only `set-cookie`
 * arrives as a list, of which the first is taken.
 */
export function header(req: IncomingMessage, name: string): string | undefined {
  const value = req.headers[name];
  return Array.isArray(value) ? value[0] : value;
}

export function sendJson(
  res: ServerResponse,
  status: number,
  body: unknown,
  headers: Record<string, string> = {},
): void {
  const text = JSON.stringify(body);
  res.writeHead(status, {
    ...headers,
    'content-type': 'application/json',
    'content-length': Buffer.byteLength(text),
  });
  res.end(text);
}

/**
 * Answers what node's HTTP parser refuses before any handler runs (headers over its 16 KiB limit, a
 * malformed request line or header) with a status and `body(status, message)` as JSON, instead of node's
 * bare status line: an MCP client then reads a JSON-RPC error like for every other refusal. An `Expect`
 * is the handler's to answer too (100-continue) or refused as JSON (any other).
 */
export function answerClientErrors(server: Server, body: (status: number, message: string) => unknown): void {
  const answered = new WeakSet<Duplex>();
  server.on('clientError', (error: NodeJS.ErrnoException, socket: Duplex) => {
    // node reports every later chunk of a connection it could not parse again: answer it once.
    if (answered.has(socket)) return;
    answered.add(socket);
    if (error.code === 'ECONNRESET' || !socket.writable) return void socket.destroy();
    const [status, message] =
      error.code === 'HPE_HEADER_OVERFLOW'
        ? [431, 'Request Header Fields Too Large: the request headers are over 16 KiB']
        : error.code === 'ERR_HTTP_REQUEST_TIMEOUT'
          ? [408, 'Request Timeout: the request did not arrive in time']
          : [400, `Bad Request: the HTTP request could not be parsed (${error.code ?? error.message})`];
    const text = JSON.stringify(body(status, message));
    socket.end(
      `HTTP/1.1 ${status} ${STATUS_CODES[status]}\r\nContent-Type: application/json\r\n` +
        `Content-Length: ${Buffer.byteLength(text)}\r\nConnection: close\r\n\r\n${text}`,
    );
    // What the client still sends (the rest of 9 MiB of headers) is read and dropped for a moment, as for
    // a 413: closing on unread bytes resets the connection, and the client may lose the answer with it.
    socket.removeAllListeners('data');
    socket.on('data', () => {});
    socket.resume();
    setTimeout(() => socket.destroy(), CLIENT_ERROR_LINGER_MS).unref();
  });
  // `Expect: 100-continue`: node would answer `100 Continue` before any check of ours, so a client refused
  // (401, 403, 404, a declared length over the limit) would send its whole body for nothing. The request
  // goes to the handler as any other; `readBody` says continue once the body is wanted.
  server.on('checkContinue', (req: IncomingMessage, res: ServerResponse) => {
    awaitingContinue.set(req, res);
    server.emit('request', req, res);
  });
  // An `Expect` other than 100-continue: node would answer a bare 417 before any check of ours.
  server.on('checkExpectation', (req: IncomingMessage, res: ServerResponse) => {
    const text = JSON.stringify(body(417, 'Expectation Failed: only "Expect: 100-continue" is supported'));
    res.writeHead(417, {
      'content-type': 'application/json',
      'content-length': Buffer.byteLength(text),
      connection: 'close',
    });
    res.end(text);
    req.resume();
  });
}

/** How long a refused connection's further bytes are read and dropped before it is closed. */
const CLIENT_ERROR_LINGER_MS = 1_000;
