import { existsSync } from 'node:fs';
import * as nodeModule from 'node:module';
import { fileURLToPath } from 'node:url';

let shared = false;

/**
 * Lets a plugin loaded by path import `@switchyard/core` without an install of its own: where the import
 * does not resolve from the plugin's folder (a gateway run with `npx`, a plugin kept outside any project),
 * it gets the gateway's own copy (`plugin-core-hook.ts`), which also keeps `instanceof GatewayError` true
 * for the errors it makes. A plugin that has its own copy keeps it. ES modules only, and from Node 20.6
 * (`module.register`); older Nodes resolve as before. Registered once, before the first plugin import.
 */
export function shareCoreWithPlugins(): void {
  if (shared) return;
  shared = true;
  const register = (nodeModule as { register?: typeof nodeModule.register }).register;
  // Run from its TypeScript source (the unit tests), the hook has no module Node's loader could run.
  const hook = new URL('./plugin-core-hook.js', import.meta.url);
  if (typeof register !== 'function' || !existsSync(fileURLToPath(hook))) return;
  register(hook, { data: { gateway: import.meta.url } });
}
