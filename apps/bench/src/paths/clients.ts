/** The clients of every side of the matrix: direct to each upstream in each era it serves, and to the gateway. */
import { Agent } from 'node:http';
import { LegacySession } from '../replicas/legacy-session.js';
import type { RequestClient } from '../replicas/measure.js';
import { ModernClient } from '../replicas/modern-client.js';
import { noDirectReason } from './matrix.js';
import type { ClientEra, PathsConfig, UpstreamKind } from './model.js';
import { UPSTREAM_NAMES } from './model.js';
import { StdioClient } from './stdio-client.js';
import { catalogArgs, type UpstreamEndpoints } from './upstreams.js';
import { WsClient } from './ws-client.js';

/** Opened clients, closed together by `close()`. */
export class PathClients {
  readonly #agent = new Agent({ keepAlive: true, maxSockets: 64 });
  readonly #closers: (() => Promise<unknown> | unknown)[] = [];
  readonly #direct = new Map<string, RequestClient>();

  /** A client of `era` to the gateway at `url` (a legacy session, or the sessionless modern client). */
  async gateway(url: string, era: ClientEra): Promise<RequestClient> {
    if (era === 'modern') {
      const client = new ModernClient(url);
      this.#closers.push(() => client.close());
      return client;
    }
    const session = await LegacySession.open(url, this.#agent, 'bench-paths');
    this.#closers.push(() => session.close());
    return session.asClient();
  }

  /**
   * A client of `era` to the floor proxy in front of `upstream` (one per pair): over HTTP like the
   * gateway's, so the floor and the gateway rows differ only in what runs in the middle.
   */
  async floor(url: string, upstream: UpstreamKind, era: ClientEra): Promise<RequestClient> {
    const key = `floor/${upstream}/${era}`;
    const known = this.#direct.get(key);
    if (known) return known;
    const client = await this.gateway(url, era);
    this.#direct.set(key, client);
    return client;
  }

  /** The direct client of `upstream` in `era` (one per pair, opened on first use), or undefined when none. */
  async direct(
    upstream: UpstreamKind,
    era: ClientEra,
    endpoints: UpstreamEndpoints,
    config: Pick<PathsConfig, 'resources' | 'payloadBytes' | 'tools'>,
  ): Promise<RequestClient | undefined> {
    if (noDirectReason(upstream, era) !== undefined) return undefined;
    const key = `${upstream}/${era}`;
    const known = this.#direct.get(key);
    if (known) return known;
    let client: RequestClient;
    if (upstream === 'stdio') {
      const stdio = await StdioClient.start(
        'upstream stdio (direct)',
        catalogArgs(UPSTREAM_NAMES.stdio, config),
      );
      this.#closers.push(() => stdio.close());
      client = stdio;
    } else if (upstream === 'ws') {
      const ws = await WsClient.connect(endpoints.ws!);
      this.#closers.push(() => ws.close());
      client = ws;
    } else {
      const url = endpoints[upstream]!;
      if (era === 'modern') {
        const modern = new ModernClient(url);
        this.#closers.push(() => modern.close());
        client = modern;
      } else {
        const session = await LegacySession.open(url, this.#agent, 'bench-paths');
        this.#closers.push(() => session.close());
        client = session.asClient();
      }
    }
    this.#direct.set(key, client);
    return client;
  }

  /** Closes every client (best effort) and the shared HTTP agent. */
  async close(): Promise<void> {
    await Promise.allSettled(this.#closers.splice(0).map(async (close) => close()));
    this.#agent.destroy();
  }
}
