import { SealedBox } from '../sealed-box.js';

/**
 * The longest task id handed out: the upstream's own id, the tool's names and the identity sealed, so an
 * upstream id of up to about 12 KB still makes one (a longer one fails its call, see task-calls.ts).
 */
export const MAX_TASK_ID_CHARS = 16_384;

/** What an exposed task id stands for. */
export interface TaskBinding {
  /** The upstream running the task. */
  upstream: string;
  /** The identity of the caller that created it: nobody else may use it. */
  identity: string;
  /** The era of the client that created it (its methods and shapes are that era's). */
  clientEra: 'legacy' | 'modern';
  /** The tool call it runs: the exposed name (access rules judge it) and the upstream's own name. */
  tool: { exposed: string; name: string };
  /** The upstream's own task id, or the gateway's key of a task it holds itself (`local`). */
  taskId: string;
  /**
   * A task the gateway holds itself: a 2025-11-25 client asked for a task and the 2026-07-28 upstream
   * answered at once (it decides whether to create one), so the gateway keeps the finished result.
   */
  local?: true;
}

interface Wire {
  v: 1;
  u: string;
  i: string;
  c: 'l' | 'm';
  t: string;
  n: string;
  x: string;
  l?: 1;
  /** The replica that created the task (its advertised URL), when replicas share a store. */
  r?: string;
}

/**
 * Seals the task ids the gateway hands out: each is the upstream, the creating caller, the tool and the
 * upstream's own task id, encrypted and authenticated (AES-256-GCM), so it routes without any lookup (any
 * replica that shares `cursorSecret` can serve it), cannot be forged or altered, and says nothing about
 * the upstream or the caller to whoever sees it. Opened for another identity it is unknown, exactly as a
 * made-up id. The key comes from `cursorSecret` when one is configured, else it is random per process.
 *
 * @example
 * const ids = new TaskIdSeal(secret);
 * const exposed = ids.seal({ upstream: 'jobs', identity: 'alice', clientEra: 'modern', tool, taskId: 't-1' });
 * ids.open(exposed, 'alice')?.taskId; // 't-1'
 * ids.open(exposed, 'bob'); // undefined
 */
export class TaskIdSeal {
  readonly #box: SealedBox;
  /** This replica (its advertised URL): named in the ids of tasks created here. */
  instance: string | undefined;

  constructor(secret: string | undefined) {
    this.#box = new SealedBox(secret, 'switchyard/task-id/v1', 'swt1.', MAX_TASK_ID_CHARS);
  }

  seal(binding: TaskBinding): string {
    const wire: Wire = {
      v: 1,
      u: binding.upstream,
      i: binding.identity,
      c: binding.clientEra === 'legacy' ? 'l' : 'm',
      t: binding.tool.exposed,
      n: binding.tool.name,
      x: binding.taskId,
    };
    if (binding.local) wire.l = 1;
    if (this.instance !== undefined) wire.r = this.instance;
    return this.#box.seal(wire);
  }

  /**
   * The replica that created the task `raw` names, when a replica sharing this key sealed it (its upstream
   * connection knows the task: a stdio server, or a session-bound one, exists per replica).
   */
  holder(raw: unknown): string | undefined {
    return (this.#box.open(raw) as Wire | undefined)?.r;
  }

  /** What `raw` stands for, when it is an id this gateway sealed for `identity`; else undefined. */
  open(raw: unknown, identity: string): TaskBinding | undefined {
    const wire = this.#box.open(raw) as Wire | undefined;
    if (wire?.v !== 1 || wire.i !== identity) return undefined;
    return {
      upstream: wire.u,
      identity: wire.i,
      clientEra: wire.c === 'l' ? 'legacy' : 'modern',
      tool: { exposed: wire.t, name: wire.n },
      taskId: wire.x,
      ...(wire.l === 1 ? { local: true as const } : {}),
    };
  }
}
