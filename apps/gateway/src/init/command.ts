import { writeFile } from 'node:fs/promises';
import { resolve } from 'node:path';
import { STARTER_CONFIG } from './starter.js';

/**
 * `switchyard init`: writes the commented starter config to `out` (default `./switchyard.yaml`), never
 * over an existing file. Resolves to the exit code: 0 written, 1 the file exists or cannot be written.
 */
export async function runInit(
  out: string | undefined,
  stdout: (text: string) => void,
  stderr: (text: string) => void,
  cwd: string = process.cwd(),
): Promise<number> {
  const file = resolve(cwd, out ?? 'switchyard.yaml');
  try {
    await writeFile(file, STARTER_CONFIG, { flag: 'wx' });
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    stderr(
      code === 'EEXIST'
        ? `switchyard init: ${file} exists; it was left as it is (remove it, or pick another file with --out)\n`
        : `switchyard init: cannot write ${file}: ${(error as Error).message}\n`,
    );
    return 1;
  }
  stdout(
    `wrote ${file}\nCheck it:  switchyard check --config ${file}\nRun it:    switchyard --config ${file}\n`,
  );
  return 0;
}
