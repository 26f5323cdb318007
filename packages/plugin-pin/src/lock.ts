/**
 * `@switchyard/plugin-pin/lock`: the lock file and the definition digests, for tools that read or
 * write pins without a running gateway (`switchyard pin`). The plugin itself is the package's default
 * export.
 */

export {
  definitionsFile,
  type PinnedDefinition,
  readDefinitions,
  updateDefinitions,
} from './definitions.js';
export {
  canonicalJson,
  DIGEST_PATTERN,
  type Digest,
  definitionDigest,
  instructionsDigest,
  PINNED_FIELDS,
  type PinKind,
  pinnedPart,
} from './digest.js';
export {
  emptyLock,
  type LockFile,
  mergeLocks,
  parseLock,
  readLock,
  type ServerPins,
  serializeLock,
  withPin,
  writeLock,
} from './lock-file.js';
export { type ResolvedPinOptions, resolvePinOptions } from './options.js';
