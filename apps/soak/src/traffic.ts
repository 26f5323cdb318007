/**
 * The client load: N workers, half legacy and half modern, each running one session at a time. A session
 * subscribes to the watched resource of every base upstream, then loops over the request mix with a short
 * pause; it lives 30–90 s and is replaced by a fresh one (session churn, so leaks of closed sessions show
 * in the gateway's RSS).
 */
import type { Ledger } from './ledger.js';
import type { Wild } from './ops.js';
import { type Era, SoakSession, type Watched } from './session.js';

const MIN_LIFE_MS = 30_000;
const MAX_LIFE_MS = 90_000;
const RECONNECT_PAUSE_MS = 1_000;

export interface TrafficOptions {
  url: string;
  sessions: number;
  thinkMs: number;
  ledger: Ledger;
  watched: readonly Watched[];
  /** The upstreams in the config right now (requests only go to configured ones). */
  upstreams: () => readonly string[];
  /** The misbehaving upstream, which a share of the requests go to. */
  wild?: Wild;
}

export class Traffic {
  /** Sessions open right now. */
  readonly live = new Set<SoakSession>();
  opened = { legacy: 0, modern: 0 };
  /** Sessions the gateway would not open (`initialize` / `server/discover` failed). */
  connectFailures: { time: number; era: Era; message: string }[] = [];
  /** Update notifications of sessions already closed (plus `live` ones: {@link updates}). */
  #closedUpdates = 0;
  #closedListenDrops = 0;
  #stopping = false;
  #workers: Promise<void>[] = [];
  readonly #options: TrafficOptions;

  constructor(options: TrafficOptions) {
    this.#options = options;
  }

  get updates(): number {
    let n = this.#closedUpdates;
    for (const s of this.live) n += s.updates;
    return n;
  }

  get listenDrops(): number {
    let n = this.#closedListenDrops;
    for (const s of this.live) n += s.listenDrops;
    return n;
  }

  start(): void {
    for (let i = 0; i < this.#options.sessions; i++) {
      const era: Era = i % 2 === 0 ? 'legacy' : 'modern';
      this.#workers.push(this.#worker(i, era));
    }
  }

  /** Stops issuing requests, lets those in flight finish (each bounded by its timeout), closes sessions. */
  async stop(): Promise<void> {
    this.#stopping = true;
    await Promise.all(this.#workers);
  }

  async #worker(index: number, era: Era): Promise<void> {
    // Spread the first connections and the first expiries over a few seconds.
    await sleep(index * 50);
    let generation = 0;
    while (!this.#stopping) {
      const session = new SoakSession(`soak-${era}-${index}.${generation++}`, era, this.#options.ledger, [
        ...this.#options.watched,
      ]);
      try {
        await session.connect(this.#options.url);
      } catch (error) {
        const message = error instanceof Error ? error.message : String(error);
        this.connectFailures.push({ time: Date.now(), era, message });
        await sleep(RECONNECT_PAUSE_MS);
        continue;
      }
      this.opened[era] += 1;
      this.live.add(session);
      const until = Date.now() + MIN_LIFE_MS + Math.random() * (MAX_LIFE_MS - MIN_LIFE_MS);
      try {
        while (!this.#stopping && Date.now() < until) {
          await session.follow();
          await session.step(this.#options.upstreams(), this.#options.wild);
          if (this.#options.thinkMs > 0) await sleep(this.#options.thinkMs * (0.5 + Math.random()));
        }
      } finally {
        this.live.delete(session);
        this.#closedUpdates += session.updates;
        this.#closedListenDrops += session.listenDrops;
        await session.close();
      }
    }
  }
}

function sleep(ms: number): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, ms));
}
