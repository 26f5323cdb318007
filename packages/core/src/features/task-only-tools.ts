import { isRecord } from '../payload.js';

/**
 * The tools each upstream lists as runnable only as a task (`execution.taskSupport: "required"`, the
 * 2025-11-25 tool-level negotiation), by exposed name, from the gateway's own full listings. A 2026-07-28
 * client has no such negotiation (SEP-2663: the server decides per call), so the gateway runs these tools
 * as tasks on a 2025-11-25 upstream for it ({@link taskAwareToolCaller}).
 */
export class TaskOnlyTools {
  readonly #byUpstream = new Map<string, ReadonlySet<string>>();

  /** Follows one full listing of `upstream`'s tools (exposed names). */
  update(upstream: string, tools: readonly Record<string, unknown>[]): void {
    const required = new Set<string>();
    for (const tool of tools) {
      const execution = isRecord(tool.execution) ? tool.execution : undefined;
      if (execution?.taskSupport === 'required' && typeof tool.name === 'string') required.add(tool.name);
    }
    if (required.size > 0) this.#byUpstream.set(upstream, required);
    else this.#byUpstream.delete(upstream);
  }

  has(upstream: string, exposed: string): boolean {
    return this.#byUpstream.get(upstream)?.has(exposed) === true;
  }
}
