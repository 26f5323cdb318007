import type { NamedCatalog } from '../routing/named-catalog.js';
import type { UpstreamPool } from '../upstream/pool.js';
import { completionFeature } from './completion.js';
import { Dispatcher } from './dispatch.js';
import { promptsFeature } from './prompts.js';
import { type ResourcesDeps, resourcesFeature } from './resources.js';
import { skillsFeature } from './skills.js';
import { toolsFeature } from './tools.js';

export interface GatewayFeaturesDeps extends ResourcesDeps {
  pool: UpstreamPool;
  tools: NamedCatalog;
  prompts: NamedCatalog;
}

/**
 * Every feature area the gateway serves (resources, tools, prompts, completion, skills) behind one
 * dispatcher; `completion` is also returned because plugins ask it where a completion ref routes.
 */
export function gatewayFeatures(deps: GatewayFeaturesDeps): {
  dispatcher: Dispatcher;
  completion: ReturnType<typeof completionFeature>;
} {
  const { pool, router, listing, tools, prompts, call } = deps;
  const completion = completionFeature({ pool, router, prompts });
  const dispatcher = new Dispatcher([
    resourcesFeature(deps),
    toolsFeature({ pool, catalog: tools, listing, call }),
    promptsFeature({ pool, catalog: prompts, listing, call }),
    completion,
    skillsFeature({ pool, router, listing, call }),
  ]);
  return { dispatcher, completion };
}
