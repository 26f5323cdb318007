import type { Gateway } from '../gateway.js';
import { type GatewayParts, partsOf } from '../gateway-parts.js';

/**
 * A gateway as one of several replicas sharing `cursorSecret` (DESIGN §12): what the listener that routes
 * requests between replicas needs of it. The `requestState`s and task ids the gateway hands out can name
 * the replica that holds what they continue, and a request that continues one can be sent there.
 *
 * @example
 * const replica = new GatewayReplica(gateway);
 * replica.advertise('http://10.0.0.7:7480');
 * replica.holderOf('tasks/get', { taskId }); // the advertised URL of the replica that created the task
 */
export class GatewayReplica {
  readonly #parts: GatewayParts;

  constructor(gateway: Gateway) {
    this.#parts = partsOf(gateway);
  }

  /**
   * Names this replica (its advertised URL) in the `requestState`s and task ids the gateway hands out from
   * now on, so another replica that receives the retry, or a request about the task, can send it here: the
   * call suspended here, the upstream state minted on this replica's connection, the task its upstream holds.
   */
  advertise(url: string): void {
    this.#parts.requestStates.instance = url;
    this.#parts.taskIds.instance = url;
  }

  /**
   * The replica that holds what a request continues, when another replica sharing `cursorSecret` handed
   * it out: the `requestState` of a multi round-trip retry, else the task id of a `tasks/*` request.
   */
  holderOf(method: string, params: Record<string, unknown> | undefined): string | undefined {
    const state = params?.requestState;
    if (typeof state === 'string') return this.#parts.requestStates.holder(state);
    if (method.startsWith('tasks/') && params?.taskId !== undefined)
      return this.#parts.taskIds.holder(params.taskId);
    return undefined;
  }
}
