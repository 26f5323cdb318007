import { Client, StreamableHTTPClientTransport } from '@modelcontextprotocol/client';
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
