/**
 * Do legacy sessions work across replicas? One session opened through a round-robin balancer in front
 * of two replicas (so `initialize` and `notifications/initialized` land on different replicas), then a
 * few reads on it, each on the next replica. Without shared sessions the second POST is a 404.
 */
import { Agent } from 'node:http';
import { LegacyHttpClient } from '@switchyard/testkit/mcp';
import type { LegacyProbe } from './model.js';

export async function probeLegacyAcrossReplicas(
  url: string,
  uris: readonly string[],
  reads = 4,
): Promise<LegacyProbe> {
  const agent = new Agent({ keepAlive: true, maxSockets: 1 });
  const probe: LegacyProbe = { reads, ok: 0, opened: false };
  let session: LegacyHttpClient | undefined;
  try {
    session = await LegacyHttpClient.open(url, { agent: agent, clientName: 'bench-legacy-probe' });
    probe.opened = true;
    for (let i = 0; i < reads; i++) {
      try {
        await session.request({ method: 'resources/read', params: { uri: uris[i % uris.length]! } });
        probe.ok += 1;
      } catch (error) {
        probe.firstError ??= (error as Error).message;
      }
    }
  } catch (error) {
    probe.firstError ??= `opening: ${(error as Error).message}`;
  } finally {
    await session?.close();
    agent.destroy();
  }
  return probe;
}
