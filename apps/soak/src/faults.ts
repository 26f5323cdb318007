/**
 * The fault timeline: which upstream was under which fault, from the moment it was injected until the
 * gateway had it back (plus a grace window). An error on upstream U is "expected" only if its request's
 * time span meets one of U's windows; anything else is an error on a healthy upstream.
 */

/** After a fault is over, requests may still see its tail this long (late answers, list refreshes). */
export const GRACE_MS = 3_000;

export type FaultKind = 'kill' | 'stop' | 'reload';

export interface FaultWindow {
  kind: FaultKind;
  /** What was done, for the report (e.g. `SIGKILL alpha`, `reload +extra`). */
  label: string;
  /** The upstream the fault hits; undefined for a reload that should affect none. */
  upstream: string | undefined;
  start: number;
  /** When the gateway had the upstream back (undefined while it lasts). */
  end?: number;
}

export class FaultTimeline {
  readonly windows: FaultWindow[] = [];

  /** The fault in progress (for the progress line), if any. */
  get current(): FaultWindow | undefined {
    const last = this.windows.at(-1);
    return last && last.end === undefined ? last : undefined;
  }

  begin(kind: FaultKind, label: string, upstream: string | undefined): FaultWindow {
    const window: FaultWindow = { kind, label, upstream, start: Date.now() };
    this.windows.push(window);
    return window;
  }

  end(window: FaultWindow): void {
    window.end ??= Date.now();
  }

  /** Whether a request to `upstream` spanning [start, end] met a fault on it (grace included). */
  affected(upstream: string, start: number, end: number): boolean {
    return this.windows.some(
      (w) =>
        w.upstream === upstream && w.start <= end && (w.end ?? Number.POSITIVE_INFINITY) + GRACE_MS >= start,
    );
  }
}
