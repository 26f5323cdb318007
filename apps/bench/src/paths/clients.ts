/** The clients of every side of the matrix: direct to each upstream in each era it serves, and to the gateway. */
import { Agent } from 'node:http';
import {
  ChannelClient,
  LegacyHttpClient,
  ModernHttpClient,
  type RequestClient,
} from '@switchyard/testkit/mcp';
import { children, testkitCli } from '../services.js';
import { noDirectReason } from './matrix.js';
import type { ClientEra, PathsConfig, UpstreamKind } from './model.js';
import { UPSTREAM_NAMES } from './model.js';
import { catalogArgs, type UpstreamEndpoints } from './upstreams.js';

/** Opened clients, closed together by `close()`. */
export class PathClients {
  readonly #agent = new Agent({ keepAlive: true, maxSockets: 64 });
  readonly #opened: RequestClient[] = [];
  readonly #byKey = new Map<string, RequestClient>();

  /** A client of `era` at `url` (a legacy session, or sessionless 2026-07-28 requests). */
  async http(url: string, era: ClientEra): Promise<RequestClient> {
    const client =
      era === 'modern'
        ? new ModernHttpClient(url, { clientName: 'bench-paths' })
        : await LegacyHttpClient.open(url, { agent: this.#agent, clientName: 'bench-paths' });
    this.#opened.push(client);
    return client;
  }

  /**
   * One client of `era` per middle process in front of `upstream` (the floor proxy, HAProxy): over HTTP like
   * the gateway's, so those rows and the gateway's differ only in what runs in the middle.
   */
  async middle(what: string, url: string, upstream: UpstreamKind, era: ClientEra): Promise<RequestClient> {
    return this.#once(`${what}/${upstream}/${era}`, () => this.http(url, era));
  }

  /** The direct client of `upstream` in `era` (one per pair, opened on first use), or undefined when none. */
  async direct(
    upstream: UpstreamKind,
    era: ClientEra,
    endpoints: UpstreamEndpoints,
    config: Pick<PathsConfig, 'resources' | 'payloadBytes' | 'tools'>,
  ): Promise<RequestClient | undefined> {
    if (noDirectReason(upstream, era) !== undefined) return undefined;
    return this.#once(`${upstream}/${era}`, async () => {
      if (upstream === 'stdio') {
        const { proc } = await children.start({
          name: 'upstream stdio (direct)',
          args: [testkitCli(), '--stdio', ...catalogArgs(UPSTREAM_NAMES.stdio, config)],
          stdin: 'pipe',
          keepChars: 64 * 1024,
          ready: { stream: 'stderr', line: /serving '.*' on stdio/ },
        });
        const client = await ChannelClient.overStdio(proc, 'bench-paths-stdio');
        this.#opened.push(client);
        return client;
      }
      if (upstream === 'ws') {
        const client = await ChannelClient.overWebSocket(endpoints.ws!, 'bench-paths-ws');
        this.#opened.push(client);
        return client;
      }
      return this.http(endpoints[upstream]!, era);
    });
  }

  /** Closes every client (best effort) and the shared HTTP agent. */
  async close(): Promise<void> {
    await Promise.allSettled(this.#opened.splice(0).map((client) => client.close()));
    this.#agent.destroy();
  }

  async #once(key: string, open: () => Promise<RequestClient>): Promise<RequestClient> {
    const known = this.#byKey.get(key);
    if (known) return known;
    const client = await open();
    this.#byKey.set(key, client);
    return client;
  }
}
