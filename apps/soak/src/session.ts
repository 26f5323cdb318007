/**
 * One client session of the gateway with the official SDK client, of either era: a legacy session
 * (2025-11-25 over a Streamable HTTP session, `resources/subscribe` per watched resource) or a modern one
 * (2026-07-28, stateless, one `subscriptions/listen` stream for the watched resources). It records when
 * each upstream's subscription was confirmed and when an update from it last arrived.
 */
import { Client, type FetchLike, StreamableHTTPClientTransport } from '@modelcontextprotocol/client';
import { ALL, type Ledger } from './ledger.js';
import { nextOperation, send, type Wild } from './ops.js';

export type Era = 'legacy' | 'modern';

const CONNECT_TIMEOUT_MS = 10_000;
/** A subscription that failed (its upstream was down) is tried again after this long. */
const RESUBSCRIBE_MS = 3_000;

/**
 * The SDK transport hands one long-lived AbortSignal to every POST, and Node 20's fetch adds a listener
 * to it per request (released only at GC): over a long session that is a leak in the load generator and
 * a MaxListenersExceededWarning. Plain requests drop it; a listen stream keeps it, so close() aborts it.
 */
const postWithoutSharedSignal: FetchLike = (url, init) =>
  fetch(
    url,
    init?.method === 'POST' && !String(init.body).includes('"subscriptions/listen"')
      ? { ...init, signal: undefined }
      : init,
  );

export interface Watched {
  upstream: string;
  /** The exposed URI (`name+uri`). */
  uri: string;
}

export class SoakSession {
  readonly era: Era;
  readonly name: string;
  /** Upstream → when its watched resource's subscription was confirmed (absent: not subscribed). */
  readonly subscribedAt = new Map<string, number>();
  /** Upstream → when the last `notifications/resources/updated` of its watched resource arrived. */
  readonly lastUpdate = new Map<string, number>();
  updates = 0;
  /** Modern listen streams the gateway ended while the session still wanted them. */
  listenDrops = 0;
  #client: Client | undefined;
  #transport: StreamableHTTPClientTransport | undefined;
  #closing = false;
  #retryAt = 0;
  #listening = false;
  readonly #ledger: Ledger;
  readonly #watched: readonly Watched[];

  constructor(name: string, era: Era, ledger: Ledger, watched: readonly Watched[]) {
    this.name = name;
    this.era = era;
    this.#ledger = ledger;
    this.#watched = watched;
  }

  get open(): boolean {
    return this.#client !== undefined && !this.#closing;
  }

  async connect(url: string): Promise<void> {
    const client = new Client(
      { name: this.name, version: '0.0.0' },
      this.era === 'modern' ? { versionNegotiation: { mode: { pin: '2026-07-28' } } } : {},
    );
    const transport = new StreamableHTTPClientTransport(new URL(url), { fetch: postWithoutSharedSignal });
    client.setNotificationHandler('notifications/resources/updated', (n) => {
      const upstream = n.params.uri.slice(0, n.params.uri.indexOf('+'));
      this.lastUpdate.set(upstream, Date.now());
      this.updates += 1;
    });
    await client.connect(transport, { timeout: CONNECT_TIMEOUT_MS });
    if (client.getProtocolEra() !== this.era) {
      await client.close().catch(() => {});
      throw new Error(`${this.name}: negotiated the ${client.getProtocolEra()} era, wanted ${this.era}`);
    }
    this.#client = client;
    this.#transport = transport;
  }

  /** Subscribes what is not subscribed yet (at most every few seconds after a failure). */
  async follow(): Promise<void> {
    const client = this.#client;
    if (!client || Date.now() < this.#retryAt) return;
    if (this.era === 'modern') return this.#listen(client);
    for (const w of this.#watched) {
      if (this.subscribedAt.has(w.upstream) || this.#closing) continue;
      const result = await this.#ledger.track(w.upstream, 'resources/subscribe', 'legacy', (timeout) =>
        client.subscribeResource({ uri: w.uri }, { timeout }),
      );
      if (result) this.subscribedAt.set(w.upstream, Date.now());
      else this.#retryAt = Date.now() + RESUBSCRIBE_MS;
    }
  }

  async #listen(client: Client): Promise<void> {
    if (this.#listening || this.#closing) return;
    const uris = this.#watched.map((w) => w.uri);
    const subscription = await this.#ledger.track(ALL, 'subscriptions/listen', 'modern', (timeout) =>
      client.listen({ resourceSubscriptions: uris }, { timeout }),
    );
    if (!subscription) {
      this.#retryAt = Date.now() + RESUBSCRIBE_MS;
      return;
    }
    const sub = subscription as unknown as Awaited<ReturnType<Client['listen']>>;
    this.#listening = true;
    const honored = new Set(sub.honoredFilter.resourceSubscriptions ?? []);
    const now = Date.now();
    for (const w of this.#watched) if (honored.has(w.uri)) this.subscribedAt.set(w.upstream, now);
    void sub.closed.then((how) => {
      this.#listening = false;
      this.subscribedAt.clear();
      if (how !== 'local' && !this.#closing) this.listenDrops += 1;
    });
  }

  /** One request of the mix over `upstreams` (some to the misbehaving `wild`), recorded in the ledger. */
  async step(upstreams: readonly string[], wild?: Wild): Promise<void> {
    const client = this.#client;
    if (!client) return;
    const op = nextOperation(upstreams, wild);
    await this.#ledger.track(
      op.target,
      op.method,
      this.era,
      (timeout) => send(client, op, timeout),
      op.verify,
      op.spoiled,
    );
  }

  async close(): Promise<void> {
    if (this.#closing) return;
    this.#closing = true;
    const client = this.#client;
    this.#client = undefined;
    if (this.era === 'legacy') await this.#transport?.terminateSession().catch(() => {});
    await client?.close().catch(() => {});
  }
}
