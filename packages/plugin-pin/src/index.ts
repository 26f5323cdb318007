import { isAbsolute, resolve } from 'node:path';
import { definePlugin } from '@switchyard/core';
import { pinOptionsSchema } from './options.js';
import { PACKAGE } from './package-info.js';
import { Pinning } from './pinning.js';

export type { QuarantinedStatus } from './admin.js';
export type { FieldDiff } from './diff.js';
export { PinReasons } from './errors.js';
export type { PinMode, PinOptions } from './options.js';

/**
 * Tool pinning (DESIGN §8): each upstream tool's and prompt's definition is pinned by a SHA-256 of its
 * canonical JSON in a lock file. Under `enforce`, one that is new or differs from its pin is
 * quarantined (left out of lists, a call refused with `-32012 tool_not_approved` before the upstream)
 * until an admin approves it (`POST /admin/pins/approve`); `warn` lists and forwards it, and logs.
 * Without a lock file, the first definitions seen are pinned and written (trust on first use).
 *
 * @example
 * // switchyard.json
 * "plugins": [["@switchyard/plugin-pin", { "lockFile": "./switchyard.lock.json", "mode": "enforce" }]]
 */
export default definePlugin({
  name: PACKAGE.name,
  version: PACKAGE.version,
  // Released in lockstep with @switchyard/core; the contract suite checks them together.
  core: '>=0.1.0 <1.0.0',
  options: pinOptionsSchema,
  async setup(resolved, ctx) {
    const file = isAbsolute(resolved.lockFile) ? resolved.lockFile : resolve(ctx.baseDir, resolved.lockFile);
    const pinning = await Pinning.open(file, resolved.mode, ctx.logger, ctx.gateway, {
      events: ctx.events,
      store: ctx.store,
    });
    return {
      request: pinning.request,
      upstreamCall: pinning.upstreamCall,
      close: () => pinning.close(),
      admin: {
        status: { key: 'pins', read: () => pinning.status() },
        routes: [{ method: 'POST', path: 'pins/approve', handle: pinning.approve }],
      },
    };
  },
});
