import { request } from 'node:http';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Cleanup, type GatewayProcess, httpUpstream, startGateway } from './support/harness.js';

// `Expect: 100-continue` (RFC 9110 §10.1.1) through the real CLI: the gateway says continue only to a
// request it will read, so a refused client never sends its body (found from outside: node answered
// `100 Continue` before the gateway had checked anything).

const shared = new Cleanup();
afterAll(() => shared.run());
let gw: GatewayProcess;
const TOKEN = 'continue-token-5c1e9a7d';
const BODY = JSON.stringify({
  jsonrpc: '2.0',
  id: 1,
  method: 'initialize',
  params: { protocolVersion: '2025-11-25', capabilities: {}, clientInfo: { name: 'raw', version: '1' } },
});

beforeAll(async () => {
  const docs = await httpUpstream(shared, { name: 'docs', tools: 1 });
  gw = await startGateway(shared, {
    listen: { http: { host: '127.0.0.1', port: 0, path: '/mcp' } },
    clients: { alice: { token: TOKEN } },
    limits: { maxBodyBytes: 64 * 1024 },
    mcpServers: { docs: { url: docs.url } },
  });
}, 30_000);

/**
 * One POST with `Expect: 100-continue` whose body is sent only once the server says continue (as curl and
 * node's client do when they wait): the status, whether `100 Continue` came, and the answer's body.
 */
function post(headers: Record<string, string>, path = '/mcp') {
  return new Promise<{ status: number; continued: boolean; body: string }>((resolve, reject) => {
    let continued = false;
    const req = request(new URL(path, gw.url), {
      method: 'POST',
      headers: {
        'content-type': 'application/json',
        accept: 'application/json, text/event-stream',
        'content-length': String(Buffer.byteLength(BODY)),
        expect: '100-continue',
        ...headers,
      },
    });
    req.setTimeout(10_000, () => req.destroy(new Error('no answer within 10 s')));
    req.on('continue', () => {
      continued = true;
      req.end(BODY);
    });
    req.on('response', (res) => {
      let body = '';
      res.setEncoding('utf8');
      res.on('data', (chunk: string) => {
        body += chunk;
      });
      res.on('end', () => {
        req.destroy();
        resolve({ status: res.statusCode ?? 0, continued, body });
      });
    });
    req.on('error', reject);
    req.flushHeaders();
  });
}

describe('Expect: 100-continue', () => {
  it('tells an accepted request to send its body, then answers it', async () => {
    const answer = await post({ authorization: `Bearer ${TOKEN}` });
    expect(answer.continued).toBe(true);
    expect(answer.status).toBe(200);
    expect(answer.body).toContain('"protocolVersion"');
  });

  it.each([
    ['no token', {}, 401],
    ['a foreign Origin', { authorization: `Bearer ${TOKEN}`, origin: 'https://evil.example' }, 403],
    [
      'a declared length over maxBodyBytes',
      { authorization: `Bearer ${TOKEN}`, 'content-length': '999999' },
      413,
    ],
  ] as const)('refuses a request with %s before its body is sent', async (_, headers, status) => {
    const answer = await post(headers);
    expect(answer.status).toBe(status);
    expect(answer.continued).toBe(false);
    expect(JSON.parse(answer.body)).toMatchObject({ jsonrpc: '2.0', error: { code: expect.any(Number) } });
  });

  it('refuses an unknown path before its body is sent', async () => {
    const answer = await post({ authorization: `Bearer ${TOKEN}` }, '/nope');
    expect(answer).toMatchObject({ status: 404, continued: false });
  });
});
