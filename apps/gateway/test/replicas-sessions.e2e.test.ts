import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { Client as V1Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport as V1StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { SessionIds } from '../src/replicas/session-ids.js';
import { Cleanup, eventually, httpUpstream, rawPost } from './support/harness.js';
import { connectOverHttp, firstText, interactiveClient } from './support/interactive.js';
import { REPLICA_SECRET, type Replicas, replicasMissing, startReplicas } from './support/replicas.js';

// Legacy sessions across replicas (DESIGN §12): two gateway replicas share a real redis-server and sit
// behind a real HAProxy balancing every request round-robin. A session opened through the balancer must
// work whichever replica each request lands on: requests, the GET stream and its notifications,
// subscriptions, server-to-client requests and calls suspended on a modern upstream; and survive the
// replica that serves it dying.

const TOKENS = { alice: 'alice-token', bob: 'bob-token' };
const headersOf = (token: string) => ({ headers: { authorization: `Bearer ${token}` } });

async function v1Client(cleanup: Cleanup, url: string, token = TOKENS.alice): Promise<V1Client> {
  const client = new V1Client({ name: 'v1-client', version: '1.0.0' });
  await client.connect(new V1StreamableHTTPClientTransport(new URL(url), { requestInit: headersOf(token) }));
  cleanup.add(() => client.close());
  return client;
}

function updates(client: V1Client): string[] {
  const seen: string[] = [];
  client.fallbackNotificationHandler = async (n) => {
    if (n.method === 'notifications/resources/updated') seen.push(String(n.params?.uri));
  };
  return seen;
}

/** `tools/list` in session `sessionId`, posted straight to one replica (not through the balancer). */
function listToolsAt(url: string, sessionId: string, token = TOKENS.alice) {
  return rawPost(url, JSON.stringify({ jsonrpc: '2.0', id: 7, method: 'tools/list' }), {
    'mcp-session-id': sessionId,
    authorization: `Bearer ${token}`,
    'mcp-protocol-version': '2025-11-25',
  });
}

async function sessionsOn(adminUrl: string): Promise<number> {
  const answer = await fetch(`${adminUrl}/admin/status`, headersOf(TOKENS.alice));
  const status = (await answer.json()) as { sessions: { total: number } };
  return status.sessions.total;
}

describe.skipIf(replicasMissing)('legacy sessions across replicas behind a balancer', () => {
  const shared = new Cleanup();
  const cleanup = new Cleanup();
  afterEach(() => cleanup.run());
  afterAll(() => shared.run());
  let deployment: Replicas;
  let docs: Awaited<ReturnType<typeof httpUpstream>>;

  beforeAll(async () => {
    docs = await httpUpstream(shared, { name: 'docs', resources: 3, behaviorTools: true });
    const many = await httpUpstream(shared, { name: 'many', resources: 25, pageSize: 10 });
    const mod = await httpUpstream(shared, { name: 'mod', resources: 1, behaviorTools: true, modern: true });
    deployment = await startReplicas(shared, {
      admin: true,
      config: {
        clients: { alice: { token: TOKENS.alice, groups: ['admins'] }, bob: { token: TOKENS.bob } },
        mcpServers: { docs: { url: docs.url }, mod: { url: mod.url }, many: { url: many.url } },
      },
    });
  });

  it('serves one session on every replica: each answers it, directly or through the balancer', async () => {
    const client = await v1Client(cleanup, deployment.url);
    const sessionId = (client.transport as V1StreamableHTTPClientTransport).sessionId!;
    for (let i = 0; i < 4; i += 1) {
      const tools = await client.listTools();
      expect(tools.tools.map((t) => t.name)).toContain('docs__elicit');
      const { resources } = await client.listResources();
      const read = await client.readResource({ uri: resources[0]!.uri });
      expect(read.contents).toHaveLength(1);
    }
    // Straight to each replica, not through the balancer: both answer for the session.
    for (const replica of deployment.replicas) {
      const answer = await listToolsAt(replica.gateway.url, sessionId);
      expect(answer.status).toBe(200);
      expect(answer.json).toMatchObject({ id: 7, result: { tools: expect.any(Array) } });
    }
    const held = await Promise.all(deployment.replicas.map((r) => sessionsOn(r.adminUrl!)));
    expect(held.sort()).toEqual([0, 1]);
  });

  it('delivers a subscription’s updates on the stream the client holds, whichever replica holds it', async () => {
    const client = await v1Client(cleanup, deployment.url);
    const seen = updates(client);
    const { resources } = await client.listResources();
    const uri = resources.find((r) => r.uri.includes('/r/2'))!.uri;
    await client.subscribeResource({ uri });
    // The GET stream is open once a notification the gateway sends for the session arrives on it.
    for (let round = 1; round <= 2; round += 1) {
      docs.server.setText(uri.slice('docs+'.length), `version ${round}`);
      await docs.server.triggerUpdated(uri.slice('docs+'.length));
      await eventually(() => seen.length >= round, `updated notification ${round}`);
      expect(seen.at(-1)).toBe(uri);
      const read = await client.readResource({ uri });
      expect(read.contents[0]).toMatchObject({ text: `version ${round}` });
    }
  });

  it('routes server-to-client requests and suspended calls back to the request that asked', async () => {
    const { client, inputs } = interactiveClient('legacy');
    await connectOverHttp(cleanup, client, deployment.url, TOKENS.alice);
    // Four rounds: the client's answers land on both replicas.
    for (const tool of ['docs__elicit', 'mod__elicit', 'docs__sample', 'mod__elicit']) {
      const result = await client.callTool(
        { name: tool, arguments: { message: 'Number?', prompt: 'hi' } },
        { timeout: 15_000 },
      );
      const text = firstText(result);
      if (tool.endsWith('sample')) expect(text).toBe('sampled: hi');
      else expect(JSON.parse(text)).toEqual({ action: 'accept', content: { answer: 'forty-two' } });
    }
    expect(inputs.elicitations).toHaveLength(3);
    expect(inputs.samplings).toHaveLength(1);
  });

  it('accepts on one replica the cursors the other minted (2026-07-28 clients, sessionless)', async () => {
    const [first, second] = await Promise.all(
      deployment.replicas.map(async (replica) => {
        const { client } = interactiveClient('modern');
        return connectOverHttp(cleanup, client, replica.gateway.url, TOKENS.alice);
      }),
    );
    const uris: string[] = [];
    let cursor: string | undefined;
    let pages = 0;
    do {
      // Page after page, alternately on each replica (request(): listResources() would walk every page).
      const page = (await (pages % 2 === 0 ? first! : second!).request({
        method: 'resources/list',
        params: cursor ? { cursor } : {},
      })) as { resources: { uri: string }[]; nextCursor?: string };
      uris.push(...page.resources.map((r) => r.uri));
      cursor = page.nextCursor;
      pages += 1;
    } while (cursor);
    expect(pages).toBeGreaterThan(2);
    expect(uris.filter((u) => u.startsWith('many+'))).toHaveLength(25);
    expect(new Set(uris).size).toBe(uris.length);
  });

  it('accepts on one replica the requestState the other sealed (a 2026-07-28 client, input asked and answered)', async () => {
    const { client, inputs } = interactiveClient('modern');
    await connectOverHttp(cleanup, client, deployment.url, TOKENS.alice);
    // Each call is asked for input and retried: round-robin sends the retry to the other replica.
    for (const tool of ['mod__elicit', 'docs__elicit', 'mod__elicit']) {
      const result = await client.callTool(
        { name: tool, arguments: { message: 'Number?' } },
        { timeout: 15_000 },
      );
      expect(JSON.parse(firstText(result))).toEqual({ action: 'accept', content: { answer: 'forty-two' } });
    }
    expect(inputs.elicitations).toHaveLength(3);
  });

  it('answers 404 for a forged, altered, foreign-key or other client’s session id', async () => {
    const client = await v1Client(cleanup, deployment.url);
    const sessionId = (client.transport as V1StreamableHTTPClientTransport).sessionId!;
    const foreign = new SessionIds('another-deployment-secret').mint({
      owner: deployment.replicas[0]!.gateway.url,
      identity: 'alice',
      init: { protocolVersion: '2025-11-25', capabilities: {}, clientInfo: { name: 'x', version: '1' } },
    }).id;
    const altered = `${sessionId.slice(0, 20)}${sessionId[20] === 'A' ? 'B' : 'A'}${sessionId.slice(21)}`;
    for (const replica of deployment.replicas) {
      for (const id of ['sys1.made-up', altered, foreign])
        expect((await listToolsAt(replica.gateway.url, id)).status).toBe(404);
      // Another client's session: someone else's (403) on every replica, as its owner says (found from
      // outside: the others answered 404).
      expect((await listToolsAt(replica.gateway.url, sessionId, TOKENS.bob)).status).toBe(403);
    }
    // Ended with DELETE, it is gone on every replica.
    await (client.transport as V1StreamableHTTPClientTransport).terminateSession();
    for (const replica of deployment.replicas) {
      const answer = await listToolsAt(replica.gateway.url, sessionId);
      expect(answer.status).toBe(404);
    }
  });

  it('follows no session owner that no replica wrote into the store: 404, and nothing is sent there', async () => {
    // Whoever can write to Redis must not make a replica forward its clients' requests and tokens elsewhere
    // (found from outside: it did, and an owner that was no URL answered 500).
    const seen: string[] = [];
    const elsewhere = createServer((req, res) => {
      seen.push(`${req.method} ${req.url} ${req.headers.authorization}`);
      res.writeHead(200, { 'content-type': 'application/json' }).end('{"jsonrpc":"2.0","id":7,"result":{}}');
    });
    await new Promise<void>((resolve) => elsewhere.listen(0, '127.0.0.1', resolve));
    cleanup.add(() => new Promise<void>((resolve) => elsewhere.close(() => resolve())));
    const [opener, other] = deployment.replicas;
    const init = await rawPost(
      opener!.gateway.url,
      JSON.stringify({
        jsonrpc: '2.0',
        id: 1,
        method: 'initialize',
        params: {
          protocolVersion: '2025-11-25',
          capabilities: {},
          clientInfo: { name: 'raw', version: '1' },
        },
      }),
      { authorization: `Bearer ${TOKENS.alice}` },
    );
    const sessionId = init.headers.get('mcp-session-id')!;
    const { sid } = new SessionIds(REPLICA_SECRET).open(sessionId)!;
    const key = /\r\n([^\r\n]*sessions:session:[^\r\n]*)\r\n/.exec(
      await deployment.redis.command('KEYS', `*session:${sid}`),
    )?.[1];
    expect(key).toBeDefined();
    const { port } = elsewhere.address() as AddressInfo;
    for (const owner of [`http://127.0.0.1:${port}`, 'not a url', 'file:///etc/passwd']) {
      await deployment.redis.command('SET', key!, JSON.stringify({ owner, subscriptions: [] }));
      expect((await listToolsAt(other!.gateway.url, sessionId)).status).toBe(404);
    }
    expect(seen).toEqual([]);
  });
});

describe.skipIf(replicasMissing)('a replica that dies, and Redis going away', () => {
  const cleanup = new Cleanup();
  afterEach(() => cleanup.run());

  it('moves the dead replica’s sessions, subscriptions included, to the others', async () => {
    const docs = await httpUpstream(cleanup, { name: 'docs', resources: 3 });
    // One budget across the replicas, exactly what the client spends here: the takeover replays its three
    // subscriptions as the gateway's own requests, not charged again (found from outside: they were, the
    // client's next request was refused, and subscriptions past the budget were silently lost).
    const perClient = { requestsPerSecond: 0.01, burst: 6 };
    const deployment = await startReplicas(cleanup, {
      admin: true,
      config: {
        anonymous: 'anyone',
        mcpServers: { docs: { url: docs.url } },
        plugins: [['@switchyard/plugin-rate-limit', { perClient }]],
      },
    });
    const client = await v1Client(cleanup, deployment.url);
    const seen = updates(client);
    const { resources } = await client.listResources();
    const uri = resources[0]!.uri;
    for (const r of resources) await client.subscribeResource({ uri: r.uri });
    docs.server.setText(uri.slice('docs+'.length), 'before');
    await docs.server.triggerUpdated(uri.slice('docs+'.length));
    await eventually(() => seen.length >= 1, 'an update before the replica dies');

    const held = await Promise.all(deployment.replicas.map((r) => sessionsOn(r.adminUrl!)));
    const owner = deployment.replicas[held.indexOf(1)]!;
    const survivor = deployment.replicas.find((r) => r !== owner)!;
    owner.gateway.signal('SIGKILL');
    await owner.gateway.exited;

    // The session goes on: requests are served, and the subscription is restored on the survivor.
    const tools = await client.listTools();
    expect(tools).toBeDefined();
    await eventually(
      async () => (await sessionsOn(survivor.adminUrl!)) === 1,
      'the survivor holds the session',
    );
    await eventually(
      async () => {
        docs.server.setText(uri.slice('docs+'.length), `after ${seen.length}`);
        await docs.server.triggerUpdated(uri.slice('docs+'.length));
        return seen.length >= 2;
      },
      'an update after the takeover, on the stream the client reopened',
      15_000,
    );
    const read = await client.readResource({ uri });
    expect(read.contents).toHaveLength(1);
  });

  it('keeps serving without Redis (store degraded) and rejoins when it returns', async () => {
    const docs = await httpUpstream(cleanup, { name: 'docs', resources: 2 });
    const deployment = await startReplicas(cleanup, {
      admin: true,
      config: { anonymous: 'anyone', mcpServers: { docs: { url: docs.url } } },
    });
    const client = await v1Client(cleanup, deployment.url);
    await deployment.redis.stop({ kill: true });
    for (const replica of deployment.replicas) {
      await eventually(async () => {
        const body = (await (await fetch(`${replica.adminUrl}/readyz`)).json()) as { store?: string };
        return body.store === 'degraded';
      }, 'readyz store degraded');
    }
    // The session still works on both replicas (its id names its owner), and new ones open.
    for (let i = 0; i < 4; i += 1) expect((await client.listResources()).resources).toHaveLength(2);
    const another = await v1Client(cleanup, deployment.url);
    expect((await another.listTools()).tools).toBeDefined();

    await deployment.redis.restart();
    for (const replica of deployment.replicas) {
      await eventually(
        async () => {
          const res = await fetch(`${replica.adminUrl}/readyz`);
          return res.status === 200 && ((await res.json()) as { store?: string }).store === 'ok';
        },
        'readyz store ok again',
        15_000,
      );
    }
    const third = await v1Client(cleanup, deployment.url);
    // Sessions opened before, during and after the outage all work on both replicas.
    for (let i = 0; i < 4; i += 1)
      for (const c of [client, another, third]) expect((await c.listResources()).resources).toHaveLength(2);
  });
});
