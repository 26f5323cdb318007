/** The catalogs the bench measures: the real servers' tools first, then the generated services. */

import { SERVICES } from './data.js';
import { seeded, serviceTools } from './generate.js';
import type { CatalogTool } from './model.js';

export { SERVICES };

/** The teams of the further instances of each service in catalogs past one instance (`tracker-payments`). */
const TEAMS = ['payments', 'search', 'growth', 'platform', 'mobile', 'data', 'identity', 'infra', 'retail'];

export const SEED = 0x5eed_2027;

/**
 * `instances` copies of every generated service: the first named as the service (`tracker`), the
 * others after a team (`tracker-payments`), each with its own seeded phrasings.
 */
export function generatedTools(instances = 1, seed = SEED): CatalogTool[] {
  if (instances > TEAMS.length + 1) throw new Error(`at most ${TEAMS.length + 1} instances`);
  const random = seeded(seed);
  const tools: CatalogTool[] = [];
  for (let instance = 0; instance < instances; instance++) {
    for (const service of SERVICES) {
      const server = instance === 0 ? service.name : `${service.name}-${TEAMS[instance - 1]}`;
      tools.push(...serviceTools(service, server, random));
    }
  }
  return tools;
}

/** The first `size` tools of the real tools followed by enough generated instances. */
export function catalogOf(real: readonly CatalogTool[], size: number): CatalogTool[] {
  const perInstance = generatedTools(1).length;
  const instances = Math.max(1, Math.ceil((size - real.length) / perInstance));
  const all = [...real, ...generatedTools(instances)];
  if (all.length < size) throw new Error(`the generator makes ${all.length} tools, fewer than ${size}`);
  return all.slice(0, size);
}
