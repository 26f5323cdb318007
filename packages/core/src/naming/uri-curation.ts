import { type CurationConfig, EVERYTHING, type NameFilter, nameFilter } from './curation.js';
import { type NormalizeOptions, normalizePattern, uriReadings } from './uri-readings.js';

/**
 * `{ allow, deny }` globs over exposed resource URIs (or URI templates), read every way an upstream may
 * read the URI: a URI passes only when it passes as written and in each of its canonical readings (dot
 * segments removed, percent-encoding decoded, scheme and host lower-cased, …: see `uriReadings`), those
 * matched against the globs canonicalized the same way. A URI with no canonical reading passes nowhere.
 * Without this, `docs+file:///public/x/../../secret` passes `allow: ["docs+file:///public/*"]`, and the
 * upstream serves `/secret`.
 */
export function uriFilter(config: CurationConfig | undefined, options: NormalizeOptions = {}): NameFilter {
  const written = nameFilter(config);
  if (written === EVERYTHING || config === undefined) return EVERYTHING;
  const canonical = nameFilter({
    allow: config.allow?.map(canonicalGlob),
    deny: config.deny?.map(canonicalGlob),
  });
  return (uri) => written(uri) && (uriReadings(uri, options)?.every(canonical) ?? false);
}

/** A glob in canonical form; one with neither a scheme nor a wildcard for it is matched as written. */
function canonicalGlob(glob: string): string {
  return normalizePattern(glob) ?? glob;
}
