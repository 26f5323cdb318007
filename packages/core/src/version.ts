import { createRequire } from 'node:module';

const manifest = createRequire(import.meta.url)('../package.json') as { version: string };

/**
 * The version of @switchyard/core (checked against plugins' `core` ranges), read from its own
 * package.json (one level above both `src/` and `dist/`), so a release bumps it with the package.
 */
export const CORE_VERSION: string = manifest.version;
