import type { Client, PriorDiscovery, Transport } from '@modelcontextprotocol/client';

/**
 * Connects `client` over `transport` with the whole handshake (the era probe and `initialize`, or
 * `server/discover`) bounded by the upstream's `timeoutMs`: a server that never finishes it is given up
 * then (DESIGN §11) and retried with backoff, while the others serve. The caller closes the client and the
 * transport on failure (during the era probe the client does not hold the transport yet), which ends
 * whatever the SDK still waits for.
 */
export async function handshake(
  client: Client,
  transport: Transport,
  options: { timeoutMs: number; prior: PriorDiscovery | undefined },
): Promise<void> {
  const { timeoutMs, prior } = options;
  let timer: NodeJS.Timeout | undefined;
  const deadline = new Promise<never>((_, reject) => {
    timer = setTimeout(
      () =>
        reject(new Error(`the upstream did not complete its handshake within ${timeoutMs} ms (timeoutMs)`)),
      timeoutMs,
    );
  });
  const connecting = client.connect(transport, { timeout: timeoutMs, prior });
  connecting.catch(() => {}); // after the deadline, how it ends is moot
  try {
    await Promise.race([connecting, deadline]);
  } finally {
    clearTimeout(timer);
  }
}
