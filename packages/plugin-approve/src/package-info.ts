import { createRequire } from 'node:module';

const manifest = createRequire(import.meta.url)('../package.json') as { name: string; version: string };

/**
 * The plugin's name and version, read from its own package.json (one level above both `src/` and
 * `dist/`), so what the gateway reports is exactly what is installed.
 */
export const PACKAGE = { name: manifest.name, version: manifest.version } as const;
