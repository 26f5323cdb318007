/** A ticket on the example desk. */
export interface Ticket {
  id: string;
  title: string;
  status: 'open' | 'in progress' | 'closed';
  priority: 'low' | 'normal' | 'high';
  body: string;
  updatedAt: string;
  /** Why it was closed (closed tickets only). */
  resolution?: string;
}

/** What changed on the desk: one resource's content, or the set of resources (a ticket created). */
export type DeskChange = { kind: 'updated'; uri: string } | { kind: 'list_changed' };

/** The URI the `tickets` server reads the queue status at; it changes on every tick. */
export const STATUS_URI = 'tickets://queue/status';

/** The URI of a ticket (the template `tickets://{id}`). */
export function ticketUri(id: string): string {
  return `tickets://${id}`;
}

const SEED: readonly Omit<Ticket, 'updatedAt'>[] = [
  {
    id: 'T-101',
    title: 'Checkout returns 502 for some EU users',
    status: 'open',
    priority: 'high',
    body: 'Since the 09:40 deploy about 3 % of checkout requests from eu-west get a 502 from the edge. The canary was green. Suspect the new connection pool limit.',
  },
  {
    id: 'T-102',
    title: 'Nightly export job runs twice',
    status: 'in progress',
    priority: 'normal',
    body: 'The export cron fires at 02:00 in both regions after the failover test, so customers get two files. Needs a lock or a single region.',
  },
  {
    id: 'T-103',
    title: 'New hires cannot reach the staging VPN',
    status: 'open',
    priority: 'normal',
    body: 'Accounts created this week are missing the staging-vpn group. Workaround: add it by hand in the directory.',
  },
  {
    id: 'T-104',
    title: 'Dashboard graphs show UTC, not local time',
    status: 'closed',
    priority: 'low',
    body: 'Reported by support. Fixed by the timezone setting in the dashboard profile.',
    resolution: 'Documented the profile setting in the style guide.',
  },
];

/**
 * The ticket desk's state, shared by every session of the `tickets` server: a few seeded tickets, and a
 * queue status that changes every `tickMs` (a "live" resource to subscribe to).
 *
 * @example
 * const desk = new TicketDesk({ tickMs: 5000 });
 * desk.onChange((change) => console.error(change));
 * desk.start();
 * desk.create({ title: 'Disk full on build agent 3', body: '…' });
 */
export class TicketDesk {
  readonly tickMs: number;
  readonly #tickets = new Map<string, Ticket>();
  readonly #listeners = new Set<(change: DeskChange) => void>();
  #nextId = 105;
  #ticks = 0;
  #timer: NodeJS.Timeout | undefined;
  #statusAt = new Date();

  constructor(options: { tickMs?: number } = {}) {
    this.tickMs = options.tickMs ?? 5000;
    const now = new Date().toISOString();
    for (const ticket of SEED) this.#tickets.set(ticket.id, { ...ticket, updatedAt: now });
  }

  list(): Ticket[] {
    return [...this.#tickets.values()];
  }

  get(id: string): Ticket | undefined {
    return this.#tickets.get(id);
  }

  create(fields: { title: string; body: string; priority?: Ticket['priority'] }): Ticket {
    const ticket: Ticket = {
      id: `T-${this.#nextId++}`,
      title: fields.title,
      body: fields.body,
      priority: fields.priority ?? 'normal',
      status: 'open',
      updatedAt: new Date().toISOString(),
    };
    this.#tickets.set(ticket.id, ticket);
    this.#emit({ kind: 'list_changed' });
    this.#emit({ kind: 'updated', uri: STATUS_URI });
    return ticket;
  }

  /** Closes a ticket; undefined when there is no such ticket. */
  close(id: string, resolution: string): Ticket | undefined {
    const ticket = this.#tickets.get(id);
    if (ticket === undefined) return undefined;
    Object.assign(ticket, { status: 'closed', resolution, updatedAt: new Date().toISOString() });
    this.#emit({ kind: 'updated', uri: ticketUri(id) });
    this.#emit({ kind: 'updated', uri: STATUS_URI });
    return ticket;
  }

  /** The queue status as markdown: counts by status and when it was last refreshed. */
  statusText(): string {
    const count = (status: Ticket['status']) => this.list().filter((t) => t.status === status).length;
    const oldest = this.list().find((t) => t.status === 'open');
    return [
      '# Queue status',
      '',
      `Refreshed: ${this.#statusAt.toISOString()} (refresh #${this.#ticks}, every ${this.tickMs / 1000} s)`,
      `Open: ${count('open')} · In progress: ${count('in progress')} · Closed: ${count('closed')}`,
      oldest ? `Oldest open: ${oldest.id} ${oldest.title}` : 'Nothing open. Enjoy the quiet.',
      '',
    ].join('\n');
  }

  /** Calls `listener` on every change; returns the function that removes it. */
  onChange(listener: (change: DeskChange) => void): () => void {
    this.#listeners.add(listener);
    return () => this.#listeners.delete(listener);
  }

  /** Starts refreshing the queue status every `tickMs` (the timer does not keep the process alive). */
  start(): void {
    if (this.#timer !== undefined || this.tickMs <= 0) return;
    this.#timer = setInterval(() => {
      this.#ticks += 1;
      this.#statusAt = new Date();
      this.#emit({ kind: 'updated', uri: STATUS_URI });
    }, this.tickMs);
    this.#timer.unref();
  }

  stop(): void {
    clearInterval(this.#timer);
    this.#timer = undefined;
  }

  #emit(change: DeskChange): void {
    for (const listener of [...this.#listeners]) listener(change);
  }
}
