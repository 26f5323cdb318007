/**
 * Background resource updates: every few seconds each base upstream that is not under fault emits
 * `notifications/resources/updated` for its watched resource, so updates flow through the gateway all
 * run long (the restore checks add their own bursts after each fault).
 */
import type { FaultTimeline } from './faults.js';
import type { SoakUpstream } from './upstreams.js';

const EVERY_MS = 5_000;

export class UpdatePulse {
  /** Updates the upstreams were asked to emit. */
  emitted = 0;
  #timer: NodeJS.Timeout | undefined;
  readonly #upstreams: readonly SoakUpstream[];
  readonly #timeline: FaultTimeline;

  constructor(upstreams: readonly SoakUpstream[], timeline: FaultTimeline) {
    this.#upstreams = upstreams;
    this.#timeline = timeline;
  }

  start(): void {
    this.#timer = setInterval(() => void this.#tick(), EVERY_MS);
  }

  stop(): void {
    clearInterval(this.#timer);
  }

  async #tick(): Promise<void> {
    const faulted = this.#timeline.current?.upstream;
    await Promise.allSettled(
      this.#upstreams
        .filter((u) => u.name !== faulted)
        .map(async (u) => {
          const control = await u.control();
          await control.updated(u.watchedUri);
          this.emitted += 1;
        }),
    );
  }
}
