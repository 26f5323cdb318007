import { Client, InMemoryTransport, type JSONRPCMessage } from '@modelcontextprotocol/client';
import { afterEach, describe, expect, it } from 'vitest';
import type { RequestMiddleware } from '../src/context.js';
import { errorForEra } from '../src/downstream/era.js';
import { openSession } from '../src/downstream/session.js';
import { GatewayError } from '../src/errors.js';
import { Cleanup, eventually, httpUpstream, startGateway, upstreamConfig } from './support/gateway.js';

const cleanup = new Cleanup();
afterEach(() => cleanup.run());

/** A legacy SDK client on an in-memory session of a gateway over `url`, with every message it receives kept. */
async function legacySession(url: string, extra: Parameters<typeof startGateway>[2] = {}) {
  const gateway = await startGateway(cleanup, [upstreamConfig('a', url)], extra);
  const [clientSide, serverSide] = InMemoryTransport.createLinkedPair();
  const session = openSession(gateway, { transport: 'memory' });
  cleanup.add(() => session.close());
  await session.connect(serverSide);
  const client = new Client({ name: 'legacy', version: '1' });
  await client.connect(clientSide);
  cleanup.add(() => client.close());
  const wire: JSONRPCMessage[] = [];
  const deliver = clientSide.onmessage!;
  clientSide.onmessage = (message, extra) => {
    wire.push(message);
    deliver(message, extra);
  };
  return { client, clientSide, wire };
}

describe('the error form of a legacy request', () => {
  it('is decided before the middleware sees it, and is what goes on the wire', async () => {
    const a = await httpUpstream(cleanup, { name: 'a', resources: 1 });
    const seen: number[] = [];
    const observe: RequestMiddleware = async (_ctx, next) => {
      const outcome = await next();
      if (!outcome.ok) seen.push(outcome.error.code);
      return outcome;
    };
    const { client, wire } = await legacySession(a.url, { middleware: [observe] });
    for (const uri of ['a+test://a/r/9', 'nowhere://x']) {
      // The v2 client shows a legacy -32002 as -32602; the wire and the middleware say -32002.
      await expect(client.request({ method: 'resources/read', params: { uri } })).rejects.toMatchObject({
        code: -32602,
      });
    }
    // Other errors keep their code.
    await expect(
      client.request({ method: 'resources/list', params: { cursor: 'tampered' } }),
    ).rejects.toMatchObject({ code: -32602 });
    expect(client.getProtocolEra()).toBe('legacy');
    expect(seen).toEqual([-32002, -32002, -32602]);
    const codes = wire.map((m) => (m as { error?: { code: number; data?: { reason?: string } } }).error);
    expect(codes).toEqual([
      expect.objectContaining({
        code: -32002,
        data: expect.objectContaining({ reason: 'resource_not_found' }),
      }),
      expect.objectContaining({ code: -32002 }),
      expect.objectContaining({ code: -32602, data: expect.objectContaining({ reason: 'invalid_cursor' }) }),
    ]);
  });
});

describe("a legacy session's requests, answered by the gateway itself", () => {
  it('sends no response to a cancelled request, cancels its upstream call, and answers the next', async () => {
    const a = await httpUpstream(cleanup, { name: 'a', resources: 1, behaviorTools: true });
    const { client, clientSide, wire } = await legacySession(a.url);
    const progress: unknown[] = [];
    const call = client.request(
      { method: 'tools/call', params: { name: 'a__slow', arguments: { ms: 10_000, steps: 1000 } } },
      { onprogress: (p) => progress.push(p) },
    );
    const settled = call.then(
      () => 'answered',
      () => 'rejected',
    );
    await eventually(() => progress.length > 0, 'progress of the call'); // related to it, it reaches the caller
    const callId = wire
      .map((m) => (m as { params?: { progressToken?: unknown } }).params?.progressToken)
      .find((token) => token !== undefined);
    await clientSide.send({
      jsonrpc: '2.0',
      method: 'notifications/cancelled',
      params: { requestId: callId as number, reason: 'enough' },
    });
    await eventually(() => a.server.stats.cancelled === 1, 'the upstream call cancelled');
    const read = await client.request({ method: 'resources/read', params: { uri: 'a+test://a/r/0' } });
    expect(read.contents).toHaveLength(1);
    const responses = wire.filter((m) => 'id' in m && ('result' in m || 'error' in m));
    expect(responses.map((m) => (m as { id: unknown }).id)).not.toContain(callId);
    void settled; // the SDK client's own request stays pending: the spec sends nothing for a cancelled request
  });
});

describe('errorForEra', () => {
  const legacy = { era: 'legacy' as const, capabilities: {} };
  const modern = { era: 'modern' as const, capabilities: {} };

  it("gives resource not found the code of the caller's era, keeping message, data and cause", () => {
    const notFound = GatewayError.resourceNotFound('docs+file:///a', 'Upstream says no.');
    const forLegacy = errorForEra(notFound, legacy);
    expect(forLegacy).toMatchObject({ code: -32002, message: notFound.message, data: notFound.data });
    expect(errorForEra(forLegacy, legacy)).toBe(forLegacy);
    expect(errorForEra(forLegacy, modern)).toMatchObject({ code: -32602, data: notFound.data });
    expect(errorForEra(notFound, modern)).toBe(notFound);
  });

  it('leaves other errors, and requests of no known era, alone', () => {
    const notFound = GatewayError.resourceNotFound('docs+file:///a');
    expect(errorForEra(notFound, undefined)).toBe(notFound);
    const badParams = GatewayError.invalidParams('bad', { uri: 'x' });
    expect(errorForEra(badParams, legacy)).toBe(badParams);
  });
});
