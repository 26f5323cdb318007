import type {
  JSONRPCMessage,
  MessageExtraInfo,
  Transport,
  TransportSendOptions,
} from '@modelcontextprotocol/server';
import { TransportWrapper } from '@switchyard/core/listener';
import { isRequest, isResponse, type RequestId } from '../listeners/wire.js';
import type { SessionRecord } from './session-directory.js';

/** The requests that change what a takeover must restore. */
const RECORDED = new Set(['resources/subscribe', 'resources/unsubscribe', 'logging/setLevel']);

/** Ids of the requests a replica sends itself when it restores a session: not recorded again. */
export const RESTORE_ID_PREFIX = 'switchyard-restore:';

/**
 * Sits between a legacy session's HTTP transport and the rest of its stack and keeps the session's
 * record up to date: a `resources/subscribe`, `resources/unsubscribe` or `logging/setLevel` the gateway
 * answered without error changes the record, which `onChange` writes to the store; every client request
 * renews the record's lifetime (`onUse`).
 */
export class SessionRecorder extends TransportWrapper {
  readonly record: SessionRecord;
  /** Recorded requests awaiting their answer: only while one is (an idle session holds no map). */
  #pending: Map<RequestId, { method: string; params: Record<string, unknown> }> | undefined;
  readonly #onChange: (record: SessionRecord) => void;
  readonly #onUse: () => void;

  constructor(
    inner: Transport,
    record: SessionRecord,
    hooks: { onChange: (record: SessionRecord) => void; onUse: () => void },
  ) {
    super(inner);
    this.record = record;
    this.#onChange = hooks.onChange;
    this.#onUse = hooks.onUse;
  }

  protected inbound(message: JSONRPCMessage, extra: MessageExtraInfo | undefined): void {
    if (isRequest(message)) {
      this.#onUse();
      const restoring = typeof message.id === 'string' && message.id.startsWith(RESTORE_ID_PREFIX);
      if (RECORDED.has(message.method) && !restoring) {
        this.#pending ??= new Map();
        this.#pending.set(message.id, {
          method: message.method,
          params: ((message as { params?: Record<string, unknown> }).params ?? {}) as Record<string, unknown>,
        });
      }
    }
    this.onmessage?.(message, extra);
  }

  override async send(message: JSONRPCMessage, options?: TransportSendOptions): Promise<void> {
    if (isResponse(message) && this.#pending) {
      const id = (message as { id: RequestId }).id;
      const request = this.#pending.get(id);
      if (request) {
        this.#pending.delete(id);
        if (this.#pending.size === 0) this.#pending = undefined;
        if ('result' in message) this.#apply(request.method, request.params);
      }
    }
    return this.inner.send(message, options);
  }

  #apply(method: string, params: Record<string, unknown>): void {
    const record = this.record;
    if (method === 'logging/setLevel') {
      if (typeof params.level !== 'string') return;
      record.logLevel = params.level;
    } else {
      const uri = params.uri;
      if (typeof uri !== 'string') return;
      const subscribed = record.subscriptions.includes(uri);
      if (method === 'resources/subscribe' && !subscribed) record.subscriptions.push(uri);
      else if (method === 'resources/unsubscribe' && subscribed)
        record.subscriptions.splice(record.subscriptions.indexOf(uri), 1);
      else return;
    }
    this.#onChange(record);
  }
}
