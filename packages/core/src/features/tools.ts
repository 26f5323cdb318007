import { eraOf } from '../downstream/era.js';
import { exposeToolResult } from './content.js';
import type { Feature } from './feature.js';
import { type NamedFeatureDeps, namedFeature } from './named.js';
import { toolForLegacyClient, toolForModernClient } from './tasks-capability.js';

/**
 * Tools (DESIGN §4b): a merged `tools/list` of `<server>__<tool>` names, and `tools/call` routed by the
 * name index to the upstream's own tool. Schemas, annotations, `structuredContent`, `isError` and
 * `_meta` pass through untouched; only resource URIs in the content are exposed. Progress keeps a call
 * alive, and what the upstream asks the client on the way is bridged (see interaction/). A 2025-11-25
 * client sees a tool's `execution.taskSupport` only where its upstream runs tool calls as tasks; a
 * 2026-07-28 client never sees a 2025-11-25 upstream's `required` (the gateway makes those calls tasks).
 */
export function toolsFeature(deps: NamedFeatureDeps): Feature {
  return namedFeature(deps, {
    noun: 'tool',
    use: 'tools/call',
    cursorKind: 'x',
    expose: exposeToolResult,
    listed: (ctx, upstream, tool) =>
      eraOf(ctx) === 'legacy' ? toolForLegacyClient(upstream, tool) : toolForModernClient(upstream, tool),
  });
}
