import { type FSWatcher, watch } from 'node:fs';
import { basename, dirname } from 'node:path';
import type { Logger } from '@switchyard/core';

/** Editors write in bursts (truncate, write, rename): changes this close together are one reload. */
const DEBOUNCE_MS = 150;

export interface ReloadTriggers {
  close(): void;
}

/**
 * Calls `reload` when the config file changes or the process gets SIGHUP. The file's directory is
 * watched, not the file: editors that save by writing a new file and renaming it over the old one
 * replace the inode a file watch would follow.
 */
export function startReloadTriggers(
  file: string,
  reload: (trigger: string) => unknown,
  logger: Logger,
): ReloadTriggers {
  const name = basename(file);
  let timer: NodeJS.Timeout | undefined;
  const changed = () => {
    clearTimeout(timer);
    timer = setTimeout(() => reload('file change'), DEBOUNCE_MS);
  };
  let watcher: FSWatcher | undefined;
  try {
    watcher = watch(dirname(file), (_event, changedName) => {
      if (changedName === null || changedName === name) changed();
    });
    watcher.on('error', (error) =>
      logger.warn('config file watch failed; SIGHUP still reloads', { error: String(error) }),
    );
  } catch (error) {
    logger.warn('cannot watch the config file; SIGHUP still reloads', { file, error: String(error) });
  }
  const onHangup = () => reload('SIGHUP');
  process.on('SIGHUP', onHangup);
  return {
    close() {
      clearTimeout(timer);
      watcher?.close();
      process.off('SIGHUP', onHangup);
    },
  };
}
