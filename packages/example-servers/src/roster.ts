import type { McpServer } from '@modelcontextprotocol/server';

interface Entry {
  era: 'legacy' | 'modern';
  /** URIs a 2025-era session subscribed to with `resources/subscribe`. */
  subscriptions: Set<string>;
}

/**
 * The sessions a server serves, and what each subscribed to: a change goes to a 2025-era session only
 * when it subscribed to that URI (`resources/subscribe`); a 2026-07-28 session always sends it, and the
 * SDK's stdio listen router delivers it to the `subscriptions/listen` streams whose filter matches.
 */
export class SessionRoster {
  readonly #sessions = new Map<McpServer, Entry>();

  /** Registers `mcp` (before it connects) and answers its `resources/subscribe` and `unsubscribe`. */
  add(mcp: McpServer, era: 'legacy' | 'modern'): void {
    const entry: Entry = { era, subscriptions: new Set() };
    this.#sessions.set(mcp, entry);
    mcp.server.setRequestHandler('resources/subscribe', (request) => {
      entry.subscriptions.add(request.params.uri);
      return {};
    });
    mcp.server.setRequestHandler('resources/unsubscribe', (request) => {
      entry.subscriptions.delete(request.params.uri);
      return {};
    });
  }

  get size(): number {
    return this.#sessions.size;
  }

  /** Sends `notifications/resources/updated` for `uri` to the sessions that want it. */
  async updated(uri: string): Promise<void> {
    await Promise.allSettled(
      this.#live().map(([mcp, entry]) =>
        entry.era === 'modern' || entry.subscriptions.has(uri)
          ? mcp.server.sendResourceUpdated({ uri })
          : undefined,
      ),
    );
  }

  /** Sends `notifications/resources/list_changed` to every session. */
  listChanged(): void {
    for (const [mcp] of this.#live()) mcp.sendResourceListChanged();
  }

  /** The connected sessions (forgetting the closed ones). */
  #live(): [McpServer, Entry][] {
    for (const mcp of this.#sessions.keys()) if (!mcp.isConnected()) this.#sessions.delete(mcp);
    return [...this.#sessions];
  }
}
