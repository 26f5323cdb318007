import {
  Client,
  type CreateMessageRequest,
  type ElicitRequest,
  StreamableHTTPClientTransport,
} from '@modelcontextprotocol/client';
import type { Cleanup } from '../src/test-support.js';

/** Rejects if `promise` does not settle within `ms`. */
export async function within<T>(promise: Promise<T>, ms = 5000, what = 'operation'): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new Error(`${what} timed out after ${ms} ms`)), ms);
  });
  try {
    return await Promise.race([promise, timeout]);
  } finally {
    clearTimeout(timer);
  }
}

/** Polls `check` on every macrotask turn until it holds (no fixed sleeps), bounded by `ms`. */
export async function until(check: () => boolean, ms = 5000, what = 'condition'): Promise<void> {
  const deadline = Date.now() + ms;
  while (!check()) {
    if (Date.now() > deadline) throw new Error(`${what} not reached within ${ms} ms`);
    await new Promise((resolve) => setTimeout(resolve, 5));
  }
}

/** A promise plus its resolver, for waiting on callbacks. */
export function deferred<T = void>(): { promise: Promise<T>; resolve: (value: T) => void } {
  let resolve!: (value: T) => void;
  const promise = new Promise<T>((r) => {
    resolve = r;
  });
  return { promise, resolve };
}

export { Cleanup } from '../src/test-support.js';

export async function httpClient(url: string, cleanup: Cleanup, name = 'test-client'): Promise<Client> {
  const client = new Client({ name, version: '1.0.0' });
  const transport = new StreamableHTTPClientTransport(new URL(url));
  await within(client.connect(transport), 5000, 'connect');
  cleanup.add(async () => {
    await transport.terminateSession().catch(() => undefined);
    await client.close();
  });
  return client;
}

/** What a client with {@link interactiveClient}'s handlers was asked by the server. */
export interface ClientInputs {
  elicitations: ElicitRequest['params'][];
  samplings: CreateMessageRequest['params'][];
  rootsRequests: number;
}

/** The roots an {@link interactiveClient} answers `roots/list` with. */
export const CLIENT_ROOTS = [{ uri: 'file:///work/project', name: 'project' }];

/**
 * A client (not yet connected) that declares elicitation, sampling and roots and answers them: elicitations
 * accept with `{ answer: 'forty-two' }`, sampling answers `sampled: <first message text>`, roots are
 * {@link CLIENT_ROOTS}. `'modern'` negotiates (auto) so it speaks 2026-07-28 to a modern server; `'modern-pinned'`
 * pins 2026-07-28 (stdio: no second process for a probe).
 */
export function interactiveClient(
  era: 'legacy' | 'modern' | 'modern-pinned',
  name = 'interactive',
): { client: Client; inputs: ClientInputs } {
  const negotiation = {
    legacy: {},
    modern: { versionNegotiation: { mode: 'auto' as const } },
    'modern-pinned': { versionNegotiation: { mode: { pin: '2026-07-28' } } },
  }[era];
  const client = new Client(
    { name, version: '1.0.0' },
    {
      capabilities: { elicitation: { form: {} }, sampling: {}, roots: { listChanged: true } },
      ...negotiation,
    },
  );
  const inputs: ClientInputs = { elicitations: [], samplings: [], rootsRequests: 0 };
  client.setRequestHandler('elicitation/create', (request) => {
    inputs.elicitations.push(request.params);
    return { action: 'accept', content: { answer: 'forty-two' } };
  });
  client.setRequestHandler('sampling/createMessage', (request) => {
    inputs.samplings.push(request.params);
    const first = request.params.messages[0]?.content;
    const text = first !== undefined && !Array.isArray(first) && first.type === 'text' ? first.text : '?';
    return { role: 'assistant', content: { type: 'text', text: `sampled: ${text}` }, model: 'test-model' };
  });
  client.setRequestHandler('roots/list', () => {
    inputs.rootsRequests += 1;
    return { roots: CLIENT_ROOTS };
  });
  return { client, inputs };
}

/** Connects `client` to a Streamable HTTP endpoint, closing it (and a legacy session) on cleanup. */
export async function connectHttp(client: Client, url: string, cleanup: Cleanup): Promise<Client> {
  const transport = new StreamableHTTPClientTransport(new URL(url));
  await within(client.connect(transport), 5000, 'connect');
  cleanup.add(async () => {
    if (client.getProtocolEra() === 'legacy') await transport.terminateSession().catch(() => undefined);
    await client.close();
  });
  return client;
}
