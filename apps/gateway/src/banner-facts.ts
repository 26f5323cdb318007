import type { BannerFacts } from './banner.js';
import type { RunningGateway } from './run.js';
import { SWITCHYARD_VERSION } from './version.js';

/** How long the banner waits for the four lists before it shows the upstreams without counts. */
const LIST_TIMEOUT_MS = 5000;

/**
 * Gathers the banner's facts from a running gateway. The counts are the gateway's inventory: what each
 * upstream exposes after its curation, listed as the gateway's own calls (no caller's access rules apply,
 * nothing goes to the audit log). An upstream whose lists fail shows no counts.
 */
export async function collectBannerFacts(running: RunningGateway, readyMs: number): Promise<BannerFacts> {
  const { gateway } = running;
  const status = gateway.status();
  const listeners = [
    ...(running.http ? [{ kind: 'http', url: running.http.url }] : []),
    ...(running.ws ? [{ kind: 'ws', url: running.ws.url }] : []),
    ...(running.stdioClosed ? [{ kind: 'stdio', url: 'stdio' }] : []),
  ];
  const counts = await gateway
    .inventory({ signal: AbortSignal.timeout(LIST_TIMEOUT_MS) })
    .catch(() => undefined);
  return {
    version: SWITCHYARD_VERSION,
    readyMs,
    listeners,
    adminUrl: running.admin?.url,
    upstreams: status.map((u) =>
      u.state === 'ready'
        ? { name: u.name, state: u.state, counts: counts?.get(u.name) }
        : { name: u.name, state: u.state, error: u.lastError },
    ),
  };
}
