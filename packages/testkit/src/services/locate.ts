import { accessSync, constants } from 'node:fs';
import { delimiter, join } from 'node:path';

/** The path of `command` on PATH (or in /usr/sbin, where Debian puts daemons), or undefined when absent. */
export function locate(command: string): string | undefined {
  const dirs = [...(process.env.PATH ?? '').split(delimiter), '/usr/sbin', '/usr/bin', '/usr/local/bin'];
  for (const dir of dirs) {
    if (!dir) continue;
    const candidate = join(dir, command);
    try {
      accessSync(candidate, constants.X_OK);
      return candidate;
    } catch {}
  }
  return undefined;
}
