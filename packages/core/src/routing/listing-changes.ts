import { NO_NAMES } from './changed-names.js';
import { changedNames, type ListedItems } from './listing-diff.js';

/**
 * What each upstream's successive listings (of one kind) changed, until someone announces it: every full
 * listing is compared with the one before, and the names that changed wait here to be taken. Whoever
 * listed (a `list_changed`, an unknown name, a reconnection), the next announcement takes them all, so a
 * change found by a listing nobody announces is still announced.
 *
 * An upstream's first listing (since it connected, or since a reload) changes nothing: nobody could have
 * heard of its items before, and its connection is announced on its own.
 */
export class ListingChanges {
  readonly #listed = new Map<string, ListedItems>();
  readonly #waiting = new Map<string, Set<string>>();
  /** Bumped when an upstream is forgotten: a listing that started before is not recorded. */
  readonly #epochs = new Map<string, number>();

  /** The epoch a listing of `upstream` starts in; pass it to {@link record}. */
  epoch(upstream: string): number {
    return this.#epochs.get(upstream) ?? 0;
  }

  /** Whether a listing of `upstream` is recorded (since it connected, or was last forgotten). */
  listed(upstream: string): boolean {
    return this.#listed.has(upstream);
  }

  /** Records a full listing of `upstream` that started in `epoch`. */
  record(upstream: string, epoch: number, items: ListedItems): void {
    if (this.epoch(upstream) !== epoch) return;
    const before = this.#listed.get(upstream);
    this.#listed.set(upstream, items);
    if (before === undefined) return;
    const changed = changedNames(before, items);
    if (changed.size === 0) return;
    const waiting = this.#waiting.get(upstream);
    if (waiting === undefined) this.#waiting.set(upstream, changed);
    else for (const name of changed) waiting.add(name);
  }

  /** The names of `upstream` that changed since they were last taken (none: an empty set). */
  take(upstream: string): ReadonlySet<string> {
    const waiting = this.#waiting.get(upstream);
    this.#waiting.delete(upstream);
    return waiting ?? NO_NAMES;
  }

  /** Forgets what `upstream` listed (it dropped, or a reload replaced it): its next listing is a first. */
  forget(upstream: string): void {
    this.#listed.delete(upstream);
    this.#waiting.delete(upstream);
    this.#epochs.set(upstream, this.epoch(upstream) + 1);
  }

  /** Forgets every upstream not in `kept` (a reload removed or replaced it). */
  retain(kept: ReadonlySet<string>): void {
    for (const upstream of [...this.#listed.keys(), ...this.#waiting.keys()])
      if (!kept.has(upstream)) this.forget(upstream);
  }
}
