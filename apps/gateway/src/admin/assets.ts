import { readFile } from 'node:fs/promises';
import { createRequire } from 'node:module';
import { fileURLToPath } from 'node:url';

/** A static file the admin listener serves, read once at start. */
export interface Asset {
  type: string;
  body: Buffer;
}

const JS = 'text/javascript; charset=utf-8';
const CSS = 'text/css; charset=utf-8';

/**
 * The status page's files: the page itself (`page/`, next to this module: the build copies it into
 * dist/admin/page) and uPlot's browser build, served from node_modules as published (no bundling).
 */
export async function loadAssets(): Promise<Map<string, Asset>> {
  const page = (name: string) => fileURLToPath(new URL(`./page/${name}`, import.meta.url));
  const require = createRequire(import.meta.url);
  const files: [string, string, string][] = [
    ['/', page('index.html'), 'text/html; charset=utf-8'],
    ['/status.js', page('status.js'), JS],
    ['/status.css', page('status.css'), CSS],
    ['/uplot/uPlot.iife.min.js', require.resolve('uplot/dist/uPlot.iife.min.js'), JS],
    ['/uplot/uPlot.min.css', require.resolve('uplot/dist/uPlot.min.css'), CSS],
  ];
  const assets = new Map<string, Asset>();
  for (const [path, file, type] of files) assets.set(path, { type, body: await readFile(file) });
  return assets;
}
