// Raw SSE reading for the resumable-stream tests: the fields of every event as the wire carries them
// (id, retry, event, data), read one event at a time so a test can stop, or cut the connection, anywhere;
// and the raw legacy session both resumption tests open.

import { Agent } from 'node:http';
import { LegacyHttpClient } from '@switchyard/testkit/mcp';
import { expect } from 'vitest';
import type { Cleanup } from './support/harness.js';

export interface SseEvent {
  id?: string;
  retry?: number;
  event?: string;
  data: string;
}

export type Json = Record<string, unknown>;

/** A legacy session opened by raw HTTP: its endpoint and the headers each of its requests carries. */
export interface RawSession {
  url: string;
  headers: Record<string, string>;
}

/** Opens a legacy session at `version` with the testkit's raw client; `cleanup` DELETEs it. */
export async function openRawSession(cleanup: Cleanup, url: string, version: string): Promise<RawSession> {
  const session = await LegacyHttpClient.open(url, {
    agent: new Agent({ keepAlive: false }),
    clientName: 'raw',
    protocolVersion: version,
  });
  expect(session.protocolVersion).toBe(version);
  cleanup.add(() => session.close());
  return { url, headers: { 'mcp-session-id': session.sessionId, 'mcp-protocol-version': version } };
}

/** A JSON-RPC POST on `session`, answered as JSON or as an SSE stream. */
export function postOn(session: RawSession, body: Json, signal?: AbortSignal): Promise<Response> {
  return fetch(session.url, {
    method: 'POST',
    headers: {
      'content-type': 'application/json',
      accept: 'application/json, text/event-stream',
      ...session.headers,
    },
    body: JSON.stringify({ jsonrpc: '2.0', ...body }),
    signal,
  });
}

/** The GET stream of `session`, resumed after `lastEventId` when given. */
export function getOn(session: RawSession, lastEventId?: string, signal?: AbortSignal): Promise<Response> {
  return fetch(session.url, {
    headers: {
      accept: 'text/event-stream',
      ...session.headers,
      ...(lastEventId ? { 'last-event-id': lastEventId } : {}),
    },
    signal,
  });
}

export class SseReader {
  readonly #reader: ReadableStreamDefaultReader<Uint8Array>;
  readonly #decoder = new TextDecoder();
  #buffer = '';

  constructor(response: Response) {
    if (!response.body) throw new Error(`no body (HTTP ${response.status})`);
    this.#reader = response.body.getReader();
  }

  /** The next event (comment-only blocks, i.e. keep-alives, are skipped); undefined when the stream ends. */
  async next(): Promise<SseEvent | undefined> {
    for (;;) {
      const end = this.#buffer.indexOf('\n\n');
      if (end >= 0) {
        const block = this.#buffer.slice(0, end);
        this.#buffer = this.#buffer.slice(end + 2);
        const event = parseBlock(block);
        if (event) return event;
        continue;
      }
      const { value, done } = await this.#reader.read();
      if (done) return undefined;
      this.#buffer += this.#decoder.decode(value, { stream: true });
    }
  }

  /** Every event until the server ends the stream. */
  async rest(): Promise<SseEvent[]> {
    const events: SseEvent[] = [];
    for (let event = await this.next(); event; event = await this.next()) events.push(event);
    return events;
  }

  /** Reads until `stop` accepts an event; returns every event read, that one included. */
  async until(stop: (event: SseEvent) => boolean): Promise<SseEvent[]> {
    const events: SseEvent[] = [];
    for (;;) {
      const event = await this.next();
      if (!event) throw new Error(`stream ended before the awaited event; read ${JSON.stringify(events)}`);
      events.push(event);
      if (stop(event)) return events;
    }
  }

  async cancel(): Promise<void> {
    await this.#reader.cancel().catch(() => {});
  }
}

function parseBlock(block: string): SseEvent | undefined {
  const event: SseEvent = { data: '' };
  const data: string[] = [];
  let fields = 0;
  for (const line of block.split('\n')) {
    if (line === '' || line.startsWith(':')) continue;
    const colon = line.indexOf(':');
    const name = colon < 0 ? line : line.slice(0, colon);
    const value = colon < 0 ? '' : line.slice(colon + 1).replace(/^ /, '');
    fields += 1;
    if (name === 'id') event.id = value;
    else if (name === 'retry') event.retry = Number(value);
    else if (name === 'event') event.event = value;
    else if (name === 'data') data.push(value);
  }
  if (fields === 0) return undefined;
  event.data = data.join('\n');
  return event;
}

/** The JSON-RPC message an event carries (undefined for a priming event). */
export function messageOf(event: SseEvent): Json | undefined {
  return event.data === '' ? undefined : (JSON.parse(event.data) as Json);
}

/** The numeric part of an event id (`p3-17` → 17): ids grow across the session. */
export function seqOf(id: string | undefined): number {
  return Number(id?.slice(id.lastIndexOf('-') + 1));
}
