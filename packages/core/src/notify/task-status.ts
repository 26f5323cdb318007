import type { Logger } from '../logger.js';
import type { TaskOwners } from '../routing/task-owners.js';
import type { UpstreamConnection } from '../upstream/connection.js';
import type { SessionRegistry } from './sessions.js';

/** The method of the 2025-11-25 task status notification. */
export const TASK_STATUS_METHOD = 'notifications/tasks/status';

/**
 * Relays an upstream's `notifications/tasks/status` (2025-11-25) to the sessions of the caller that
 * created the task, with the task id it knows; a task this gateway did not hand out (or another
 * instance did) is heard by nobody, so a status never reaches another identity.
 */
export function taskStatusRelay(owners: TaskOwners, sessions: SessionRegistry, logger: Logger) {
  return (upstream: UpstreamConnection, params: Record<string, unknown>): void => {
    const owned = owners.owner(upstream.name, params.taskId);
    if (owned === undefined || owned.binding.clientEra !== 'legacy') {
      logger.debug('task status for a task no caller of this instance holds', { upstream: upstream.name });
      return;
    }
    const routed = { ...params, taskId: owned.exposedId };
    for (const id of sessions.ofIdentity(owned.binding.identity))
      sessions.send(id, TASK_STATUS_METHOD, routed);
  };
}
