import { type FSWatcher, type Stats, stat, watch } from 'node:fs';
import { basename, dirname } from 'node:path';

/** How often the polling fallback looks at the file (a change applies within 2 s: poll, then read). */
export const POLL_MS = 1000;
const DEBOUNCE_MS = 50;

/**
 * Calls `onChange` (debounced) whenever `file` may have changed: `fs.watch` on its folder (a file
 * replaced by rename, as every lock file writer does, is a new inode, so watching the file itself
 * would go deaf after the first rewrite), and a stat poll every second as the fallback for the file
 * systems where `fs.watch` misses events or fails (network mounts, some containers). Returns a stop.
 */
export function watchFile(file: string, onChange: () => void): () => void {
  let timer: NodeJS.Timeout | undefined;
  const fire = () => {
    if (timer !== undefined) return;
    timer = setTimeout(() => {
      timer = undefined;
      onChange();
    }, DEBOUNCE_MS);
    timer.unref();
  };
  let watcher: FSWatcher | undefined;
  try {
    const name = basename(file);
    watcher = watch(dirname(file), { persistent: false }, (_event, changed) => {
      if (changed === null || changed === name) fire();
    });
    watcher.on('error', () => {
      watcher?.close();
      watcher = undefined;
    });
  } catch {
    watcher = undefined; // the folder is missing or cannot be watched: polling alone
  }
  let last = '';
  const signature = (s: Stats | undefined) => (s ? `${s.ino}:${s.size}:${s.mtimeMs}:${s.ctimeMs}` : 'none');
  stat(file, (_error, s) => {
    last = signature(s);
  });
  const poll = setInterval(() => {
    stat(file, (_error, s) => {
      const now = signature(s);
      if (now !== last) {
        last = now;
        fire();
      }
    });
  }, POLL_MS);
  poll.unref();
  return () => {
    clearInterval(poll);
    if (timer !== undefined) clearTimeout(timer);
    watcher?.close();
  };
}
