/** Counters a test can assert on; shared by every session of a {@link TestServer}. */
export interface TestServerStats {
  /** Requests received per method (including `initialize` and `ping`, and requests that failed by injection). */
  requests: Record<string, number>;
  /** Net subscription count per URI: `resources/subscribe` +1, `resources/unsubscribe` -1. */
  subscribed: Record<string, number>;
  subscribeCalls: number;
  unsubscribeCalls: number;
  /** `notifications/cancelled` received. */
  cancelled: number;
  /** Sessions (connections) currently open. Modern-era HTTP requests are stateless and not counted. */
  sessions: number;
  /** Modern-era `subscriptions/listen` subscriptions currently open (HTTP listen streams and stdio). */
  listens: number;
}

export function createStats(): TestServerStats {
  return {
    requests: {},
    subscribed: {},
    subscribeCalls: 0,
    unsubscribeCalls: 0,
    cancelled: 0,
    sessions: 0,
    listens: 0,
  };
}

/** A deep copy, safe to hand out (e.g. over the control API). */
export function snapshotStats(stats: TestServerStats): TestServerStats {
  return { ...stats, requests: { ...stats.requests }, subscribed: { ...stats.subscribed } };
}
