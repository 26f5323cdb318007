import type { Logger } from '@switchyard/core';
import { type ReloadTriggers, startReloadTriggers } from './watch.js';

/** Reload triggers armed before the gateway can reload: what they catch meanwhile waits for it. */
export interface EarlyReloads extends ReloadTriggers {
  /** From now on triggers reload at once; one that came while the gateway started reloads now. */
  attach(reload: (trigger: string) => unknown): void;
}

/**
 * Arms SIGHUP and the config file watch as soon as the config is read, before the upstreams connect
 * (which can take their `timeoutMs`): a SIGHUP then never ends a starting gateway (Node's default
 * action), and an edit saved while it starts is applied once it serves instead of being lost. Until
 * `attach`, triggers are remembered, not run: a reload needs the listeners the start opens.
 */
export function armReloads(file: string, logger: Logger): EarlyReloads {
  let reload: ((trigger: string) => unknown) | undefined;
  let missed: string | undefined;
  const triggers = startReloadTriggers(
    file,
    (trigger) => {
      if (reload) return reload(trigger);
      missed = trigger;
      return undefined;
    },
    logger,
  );
  return {
    attach(next) {
      reload = next;
      if (missed === undefined) return;
      logger.info('reloading: the config changed or SIGHUP came while the gateway started', {
        trigger: missed,
      });
      next(`${missed} during start`);
      missed = undefined;
    },
    close: () => triggers.close(),
  };
}
