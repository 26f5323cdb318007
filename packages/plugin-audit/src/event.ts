import type { PluginEvent } from '@switchyard/core';
import { clip, MAX_NAME_CHARS } from './record.js';
import { encodedSize } from './size.js';

/**
 * One line of the audit log for a governance event another plugin emitted outside a request (the pin
 * plugin's `pin.quarantined`, `pin.approved`, `pin.changed-warned`). Told apart from a request's record
 * by its `event` field (a request's record has `method` instead).
 */
export interface AuditEventRecord {
  /** When the event was emitted (ISO 8601, UTC). */
  time: string;
  /** The event's type, e.g. `pin.approved`. */
  event: string;
  /** The plugin that emitted it. */
  plugin: string;
  /** Who caused it, when someone did (an admin's identity, `cli`, `lock-file`). */
  identity?: string;
  /** The event's own facts, as the plugin gave them (at most 16 KiB of JSON, else a short note). */
  detail: Record<string, unknown> | string;
}

/** The fields of an event line (the names `redact` paths may also start with). */
export const EVENT_FIELDS = [
  'time',
  'event',
  'plugin',
  'identity',
  'detail',
] as const satisfies readonly (keyof AuditEventRecord)[];

/** Event fields that hold objects a `redact` path may reach into (`detail.<name>`). */
export const NESTED_EVENT_FIELDS = ['detail'] as const satisfies readonly (keyof AuditEventRecord)[];

/** Largest `detail` recorded, in encoded bytes; a larger one is recorded as a short note. */
export const MAX_DETAIL_BYTES = 16 * 1024;

/** Builds the line of one event, its fields in the documented order. */
export function buildEventRecord(event: PluginEvent): AuditEventRecord {
  const record: Partial<AuditEventRecord> = {
    time: event.time,
    event: clip(event.type, MAX_NAME_CHARS),
    plugin: clip(event.plugin, MAX_NAME_CHARS),
  };
  if (event.identity !== undefined) record.identity = clip(event.identity, MAX_NAME_CHARS);
  const bytes = encodedSize(event.detail);
  record.detail =
    bytes !== undefined && bytes <= MAX_DETAIL_BYTES
      ? { ...event.detail }
      : `[OMITTED: ${bytes === undefined ? 'not JSON' : `${bytes} bytes`}, over ${MAX_DETAIL_BYTES}]`;
  return record as AuditEventRecord;
}
