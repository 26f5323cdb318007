/**
 * Config reloads during the run, each a rewrite of the watched file: add the spare upstream, remove it,
 * change one upstream's entry (its `timeoutMs`, so the gateway reconnects it), or change only `limits` and
 * the audit plugin's options (applied in place, the plugin swapped live: no upstream may notice). Each waits for `/admin/status` to list the reload as applied.
 */
import { type ConfigState, writeConfig } from './config.js';
import { type RunningGateway, waitForStatus } from './gateway.js';
import type { SoakUpstream } from './upstreams.js';

export type ReloadVariant = 'add' | 'remove' | 'change' | 'limits';

const APPLY_TIMEOUT_MS = 15_000;

export interface ReloadOutcome {
  label: string;
  /** Milliseconds from the write until `/admin/status` listed it; undefined if it never did. */
  appliedMs?: number;
  outcome?: string;
  error?: string;
}

export class ConfigReloads {
  readonly state: ConfigState;
  readonly #path: string;
  readonly #gateway: RunningGateway;
  readonly #spare: SoakUpstream;

  constructor(path: string, state: ConfigState, gateway: RunningGateway, spare: SoakUpstream) {
    this.#path = path;
    this.state = state;
    this.#gateway = gateway;
    this.#spare = spare;
  }

  get spareConfigured(): boolean {
    return this.state.upstreams.includes(this.#spare);
  }

  /** What a variant will do, and to which upstream (undefined: none should notice). */
  describe(variant: ReloadVariant, target: SoakUpstream): { label: string; upstream?: string } {
    switch (variant) {
      case 'add':
        return { label: `reload +${this.#spare.name}`, upstream: this.#spare.name };
      case 'remove':
        return { label: `reload -${this.#spare.name}`, upstream: this.#spare.name };
      case 'change':
        return { label: `reload ~${target.name} (timeoutMs)`, upstream: target.name };
      case 'limits':
        return { label: 'reload limits + audit options' };
    }
  }

  async apply(variant: ReloadVariant, target: SoakUpstream): Promise<ReloadOutcome> {
    const { label } = this.describe(variant, target);
    const state = this.state;
    if (variant === 'add' && !this.spareConfigured) state.upstreams.push(this.#spare);
    if (variant === 'remove') state.upstreams = state.upstreams.filter((u) => u !== this.#spare);
    if (variant === 'change') state.timeoutBump[target.name] = (state.timeoutBump[target.name] ?? 0) ? 0 : 1;
    if (variant === 'limits') {
      state.idleSessionMs = state.idleSessionMs === 1_800_000 ? 1_700_000 : 1_800_000;
      state.audit.arguments = !state.audit.arguments;
    }
    const before = (await this.#gateway.status()).reloads[0]?.time;
    const start = Date.now();
    await writeConfig(this.#path, state);
    let record: { outcome: string; error?: string } | undefined;
    const appliedMs = await waitForStatus(
      this.#gateway,
      (status) => {
        const latest = status.reloads[0];
        if (!latest || latest.time === before) return false;
        record = latest;
        return true;
      },
      APPLY_TIMEOUT_MS,
    );
    return {
      label,
      appliedMs: appliedMs === undefined ? undefined : Date.now() - start,
      outcome: record?.outcome,
      error: record?.error,
    };
  }
}
