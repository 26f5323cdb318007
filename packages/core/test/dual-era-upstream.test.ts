import { Client, InMemoryTransport } from '@modelcontextprotocol/client';
import { afterEach, describe, expect, it } from 'vitest';
import { openSession } from '../src/downstream/session.js';
import type { Gateway } from '../src/gateway.js';
import {
  Cleanup,
  connect,
  eventually,
  httpUpstream,
  startGateway,
  upstreamConfig,
} from './support/gateway.js';

const cleanup = new Cleanup();
afterEach(() => cleanup.run());

describe('an upstream that answers both eras', () => {
  it('loses no capability: resources it follows only on its legacy session path can still be subscribed to', async () => {
    const dual = await httpUpstream(cleanup, {
      name: 'dual',
      resources: 2,
      modern: true,
      modernSubscribe: false,
    });
    const gateway = await startGateway(cleanup, [upstreamConfig('dual', dual.url)]);
    expect(gateway.status()[0]).toMatchObject({ state: 'ready', protocolVersion: '2026-07-28' });
    const client = await connect(cleanup, gateway);
    const updates: string[] = [];
    client.setNotificationHandler('notifications/resources/updated', (n) => {
      updates.push(n.params.uri);
    });
    await client.subscribeResource({ uri: 'dual+test://dual/r/1' });
    expect(dual.server.stats.subscribed['test://dual/r/1']).toBe(1);
    await dual.server.triggerUpdated('test://dual/r/1');
    await eventually(() => updates.length > 0 || undefined, 'the update');
    expect(updates).toEqual(['dual+test://dual/r/1']);
    // Reads and lists still go over the modern side.
    const read = await client.readResource({ uri: 'dual+test://dual/r/0' });
    expect(read.contents[0]).toMatchObject({ uri: 'dual+test://dual/r/0' });
    await client.unsubscribeResource({ uri: 'dual+test://dual/r/1' });
    await eventually(
      () => dual.server.stats.subscribed['test://dual/r/1'] === 0 || undefined,
      'unsubscribed',
    );
  });

  it('serves a 2025 client on its 2025 session path (era affinity), a 2026-07-28 client on its modern side', async () => {
    const dual = await httpUpstream(cleanup, {
      name: 'dual',
      resources: 1,
      modern: true,
      behaviorTools: true,
    });
    const gateway = await startGateway(cleanup, [upstreamConfig('dual', dual.url)]);
    expect(dual.server.stats.requests.initialize ?? 0).toBe(0);
    const sampled: string[] = [];
    const client = await samplingClient(cleanup, gateway, (text) => {
      sampled.push(text);
      return 'a sampled answer';
    });
    const result = await client.callTool({ name: 'dual__sample', arguments: { prompt: 'hello' } });
    expect(JSON.stringify(result.content)).toContain('a sampled answer');
    expect(sampled).toEqual(['hello']);
    // The gateway opened the upstream's 2025 session for it (once), and its calls go there.
    expect(dual.server.stats.requests.initialize).toBe(1);
    await client.callTool({ name: 'dual__echo', arguments: { text: 'again' } });
    expect(dual.server.stats.requests.initialize).toBe(1);
    expect(dual.server.stats.sessions).toBe(1);
  });

  it('keeps no legacy session when the modern side follows resources itself', async () => {
    const both = await httpUpstream(cleanup, { name: 'both', resources: 1, modern: true });
    await startGateway(cleanup, [upstreamConfig('both', both.url)]);
    expect(both.server.stats.requests.initialize ?? 0).toBe(0);
  });
});

/** A 2025 client (in process) that answers sampling requests with `answer(prompt text)`. */
async function samplingClient(cleanup: Cleanup, gateway: Gateway, answer: (text: string) => string) {
  const [clientSide, serverSide] = InMemoryTransport.createLinkedPair();
  const session = openSession(gateway, { transport: 'memory' });
  await session.connect(serverSide);
  const client = new Client({ name: 'sampler', version: '1.0.0' }, { capabilities: { sampling: {} } });
  client.setRequestHandler('sampling/createMessage', (request) => {
    const content = request.params.messages[0]?.content as { text?: string } | undefined;
    return {
      role: 'assistant' as const,
      model: 'test',
      content: { type: 'text' as const, text: answer(content?.text ?? '') },
    };
  });
  await client.connect(clientSide);
  cleanup.add(async () => {
    await client.close().catch(() => {});
    await session.close();
  });
  return client;
}
