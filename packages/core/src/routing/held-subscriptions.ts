import { splitExposedUri } from '../naming/uris.js';

/** A subscription as the table holds it: the upstream's name and the URI that upstream knows. */
export interface HeldSubscription {
  readonly upstream: string;
  readonly uri: string;
}

/**
 * Which of the subscriptions a session holds an exposed URI names, whatever upstreams are configured now
 * (a reload may have removed its upstream, or given the URI to another one): where the URI leads now
 * (`routed`) when that is held; else the held `server+uri` it splits into; else the held URIs an unprefixed
 * server exposed unchanged. Empty when the session holds none of them.
 */
export function heldSubscriptions(
  exposed: string,
  routed: HeldSubscription | undefined,
  held: readonly HeldSubscription[],
): HeldSubscription[] {
  const same = (a: HeldSubscription, b: HeldSubscription) => a.upstream === b.upstream && a.uri === b.uri;
  if (routed && held.some((h) => same(h, routed))) return [routed];
  const split = splitExposedUri(exposed);
  const prefixed = split ? held.filter((h) => same(h, { upstream: split.server, uri: split.uri })) : [];
  return prefixed.length > 0 ? prefixed : held.filter((h) => h.uri === exposed);
}
