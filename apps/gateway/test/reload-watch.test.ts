import { mkdir, mkdtemp, rename, rm, symlink, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { silentLogger } from '@switchyard/core';
import { eventually } from '@switchyard/testkit';
import { afterEach, expect, it } from 'vitest';
import { startReloadTriggers } from '../src/reload/watch.js';

const cleanups: (() => Promise<unknown> | void)[] = [];
afterEach(async () => {
  for (const run of cleanups.splice(0).reverse()) await run();
});

it('follows a config reached through symlinks: a ConfigMap-style swap, and the target edited in place', async () => {
  // Found from outside: a config mounted as Kubernetes mounts a ConfigMap was never reloaded.
  const dir = await mkdtemp(join(tmpdir(), 'switchyard-watch-'));
  cleanups.push(() => rm(dir, { recursive: true, force: true }));
  for (const version of ['..v1', '..v2']) {
    await mkdir(join(dir, version));
    await writeFile(join(dir, version, 'switchyard.json'), `{"version":"${version}"}`);
  }
  await symlink('..v1', join(dir, '..data'));
  await symlink('..data/switchyard.json', join(dir, 'switchyard.json'));
  const reloads: string[] = [];
  const triggers = startReloadTriggers(join(dir, 'switchyard.json'), (t) => reloads.push(t), silentLogger);
  cleanups.push(() => triggers.close());

  // kubelet: a new timestamped dir, a temporary link to it, renamed over `..data`.
  await symlink('..v2', join(dir, '..data_tmp'));
  await rename(join(dir, '..data_tmp'), join(dir, '..data'));
  await eventually(() => reloads.length === 1, 'a reload after the swap');

  // The file it now resolves to, written where it is (its own directory is watched now).
  await writeFile(join(dir, '..v2', 'switchyard.json'), '{"version":"..v2 edited"}');
  await eventually(() => reloads.length === 2, 'a reload after the target changed');
  expect(reloads).toEqual(['file change', 'file change']);
});
