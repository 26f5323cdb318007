import { fileURLToPath } from 'node:url';
import { PluginError } from '@switchyard/core';
import { describe, expect, it } from 'vitest';
import type { GatewayConfig } from '../src/config/load.js';
import { pluginEntries } from '../src/plugins.js';

// Loading plugin modules: one whose module never finishes loading fails the start, `check` or a reload,
// naming it (found from outside: the gateway and `check` exited 0 saying nothing, or hung past a SIGTERM,
// and a reload adding it blocked every later reload).

describe('pluginEntries', () => {
  it('fails a plugin whose module never finishes loading, naming its entry', async () => {
    const config = {
      baseDir: fileURLToPath(new URL('./fixtures/', import.meta.url)),
      plugins: [{ specifier: './never-loads-plugin.js', options: {} }],
    } as unknown as GatewayConfig;
    const loading = pluginEntries(config, undefined, 100);
    await expect(loading).rejects.toBeInstanceOf(PluginError);
    await expect(loading).rejects.toMatchObject({ code: 'PLUGIN_INVALID' });
    await expect(loading).rejects.toThrow(
      /Cannot load plugin "\.\/never-loads-plugin\.js" \(\$\.plugins\[0\].*its module did not finish loading within 100 ms/,
    );
  });
});
