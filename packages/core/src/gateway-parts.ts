import type { Gateway } from './gateway.js';
import type { RequestStateSeal } from './interaction/request-state.js';
import type { TaskIdSeal } from './routing/task-ids.js';

/**
 * The parts of a Gateway that the core's replica piece (`@switchyard/core/listener`: `GatewayReplica`)
 * works on and the Gateway does not offer as methods: a plugin or an embedder has no use for
 * them. The Gateway registers them as it is built; this module is not exported from the package.
 */
export interface GatewayParts {
  /** Seals the `requestState` of a multi round-trip call. */
  readonly requestStates: RequestStateSeal;
  /** Seals the task ids handed out. */
  readonly taskIds: TaskIdSeal;
}

const registered = new WeakMap<Gateway, GatewayParts>();

/** Called once, by the Gateway's constructor. */
export function registerParts(gateway: Gateway, parts: GatewayParts): void {
  registered.set(gateway, parts);
}

export function partsOf(gateway: Gateway): GatewayParts {
  const parts = registered.get(gateway);
  if (!parts) throw new TypeError('expected a Gateway');
  return parts;
}
