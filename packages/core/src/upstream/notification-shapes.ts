import { isRecord, isRequestId } from '../payload.js';

const LOG_LEVELS = new Set(['debug', 'info', 'notice', 'warning', 'error', 'critical', 'alert', 'emergency']);

/**
 * What the gateway reads of each notification it relays, checked before anything reads it: a field the
 * gateway routes on (a URI, a progress token) that is missing or of the wrong type makes the notification
 * useless and, passed on, wrong. Returns what is wrong, or undefined when it is usable. Unknown methods
 * pass (the SDK ignores those it has no handler for).
 */
export function checkNotification(method: string, params: unknown): string | undefined {
  if (params !== undefined && !isRecord(params)) return 'params is not an object';
  const p = params ?? {};
  switch (method) {
    case 'notifications/resources/updated':
      return typeof p.uri === 'string' ? undefined : 'params.uri is not a string';
    case 'notifications/progress':
      if (!isRequestId(p.progressToken)) return 'params.progressToken is not a string or number';
      return typeof p.progress === 'number' ? undefined : 'params.progress is not a number';
    case 'notifications/message':
      return LOG_LEVELS.has(p.level as string) ? undefined : 'params.level is not a log level';
    case 'notifications/cancelled':
      return p.requestId === undefined || isRequestId(p.requestId)
        ? undefined
        : 'params.requestId is not an id';
    default:
      return undefined;
  }
}
