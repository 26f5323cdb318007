/** How much one session keeps for resumption; the oldest events go first when a bound is reached. */
export interface EventStoreLimits {
  /** Events kept per session, across all its streams (default 1000). */
  maxEvents?: number;
  /** Bytes of event data kept per session (default 1 MiB). */
  maxBytes?: number;
  /** How long a finished stream, or a standalone stream whose client went away, stays resumable (default 30 s). */
  graceMs?: number;
}

export const DEFAULT_EVENT_STORE_LIMITS: Required<EventStoreLimits> = {
  maxEvents: 1000,
  maxBytes: 1024 * 1024,
  graceMs: 30_000,
};

/** One SSE event as written: its id and its `data` line (a serialized JSON-RPC message). */
export interface StoredEvent {
  id: string;
  data: string;
}

interface Kept extends StoredEvent {
  seq: number;
  bytes: number;
}

/** A POST response stream (`p…`) or the session's standalone GET stream (`g…`). */
export type StreamKind = 'post' | 'get';

/** The events of one stream, kept so a client that lost its connection can resume it. */
export class StreamLog<Owner = unknown> {
  readonly key: string;
  readonly kind: StreamKind;
  /** What the stream belongs to (the transport's POST exchange or standalone stream). */
  readonly owner: Owner;
  /** The lowest sequence number a replay may start after: below it are other streams' ids, or evicted events. */
  floor: number;
  /** The highest sequence number issued on this stream. */
  last: number;
  /** Set when the stream will get nothing more, or its reader left; dropped `graceMs` later. */
  settledAt: number | undefined;
  dropped = false;
  readonly events: Kept[] = [];

  constructor(key: string, kind: StreamKind, owner: Owner, seq: number) {
    this.key = key;
    this.kind = kind;
    this.owner = owner;
    // Ids issued before the stream existed never resume it.
    this.floor = seq + 1;
    this.last = seq;
  }
}

/**
 * One session's resumable SSE events, bounded in count and bytes. Event ids are `<stream>-<seq>`:
 * `seq` counts every id the session ever issued (so ids are unique across its streams) and the stream
 * key (`p3`, `g1`) names the stream a `Last-Event-ID` resumes, as the spec asks. Finished streams are
 * dropped a grace period later; when a bound is reached the oldest events of finished streams go
 * first, then the oldest of all, and a replay that would skip an evicted event is refused instead.
 */
export class SessionEventStore<Owner = unknown> {
  readonly #limits: Required<EventStoreLimits>;
  readonly #streams = new Map<string, StreamLog<Owner>>();
  #seq = 0;
  #streamCount = 0;
  #events = 0;
  #bytes = 0;
  #sweep: NodeJS.Timeout | undefined;

  constructor(limits: EventStoreLimits = {}) {
    this.#limits = { ...DEFAULT_EVENT_STORE_LIMITS, ...limits };
  }

  /** A new stream; ids issued before it never resume it. */
  open(kind: StreamKind, owner: Owner): StreamLog<Owner> {
    this.#streamCount += 1;
    const key = `${kind === 'post' ? 'p' : 'g'}${this.#streamCount}`;
    const log = new StreamLog(key, kind, owner, this.#seq);
    this.#streams.set(key, log);
    return log;
  }

  /** Issues an id on `log` that carries no event (a priming event's): a client may resume from it. */
  mark(log: StreamLog<Owner>): string {
    this.#seq += 1;
    log.last = this.#seq;
    return `${log.key}-${this.#seq}`;
  }

  /** Keeps one event of `log` and returns its id. */
  append(log: StreamLog<Owner>, data: string): string {
    const id = this.mark(log);
    if (log.dropped) return id;
    const bytes = Buffer.byteLength(data);
    log.events.push({ id, data, seq: this.#seq, bytes });
    this.#events += 1;
    this.#bytes += bytes;
    while (this.#events > this.#limits.maxEvents || this.#bytes > this.#limits.maxBytes) this.#evictOldest();
    return id;
  }

  /**
   * The stream `lastEventId` belongs to and every kept event after it, in order; undefined when the id is
   * malformed, names no stream this session still keeps, or events after it were evicted.
   */
  replay(lastEventId: string): { log: StreamLog<Owner>; events: StoredEvent[] } | undefined {
    const dash = lastEventId.lastIndexOf('-');
    const log = this.#streams.get(lastEventId.slice(0, dash));
    const text = lastEventId.slice(dash + 1);
    const seq = /^\d{1,15}$/.test(text) ? Number(text) : Number.NaN;
    if (dash < 1 || !log || !(seq >= log.floor && seq <= log.last)) return undefined;
    const events = log.events.filter((e) => e.seq > seq).map(({ id, data }) => ({ id, data }));
    return { log, events };
  }

  /** `log` gets nothing more (or its reader left): drop it once the grace period has passed. */
  settle(log: StreamLog<Owner>): void {
    if (log.dropped || log.settledAt !== undefined) return;
    log.settledAt = Date.now();
    this.#armSweep(this.#limits.graceMs);
  }

  /** A reader came back to a settled stream before it was dropped: keep it. */
  revive(log: StreamLog<Owner>): void {
    log.settledAt = undefined;
  }

  drop(log: StreamLog<Owner>): void {
    if (log.dropped) return;
    log.dropped = true;
    this.#streams.delete(log.key);
    for (const event of log.events) {
      this.#events -= 1;
      this.#bytes -= event.bytes;
    }
    log.events.length = 0;
  }

  streams(): IterableIterator<StreamLog<Owner>> {
    return this.#streams.values();
  }

  /** What the store holds now (for tests and status). */
  size(): { streams: number; events: number; bytes: number } {
    return { streams: this.#streams.size, events: this.#events, bytes: this.#bytes };
  }

  /** Forgets everything (the session closed). */
  dispose(): void {
    clearTimeout(this.#sweep);
    this.#sweep = undefined;
    for (const log of [...this.#streams.values()]) this.drop(log);
  }

  #evictOldest(): void {
    let victim: StreamLog<Owner> | undefined;
    for (const log of this.#streams.values()) {
      const first = log.events[0];
      if (!first) continue;
      const better =
        !victim ||
        (log.settledAt !== undefined && victim.settledAt === undefined) ||
        ((log.settledAt === undefined) === (victim.settledAt === undefined) &&
          first.seq < victim.events[0]!.seq);
      if (better) victim = log;
    }
    const event = victim?.events.shift();
    if (!victim || !event) return;
    victim.floor = event.seq;
    this.#events -= 1;
    this.#bytes -= event.bytes;
  }

  #armSweep(delayMs: number): void {
    if (this.#sweep) return;
    this.#sweep = setTimeout(() => {
      this.#sweep = undefined;
      const now = Date.now();
      let next = Number.POSITIVE_INFINITY;
      for (const log of [...this.#streams.values()]) {
        if (log.settledAt === undefined) continue;
        const due = log.settledAt + this.#limits.graceMs;
        if (due <= now) this.drop(log);
        else next = Math.min(next, due);
      }
      if (next !== Number.POSITIVE_INFINITY) this.#armSweep(next - now);
    }, delayMs);
    this.#sweep.unref();
  }
}
