import { createServer, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { silentLogger } from '@switchyard/core';
import { Cleanup } from '@switchyard/testkit';
import { afterEach, describe, expect, it } from 'vitest';
import { discoverJwksUri, IssuerKeys, IssuerUnavailable } from '../src/auth/issuer-keys.js';
import { MAX_OAUTH_DOCUMENT_BYTES, ResponseTooLarge } from '../src/capped-response.js';
import { refreshGrant } from '../src/credentials/grant-refresh.js';
import { boundedFetch } from '../src/credentials/oauth-fetch.js';
import type { UpstreamOAuthServer } from '../src/credentials/types.js';
import { eventually } from './support/harness.js';

// The OAuth documents the gateway reads from servers it does not run (the issuer's metadata and key set,
// a personal upstream's authorization server answers) are read at most MAX_OAUTH_DOCUMENT_BYTES: a server
// answering 64 MiB is refused once the bound passes, and sends little more than that before the gateway
// stops reading. Real loopback servers, real fetch and jose.

const cleanup = new Cleanup();
afterEach(() => cleanup.run());

const MIB = 1024 * 1024;
const OFFERED_MIB = 64;

interface Served {
  url: string;
  /** Bytes written on connections that closed so far (headers included). */
  sent: () => number;
  /** Connections open now. */
  open: () => number;
}

/**
 * A server whose every answer is a JSON document of OFFERED_MIB MiB (one long string in it), streamed as
 * fast as the reader takes it; `/declared` says its length in `Content-Length` up front. Only a path ending
 * in `/small` answers a small metadata document (issuer `/small`, keys at `/jwks`).
 */
async function hugeServer(): Promise<Served> {
  let sent = 0;
  let open = 0;
  const chunk = Buffer.alloc(MIB, 'A');
  const server = createServer((req, res) => {
    const url = new URL(req.url ?? '/', 'http://x');
    const base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
    if (url.pathname.endsWith('/small')) {
      return json(res, { issuer: `${base}/small`, jwks_uri: `${base}/jwks` });
    }
    const head = '{"issuer":"x","keys":[{"kty":"oct","k":"';
    const tail = '"}]}';
    const declared = url.pathname === '/declared';
    res.writeHead(200, {
      'content-type': 'application/json',
      ...(declared ? { 'content-length': String(head.length + OFFERED_MIB * MIB + tail.length) } : {}),
    });
    res.write(head);
    let n = 0;
    const pump = () => {
      while (n < OFFERED_MIB) {
        n += 1;
        if (!res.write(chunk)) return void res.once('drain', pump);
      }
      res.end(tail);
    };
    res.on('error', () => {});
    pump();
  });
  server.on('connection', (socket) => {
    open += 1;
    socket.on('close', () => {
      open -= 1;
      sent += socket.bytesWritten;
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  cleanup.add(
    () =>
      new Promise<void>((resolve) => {
        server.close(() => resolve());
        server.closeAllConnections();
      }),
  );
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    sent: () => sent,
    open: () => open,
  };
}

function json(res: ServerResponse, body: unknown): void {
  const text = JSON.stringify(body);
  res.writeHead(200, { 'content-type': 'application/json', 'content-length': Buffer.byteLength(text) });
  res.end(text);
}

/** What the server sent, once the gateway's side closed every connection (it stopped reading). */
async function sentWhenClosed(served: Served): Promise<number> {
  await eventually(
    () => served.open() === 0 && served.sent() > 0,
    'the reader to close its connections',
    10_000,
  );
  return served.sent();
}

describe('OAuth documents are read at most MAX_OAUTH_DOCUMENT_BYTES', () => {
  it('a 64 MiB key set makes the issuer unavailable (503), read no further than the bound', async () => {
    expect(MAX_OAUTH_DOCUMENT_BYTES).toBe(MIB);
    const served = await hugeServer();
    const keys = new IssuerKeys({
      issuer: served.url,
      jwksUri: `${served.url}/jwks`,
      cooldownMs: 0,
      logger: silentLogger,
      timeoutMs: 20_000,
    });
    cleanup.add(() => keys.close());
    const getKey = await keys.keys();
    const refusal = await Promise.resolve(
      getKey({ alg: 'RS256', kid: 'any' }, { payload: '', signature: '' } as never),
    ).then(
      () => undefined,
      (error: unknown) => error,
    );
    expect(refusal).toBeInstanceOf(IssuerUnavailable);
    expect((refusal as Error).message).toMatch(/key set at .*\/jwks is larger than 1 MiB/);
    // The gateway stopped reading: the server sent the bound and what socket buffers hold, not 64 MiB.
    keys.close();
    expect(await sentWhenClosed(served)).toBeLessThan(16 * MIB);
  });

  it('a 64 MiB issuer metadata document makes the issuer unavailable, read no further than the bound', async () => {
    const served = await hugeServer();
    const keys = new IssuerKeys({
      issuer: `${served.url}/issuer`,
      cooldownMs: 0,
      logger: silentLogger,
      timeoutMs: 20_000,
      minBackoffMs: 60_000,
    });
    cleanup.add(() => keys.close());
    const refusal = await keys.keys().then(
      () => undefined,
      (error: unknown) => error,
    );
    expect(refusal).toBeInstanceOf(IssuerUnavailable);
    expect((refusal as Error).message).toMatch(/metadata at .*\/issuer is larger than 1 MiB/);
    keys.close();
    expect(await sentWhenClosed(served)).toBeLessThan(16 * MIB);
    // The bound holds for a document small enough to read (and says what it read).
    expect(await discoverJwksUri(`${served.url}/small`, 20_000)).toEqual({
      issuer: `${served.url}/small`,
      jwksUri: `${served.url}/jwks`,
    });
  });

  it('an authorization server answer is refused at the bound, or at once when Content-Length says so', async () => {
    const served = await hugeServer();
    const capped = boundedFetch(fetch, 20_000);
    for (const path of ['/streamed', '/declared']) {
      const response = await capped(`${served.url}${path}`);
      expect(response.status).toBe(200);
      const error = await response.json().then(
        () => undefined,
        (e: unknown) => e,
      );
      expect(error).toBeInstanceOf(ResponseTooLarge);
      expect((error as Error).message).toMatch(/answer of http:\/\/127\.0\.0\.1:\d+ is larger than 1 MiB/);
    }
    expect(await sentWhenClosed(served)).toBeLessThan(24 * MIB);
  });

  it('a 64 MiB token answer to a refresh leaves the grant (unavailable), read no further than the bound', async () => {
    const served = await hugeServer();
    const server = {
      upstream: 'tracker',
      resource: undefined,
      authorizationServerUrl: served.url,
      metadata: {
        issuer: served.url,
        authorization_endpoint: `${served.url}/authorize`,
        token_endpoint: `${served.url}/token`,
        response_types_supported: ['code'],
      },
      client: { client_id: 'gateway' },
      redirectUri: 'http://127.0.0.1:1/oauth/callback',
    } as UpstreamOAuthServer;
    const grant = {
      accessToken: 'at',
      refreshToken: 'rt',
      issuer: served.url,
      clientId: 'gateway',
      obtainedAt: Date.now(),
    };
    const result = await refreshGrant(grant, server, { now: Date.now, timeoutMs: 20_000 });
    expect(result).toMatchObject({ outcome: 'unavailable', why: expect.stringMatching(/larger than 1 MiB/) });
    expect(await sentWhenClosed(served)).toBeLessThan(16 * MIB);
  });
});
