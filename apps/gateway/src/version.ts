import { createRequire } from 'node:module';

const manifest = createRequire(import.meta.url)('../package.json') as { version: string };

/** The version of the switchyard package, read from its package.json (one level above `src/` and `dist/`). */
export const SWITCHYARD_VERSION: string = manifest.version;
