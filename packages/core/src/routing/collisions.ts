import type { Logger } from '../logger.js';

const NAMED_COLLISIONS = 5;

/** Logs a few named collisions, then a count: a big overlap must not flood the log on every refresh. */
export function reportCollisions(log: Logger, message: string, collisions: Record<string, string>[]): void {
  for (const collision of collisions.slice(0, NAMED_COLLISIONS)) log.warn(message, collision);
  if (collisions.length > NAMED_COLLISIONS) {
    log.warn(`${collisions.length - NAMED_COLLISIONS} more collisions of this kind`, {
      total: collisions.length,
    });
  }
}
