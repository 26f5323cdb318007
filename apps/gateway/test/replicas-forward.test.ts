import { createServer, type IncomingMessage, request, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { reservePort } from '@switchyard/testkit';
import { afterAll, afterEach, describe, expect, it } from 'vitest';
import { Forwarder } from '../src/replicas/forward.js';
import { FORWARDED_HEADER } from '../src/replicas/forward-proof.js';

// The one-hop forward between replicas, on real loopback servers: a "front" replica whose handler
// forwards to an "owner" replica.

const servers: Server[] = [];
const forwarder = new Forwarder();
afterAll(() => forwarder.close());
afterEach(async () => {
  for (const server of servers.splice(0)) {
    server.closeAllConnections();
    await new Promise((resolve) => server.close(resolve));
  }
});

async function serve(handler: (req: IncomingMessage, res: ServerResponse) => void): Promise<string> {
  const server = createServer(handler);
  servers.push(server);
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
}

/** A front replica that forwards every request to `owner` and reports the outcome in a header-less 599. */
function front(owner: string, outcomes: string[]) {
  return serve(async (req, res) => {
    const outcome = await forwarder.forward(req, res, owner, 'proof', Buffer.from('{"x":1}'));
    outcomes.push(outcome);
    if (outcome === 'unreachable') res.writeHead(599).end();
  });
}

describe('Forwarder', () => {
  it('sends the body and the proof, and passes the owner’s answer back', async () => {
    let seen: { body: string; proof: unknown; auth: unknown } | undefined;
    const owner = await serve((req, res) => {
      let body = '';
      req.on('data', (c) => {
        body += c;
      });
      req.on('end', () => {
        seen = { body, proof: req.headers[FORWARDED_HEADER], auth: req.headers.authorization };
        res
          .writeHead(201, { 'mcp-session-id': 'abc', 'content-type': 'application/json' })
          .end('{"ok":true}');
      });
    });
    const outcomes: string[] = [];
    const url = await front(owner, outcomes);
    const answer = await fetch(url, {
      method: 'POST',
      headers: { authorization: 'Bearer t' },
      body: 'ignored',
    });
    expect(answer.status).toBe(201);
    expect(answer.headers.get('mcp-session-id')).toBe('abc');
    expect(await answer.json()).toEqual({ ok: true });
    expect(seen).toEqual({ body: '{"x":1}', proof: 'proof', auth: 'Bearer t' });
    expect(outcomes).toEqual(['forwarded']);
  });

  it('says unreachable when nothing listens (nothing was delivered)', async () => {
    const { port, release } = await reservePort();
    await release();
    const outcomes: string[] = [];
    const url = await front(`http://127.0.0.1:${port}`, outcomes);
    expect((await fetch(url, { method: 'POST', body: '' })).status).toBe(599);
    expect(outcomes).toEqual(['unreachable']);
  });

  it('streams an SSE answer as it comes, and cuts the client’s stream when the owner’s is cut', async () => {
    let ownerRes: ServerResponse | undefined;
    const owner = await serve((_req, res) => {
      ownerRes = res;
      res.writeHead(200, { 'content-type': 'text/event-stream' });
      res.write('data: first\n\n');
    });
    const url = await front(owner, []);
    const { firstChunk, ended } = await new Promise<{ firstChunk: string; ended: Promise<string> }>(
      (resolve, reject) => {
        const req = request(url, { method: 'GET' }, (res) => {
          res.setEncoding('utf8');
          res.once('data', (chunk: string) => {
            const ended = new Promise<string>((done) => {
              res.once('error', () => done('error'));
              res.once('close', () => done(res.complete ? 'complete' : 'cut'));
            });
            resolve({ firstChunk: chunk, ended });
          });
        });
        req.on('error', reject);
        req.end();
      },
    );
    // The first event arrived while the owner's answer is still open: nothing buffers it.
    expect(firstChunk).toBe('data: first\n\n');
    ownerRes?.socket?.destroy();
    expect(await ended).not.toBe('complete');
  });
});
