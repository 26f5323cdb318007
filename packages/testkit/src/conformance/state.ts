import { randomBytes } from 'node:crypto';
import {
  createRequestStateCodec,
  InMemoryServerEventBus,
  type McpServer,
  type RequestStateCodec,
} from '@modelcontextprotocol/server';
import type { SkillsExtension } from '@modelcontextprotocol/server/ext/skills';
import { loadFixtureSkills } from './skills.js';
import { TaskStore } from './task-store.js';

/** What a multi-round tool keeps in its signed `requestState` between rounds. */
export interface RoundState {
  /** The tool (or prompt) that minted the state, so one flow's state cannot drive another. */
  flow: string;
  /** 1-based round the state was minted in. */
  round: number;
  /** Answers gathered in earlier rounds. */
  answers?: Record<string, unknown>;
}

/**
 * The state every instance of one conformance fixture shares, whatever era or transport serves it:
 * the change-event bus the modern `subscriptions/listen` streams hang on, the long-lived instances
 * (2025 sessions, stdio connections) that get list-changed notifications pushed, per-session resource
 * subscriptions, the HMAC codec that signs multi-round `requestState`, and the tasks.
 */
export class FixtureState {
  /** Modern HTTP `subscriptions/listen` streams subscribe here. */
  readonly bus = new InMemoryServerEventBus();
  /**
   * Signs and verifies `requestState` (a per-process key: one fixture process serves every round of a
   * flow). Bound to the request method, so state minted by `prompts/get` cannot replay into `tools/call`.
   */
  readonly requestState: RequestStateCodec<RoundState> = createRequestStateCodec<RoundState>({
    key: randomBytes(32),
    bind: (ctx) => ctx.mcpReq.method,
  });
  /** The tasks (2025-11-25 utility, 2026-07-28 extension) every instance serves. */
  readonly tasks = new TaskStore();
  /** The skills (SEP-2640 extension) every instance serves, when loaded. */
  readonly skills: SkillsExtension | undefined;
  readonly #live = new Map<McpServer, 'legacy' | 'modern'>();
  readonly #subscriptions = new WeakMap<McpServer, Set<string>>();

  constructor(options: { skills?: SkillsExtension } = {}) {
    this.skills = options.skills;
  }

  /** A state with the fixture's skills catalog loaded (what the CLI serves). */
  static async create(): Promise<FixtureState> {
    return new FixtureState({ skills: await loadFixtureSkills() });
  }

  /** Registers an instance that lives for a whole connection; it is forgotten when it closes. */
  attach(server: McpServer, era: 'legacy' | 'modern'): void {
    this.#live.set(server, era);
    const onclose = server.server.onclose;
    server.server.onclose = () => {
      this.#live.delete(server);
      onclose?.();
    };
  }

  /** The URIs `server`'s session is subscribed to (2025 `resources/subscribe`). */
  subscriptionsOf(server: McpServer): Set<string> {
    let set = this.#subscriptions.get(server);
    if (set === undefined) {
      set = new Set();
      this.#subscriptions.set(server, set);
    }
    return set;
  }

  /** Announces a tool list change on every listen stream and long-lived connection. */
  toolsChanged(): void {
    this.bus.publish({ kind: 'tools_list_changed' });
    for (const server of this.#live.keys()) server.sendToolListChanged();
  }

  /** Announces a prompt list change on every listen stream and long-lived connection. */
  promptsChanged(): void {
    this.bus.publish({ kind: 'prompts_list_changed' });
    for (const server of this.#live.keys()) server.sendPromptListChanged();
  }

  /**
   * Announces that `uri` changed: to its modern listeners (HTTP streams through the bus; a modern stdio
   * connection's own listen router filters what its instance sends) and to the 2025 sessions subscribed to it.
   */
  async resourceUpdated(uri: string): Promise<void> {
    this.bus.publish({ kind: 'resource_updated', uri });
    const sends = [...this.#live]
      .filter(([server, era]) => era === 'modern' || this.#subscriptions.get(server)?.has(uri))
      .map(([server]) => server.server.sendResourceUpdated({ uri }));
    await Promise.allSettled(sends);
  }
}
