import type { Logger } from '../logger.js';
import type { PluginHooks } from './define.js';

/**
 * A governance event: something a plugin decided outside a request (a tool quarantined, a pin
 * approved by an admin), handed to the other plugins' `event` hooks so that one of them (the audit
 * log) can record it.
 */
export interface PluginEvent {
  /** What happened, `<area>.<what>`: e.g. `pin.quarantined`, `pin.approved`. */
  readonly type: string;
  /** When it was emitted (ISO 8601, UTC), set by the host. */
  readonly time: string;
  /** The plugin that emitted it (set by the host). */
  readonly plugin: string;
  /** Who caused it, when someone did: an admin's identity, `cli`. */
  readonly identity?: string;
  /** The event's own facts (JSON values), e.g. `{ name, server, kind }`. */
  readonly detail: Readonly<Record<string, unknown>>;
}

/** What a plugin passes to `events.emit`: the host adds `time` and `plugin`. */
export interface PluginEventInput {
  type: string;
  identity?: string;
  detail?: Record<string, unknown>;
}

/** A plugin's way to emit events (its setup context's `events`). */
export interface PluginEvents {
  /**
   * Hands the event to the `event` hook of every other plugin in effect, in load order. Resolves once
   * the hooks (and the promises they returned) have settled; never rejects: a failing hook is logged.
   *
   * @example
   * await ctx.events?.emit({ type: 'pin.approved', identity: 'alice', detail: { name: 'docs__search' } });
   */
  emit(event: PluginEventInput): Promise<void>;
}

/** A plugin as the event bus sees it. */
export interface EventRecipient {
  readonly name: string;
  readonly hooks: Pick<PluginHooks, 'event'>;
}

/**
 * The events of one set of plugins. A reload that keeps a plugin instance points the bus it was set up
 * with at the new set (`retarget`), so its events reach the plugins in effect, not retired ones.
 */
export class PluginEventBus {
  #recipients: () => readonly EventRecipient[];
  readonly #log: Logger;

  constructor(recipients: () => readonly EventRecipient[], log: Logger) {
    this.#recipients = recipients;
    this.#log = log;
  }

  retarget(recipients: () => readonly EventRecipient[]): void {
    this.#recipients = recipients;
  }

  /** The `events` of one plugin's setup context. */
  emitter(plugin: string): PluginEvents {
    return { emit: (input) => this.#emit(plugin, input) };
  }

  #emit(plugin: string, input: PluginEventInput): Promise<void> {
    if (typeof input?.type !== 'string' || input.type.length === 0) {
      return Promise.reject(new TypeError(`plugin ${plugin} emitted an event without a type`));
    }
    const event: PluginEvent = Object.freeze({
      type: input.type,
      time: new Date().toISOString(),
      plugin,
      ...(input.identity === undefined ? {} : { identity: input.identity }),
      detail: Object.freeze({ ...(input.detail ?? {}) }),
    });
    return deliverEvent(
      this.#recipients().filter((p) => p.name !== plugin),
      event,
      this.#log,
    );
  }
}

/** Calls each plugin's `event` hook in order; resolves once every returned promise settled. */
export async function deliverEvent(
  plugins: readonly EventRecipient[],
  event: PluginEvent,
  log: Logger,
): Promise<void> {
  const pending: Promise<unknown>[] = [];
  for (const p of plugins) {
    const failed = (error: unknown) =>
      log.warn('plugin event hook failed', { plugin: p.name, event: event.type, error: String(error) });
    try {
      const held = p.hooks.event?.(event);
      if (typeof (held as PromiseLike<unknown> | undefined)?.then === 'function') {
        pending.push(Promise.resolve(held).catch(failed));
      }
    } catch (error) {
      failed(error);
    }
  }
  await Promise.all(pending);
}
