import type { OutgoingHttpHeaders, ServerResponse } from 'node:http';
import { StringDecoder } from 'node:string_decoder';
import { SseRewriter, sseEvent } from './sse-rewriter.js';

type Chunk = string | Uint8Array;
type Callback = (error?: Error | null) => void;

function headerValue(headers: OutgoingHttpHeaders, name: string): string | undefined {
  for (const [key, value] of Object.entries(headers)) {
    if (key.toLowerCase() === name) return Array.isArray(value) ? value.join(', ') : String(value);
  }
  return undefined;
}

function withoutHeader(headers: OutgoingHttpHeaders, name: string): OutgoingHttpHeaders {
  return Object.fromEntries(Object.entries(headers).filter(([key]) => key.toLowerCase() !== name));
}

function bufferOf(chunk: Chunk): Buffer {
  return typeof chunk === 'string' ? Buffer.from(chunk, 'utf8') : Buffer.from(chunk);
}

/**
 * Patches `res` so the JSON-RPC messages its body carries go through `rewrite`. The SDK's node adapters
 * write a response with one `writeHead(status, headers)`, `write(chunk)`s and `end()`; anything else
 * (another status, a head without a plain header object) passes through untouched.
 */
export function rewriteBody(res: ServerResponse, rewrite: (message: unknown) => unknown[]): void {
  const original = {
    writeHead: res.writeHead.bind(res) as (...args: unknown[]) => ServerResponse,
    write: res.write.bind(res) as (...args: unknown[]) => boolean,
    end: res.end.bind(res) as (...args: unknown[]) => ServerResponse,
    flushHeaders: res.flushHeaders.bind(res),
  };
  let state: 'undecided' | 'pass' | 'sse' | 'json' = 'undecided';
  let held: { status: number; headers: OutgoingHttpHeaders } = { status: 200, headers: {} };
  const json: Buffer[] = [];
  const decoder = new StringDecoder('utf8');
  const sse = new SseRewriter(rewrite);

  const finishJson = (): void => {
    const text = Buffer.concat(json).toString('utf8');
    let outputs: unknown[] | undefined;
    try {
      outputs = rewrite(JSON.parse(text));
    } catch {
      outputs = undefined;
    }
    let headers = withoutHeader(held.headers, 'content-length');
    let body = text;
    if (outputs?.length === 1) {
      body = JSON.stringify(outputs[0]);
    } else if (outputs !== undefined) {
      // Several messages cannot share a JSON body: stream them instead, as a server may answer any POST.
      body = outputs.map(sseEvent).join('');
      headers = {
        ...withoutHeader(headers, 'content-type'),
        'content-type': 'text/event-stream',
        'cache-control': 'no-cache, no-transform',
      };
    }
    original.writeHead(held.status, { ...headers, 'content-length': Buffer.byteLength(body) });
    original.end(body);
  };

  res.writeHead = ((status: number, ...rest: unknown[]) => {
    const headers = rest.at(-1);
    const plain =
      typeof headers === 'object' && headers !== null && !Array.isArray(headers)
        ? (headers as OutgoingHttpHeaders)
        : undefined;
    if (state !== 'undecided' || status !== 200 || plain === undefined) {
      if (state === 'undecided') state = 'pass';
      return original.writeHead(status, ...rest);
    }
    const type = headerValue(plain, 'content-type') ?? '';
    if (type.startsWith('text/event-stream')) {
      state = 'sse';
      return original.writeHead(status, withoutHeader(plain, 'content-length'));
    }
    if (type.startsWith('application/json')) {
      state = 'json';
      held = { status, headers: plain };
      return res;
    }
    state = 'pass';
    return original.writeHead(status, ...rest);
  }) as typeof res.writeHead;

  res.flushHeaders = () => {
    if (state !== 'json') original.flushHeaders();
  };

  res.write = ((chunk: Chunk, ...rest: unknown[]) => {
    if (state !== 'sse' && state !== 'json') return original.write(chunk, ...rest);
    const callback = rest.find((arg): arg is Callback => typeof arg === 'function');
    if (state === 'json') {
      json.push(bufferOf(chunk));
    } else {
      const out = sse.push(decoder.write(bufferOf(chunk)));
      if (out !== '') return original.write(out, callback);
    }
    if (callback !== undefined) process.nextTick(callback);
    return true;
  }) as typeof res.write;

  res.end = ((...args: unknown[]) => {
    if (state !== 'sse' && state !== 'json') return original.end(...args);
    const [chunk] = args;
    const data = typeof chunk === 'string' || chunk instanceof Uint8Array ? chunk : undefined;
    if (state === 'json') {
      if (data !== undefined) json.push(bufferOf(data));
      finishJson();
      return res;
    }
    const head = data === undefined ? '' : sse.push(decoder.write(bufferOf(data)));
    return original.end(head + sse.push(decoder.end()) + sse.flush());
  }) as typeof res.end;
}
