import { type FSWatcher, realpathSync, watch } from 'node:fs';
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
 * replace the inode a file watch would follow. A config reached through symlinks is followed too: the
 * directory of the file it resolves to is watched as well, and a change of what it resolves to (a
 * Kubernetes ConfigMap mount swaps its `..data` link) is a change of the file.
 */
export function startReloadTriggers(
  file: string,
  reload: (trigger: string) => unknown,
  logger: Logger,
): ReloadTriggers {
  let timer: NodeJS.Timeout | undefined;
  const changed = () => {
    clearTimeout(timer);
    timer = setTimeout(() => reload('file change'), DEBOUNCE_MS);
  };
  const watchers = new Map<string, FSWatcher>();
  let target = resolved(file);
  const watchDir = (dir: string) => {
    try {
      const watcher = watch(dir, (_event, name) => onEvent(dir, name));
      watcher.on('error', (error) =>
        logger.warn('config file watch failed; SIGHUP still reloads', { dir, error: String(error) }),
      );
      watchers.set(dir, watcher);
    } catch (error) {
      logger.warn('cannot watch the config file; SIGHUP still reloads', { file, dir, error: String(error) });
    }
  };
  /** Watches the file's directory and its target's, and no other. */
  const follow = () => {
    const wanted = new Set([dirname(file), ...(target === undefined ? [] : [dirname(target)])]);
    for (const [dir, watcher] of watchers) {
      if (wanted.has(dir)) continue;
      watcher.close();
      watchers.delete(dir);
    }
    for (const dir of wanted) if (!watchers.has(dir)) watchDir(dir);
  };
  const onEvent = (dir: string, name: string | null) => {
    const now = resolved(file);
    const moved = now !== target;
    target = now;
    if (moved) follow();
    const named = (path: string | undefined) =>
      path !== undefined && dir === dirname(path) && name === basename(path);
    if (moved || name === null || named(file) || named(target)) changed();
  };
  follow();
  const onHangup = () => reload('SIGHUP');
  process.on('SIGHUP', onHangup);
  return {
    close() {
      clearTimeout(timer);
      for (const watcher of watchers.values()) watcher.close();
      watchers.clear();
      process.off('SIGHUP', onHangup);
    },
  };
}

/** The file `file` resolves to through any symlinks; undefined while there is none. */
function resolved(file: string): string | undefined {
  try {
    return realpathSync(file);
  } catch {
    return undefined;
  }
}
