import type { EventId, EventStore, JSONRPCMessage, StreamId } from '@modelcontextprotocol/server';

interface StoredEvent {
  streamId: StreamId;
  message: JSONRPCMessage;
}

/**
 * An in-memory SSE event log for one 2025 HTTP session, so a client whose stream was closed mid-call can
 * reconnect with `Last-Event-ID` and get what it missed. Keeps the newest `capacity` events.
 */
export class MemoryEventStore implements EventStore {
  readonly #events = new Map<EventId, StoredEvent>();
  readonly #capacity: number;
  #sequence = 0;

  constructor(capacity = 1000) {
    this.#capacity = capacity;
  }

  async storeEvent(streamId: StreamId, message: JSONRPCMessage): Promise<EventId> {
    this.#sequence += 1;
    const eventId = `${this.#sequence}:${streamId}`;
    this.#events.set(eventId, { streamId, message });
    if (this.#events.size > this.#capacity) {
      const oldest = this.#events.keys().next().value;
      if (oldest !== undefined) this.#events.delete(oldest);
    }
    return eventId;
  }

  async getStreamIdForEventId(eventId: EventId): Promise<StreamId | undefined> {
    return this.#events.get(eventId)?.streamId;
  }

  async replayEventsAfter(
    lastEventId: EventId,
    { send }: { send: (eventId: EventId, message: JSONRPCMessage) => Promise<void> },
  ): Promise<StreamId> {
    const last = this.#events.get(lastEventId);
    if (last === undefined) throw new Error(`unknown event id ${lastEventId}`);
    let after = false;
    // Map iteration follows insertion order, which is the order events were stored.
    for (const [eventId, event] of this.#events) {
      if (eventId === lastEventId) {
        after = true;
        continue;
      }
      if (after && event.streamId === last.streamId) await send(eventId, event.message);
    }
    return last.streamId;
  }
}
