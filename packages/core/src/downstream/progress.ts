import type { ProgressUpdate } from '../context.js';

/**
 * Where a request's progress goes: a `notifications/progress` related to the request, when the client
 * asked for progress with a token (undefined otherwise, so nothing upstream reports it in vain).
 */
export function progressSender(
  progressToken: unknown,
  notifyRelated: (method: string, params: Record<string, unknown>) => Promise<void>,
): ((update: ProgressUpdate) => void) | undefined {
  if (progressToken === undefined) return undefined;
  return (update) => {
    void notifyRelated('notifications/progress', { ...update, progressToken }).catch(() => {});
  };
}
