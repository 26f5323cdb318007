import { mkdir, readFile, writeFile } from 'node:fs/promises';
import { dirname, isAbsolute, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import type { Cleanup } from '@switchyard/testkit';
import { tempDir } from './harness.js';

/** A config of the repository's `examples/` folder, by file name. */
export const exampleFile = (name: string) =>
  fileURLToPath(new URL(`../../../../examples/${name}`, import.meta.url));

interface ExampleConfig {
  listen: { http: { port: number }; admin: { port: number } };
  mcpServers: Record<string, { command: string; args: string[] }>;
}

/**
 * A bundled example config, copied to a temp folder as `pnpm start` would run it, except: ephemeral
 * ports (port 0), script paths made absolute, and the ticket queue's status refreshed every 200 ms.
 */
export async function exampleCopy(
  cleanup: Cleanup,
  name = 'switchyard.json',
): Promise<{ file: string; dir: string }> {
  const example = exampleFile(name);
  const config = JSON.parse(await readFile(example, 'utf8')) as ExampleConfig;
  config.listen.http.port = 0;
  config.listen.admin.port = 0;
  for (const server of Object.values(config.mcpServers)) {
    server.args = server.args.map((arg) =>
      arg.endsWith('.js') && !isAbsolute(arg) ? resolve(dirname(example), arg) : arg,
    );
    const tick = server.args.indexOf('--tick-ms');
    if (tick >= 0) server.args[tick + 1] = '200';
  }
  const dir = await tempDir(cleanup);
  await mkdir(join(dir, '.switchyard')); // the audit file's folder (in the repo it is committed)
  const file = join(dir, 'switchyard.json');
  await writeFile(file, JSON.stringify(config, null, 2));
  return { file, dir };
}
