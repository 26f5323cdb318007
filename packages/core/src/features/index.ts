import type { NamedCatalog } from '../routing/named-catalog.js';
import type { TaskIdSeal } from '../routing/task-ids.js';
import type { TaskOwners } from '../routing/task-owners.js';
import type { UpstreamPool } from '../upstream/pool.js';
import { completionFeature } from './completion.js';
import { Dispatcher } from './dispatch.js';
import { promptsFeature } from './prompts.js';
import { type ResourcesDeps, resourcesFeature } from './resources.js';
import { skillsFeature } from './skills.js';
import { taskAwareToolCaller } from './task-calls.js';
import type { TaskOnlyTools } from './task-only-tools.js';
import { tasksFeature } from './tasks.js';
import { type ToolSearchDeps, withToolSearch } from './tool-search/tool-search.js';
import { toolsFeature } from './tools.js';

export interface GatewayFeaturesDeps extends ResourcesDeps {
  pool: UpstreamPool;
  tools: NamedCatalog;
  prompts: NamedCatalog;
  /** Seals the task ids handed out (bound to upstream, caller and tool). */
  taskIds: TaskIdSeal;
  /** The tasks handed out, by whose they are. */
  taskOwners: TaskOwners;
  /** The tools 2025-11-25 upstreams run only as tasks. */
  taskOnly: TaskOnlyTools;
  /** Tool search (DESIGN §13): the indexed catalog and what each caller may use. */
  search: ToolSearchDeps;
}

/**
 * Every feature area the gateway serves (resources, tools, prompts, completion, skills, tasks) behind one
 * dispatcher; `completion` is also returned because plugins ask it where a completion ref routes.
 */
export function gatewayFeatures(deps: GatewayFeaturesDeps): {
  dispatcher: Dispatcher;
  completion: ReturnType<typeof completionFeature>;
} {
  const { pool, router, listing, tools, prompts, call, taskIds: seal, taskOwners: owners, taskOnly } = deps;
  const completion = completionFeature({ pool, router, prompts });
  const dispatcher = new Dispatcher([
    resourcesFeature(deps),
    withToolSearch(
      toolsFeature({
        pool,
        catalog: tools,
        listing,
        call: taskAwareToolCaller({ seal, owners, taskOnly }, call),
      }),
      deps.search,
    ),
    promptsFeature({ pool, catalog: prompts, listing, call }),
    completion,
    skillsFeature({ pool, router, listing, call }),
    tasksFeature({ pool, listing, call, seal, owners }),
  ]);
  return { dispatcher, completion };
}
