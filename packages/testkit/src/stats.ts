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
  /**
   * `tools/call` requests received per tool name (like `requests`: unknown names and injected failures count
   * too). A modern-era call that needs input (`elicit`, `sample`, `roots`) arrives twice: the first call and
   * its retry; on a 2025-era session the SDK's shim re-enters the handler within the one request.
   */
  toolCalls: Record<string, number>;
  /** `prompts/get` requests received per prompt name. */
  promptGets: Record<string, number>;
  /** `tools/call` handler runs in progress (a cancelled `slow` call leaves this count at once). */
  activeToolCalls: number;
  /**
   * Handshakes received: every `initialize` (2025) and `server/discover` (2026-07-28) request, on every
   * session and transport, including those `hang-handshake` never answers.
   */
  handshakes: number;
}

/** Whether `method` opens a connection: the 2025 `initialize` or the modern `server/discover`. */
export function isHandshake(method: string): boolean {
  return method === 'initialize' || method === 'server/discover';
}

export function createStats(): TestServerStats {
  return {
    requests: counters(),
    subscribed: counters(),
    subscribeCalls: 0,
    unsubscribeCalls: 0,
    cancelled: 0,
    sessions: 0,
    listens: 0,
    toolCalls: counters(),
    promptGets: counters(),
    activeToolCalls: 0,
    handshakes: 0,
  };
}

/**
 * Counters keyed by what a client sent (a method, a tool name, a URI): without a prototype, so a request
 * for `__proto__` or `toString` is counted under its own name like any other.
 */
function counters(): Record<string, number> {
  return Object.create(null) as Record<string, number>;
}

/** A deep copy, safe to hand out (e.g. over the control API). */
export function snapshotStats(stats: TestServerStats): TestServerStats {
  return {
    ...stats,
    requests: Object.assign(counters(), stats.requests),
    subscribed: Object.assign(counters(), stats.subscribed),
    toolCalls: Object.assign(counters(), stats.toolCalls),
    promptGets: Object.assign(counters(), stats.promptGets),
  };
}
