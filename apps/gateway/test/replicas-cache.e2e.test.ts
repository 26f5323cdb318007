import { Client, StreamableHTTPClientTransport } from '@modelcontextprotocol/client';
import { afterEach, describe, expect, it } from 'vitest';
import { Cleanup, httpUpstream, nextNotification } from './support/harness.js';
import { replicasMissing, startReplicas } from './support/replicas.js';

// @switchyard/plugin-cache in two gateway CLI replicas sharing one redis-server (DESIGN §12), behind
// HAProxy, in front of one testkit upstream over HTTP. Modern-era (2026-07-28) clients only: each of
// their requests stands alone, so any replica may answer it.

if (replicasMissing) console.warn(`skipping the replicated cache tests: ${replicasMissing}`);

const cleanup = new Cleanup();
afterEach(() => cleanup.run());

const URI = 'docs+test://docs/r/1';

/** A modern client of `url` (a replica's own endpoint, or the balancer's). */
async function modernClient(url: string): Promise<Client> {
  const client = new Client(
    { name: 'modern-client', version: '1' },
    { versionNegotiation: { mode: { pin: '2026-07-28' } } },
  );
  await client.connect(new StreamableHTTPClientTransport(new URL(url)));
  cleanup.add(() => client.close());
  return client;
}

async function readText(client: Client, uri: string): Promise<string> {
  const result = (await client.request({ method: 'resources/read', params: { uri } })) as {
    contents: { text?: string }[];
  };
  return String(result.contents[0]?.text);
}

describe.skipIf(replicasMissing)('@switchyard/plugin-cache across replicas', () => {
  it('reads once upstream for both replicas, and serves the new content everywhere right after an update', async () => {
    const up = await httpUpstream(cleanup, { name: 'docs', resources: 3 });
    const reads = () => up.server.stats.requests['resources/read'] ?? 0;
    const { url, replicas } = await startReplicas(cleanup, {
      config: {
        mcpServers: { docs: { url: up.url } },
        plugins: [['@switchyard/plugin-cache', { maxBytes: 1_048_576, ttlMs: 60_000 }]],
      },
    });
    const [one, two] = replicas.map((r) => `http://127.0.0.1:${r.port}/mcp`) as [string, string];
    const onOne = await modernClient(one);
    const onTwo = await modernClient(two);
    const balanced = await modernClient(url);

    expect(await readText(onOne, URI)).toBe('resource 1');
    expect(await readText(onTwo, URI)).toBe('resource 1'); // the second level: no upstream read
    expect(await readText(balanced, URI)).toBe('resource 1');
    expect(await readText(balanced, URI)).toBe('resource 1');
    expect(reads()).toBe(1);

    // A client listening (through the balancer, on whichever replica) tells us when the gateway has
    // passed the update on: by then the replica that did has invalidated for every replica.
    const listener = await modernClient(url);
    const updated = nextNotification(listener, 'notifications/resources/updated');
    const listening = await listener.listen({ resourceSubscriptions: [URI] });
    cleanup.add(() => listening.close());
    up.server.setText('test://docs/r/1', 'updated');
    await up.server.triggerUpdated('test://docs/r/1');
    expect(await updated).toMatchObject({ uri: URI });

    // One read each, no retries: both replicas (and the balancer) serve the new content at once.
    expect(await readText(onTwo, URI)).toBe('updated');
    expect(await readText(onOne, URI)).toBe('updated');
    expect(await readText(balanced, URI)).toBe('updated');
    expect(await readText(balanced, URI)).toBe('updated');
  });
});
