export { canonicalJson, type Digest, definitionDigest, PINNED_FIELDS, type PinKind } from './digest.js';
export { type LockFile, parseLock, readLock, type ServerPins, writeLock } from './lock-file.js';
export type { PinMode, PinOptions } from './options.js';
export { PinState, type QuarantineEntry, type Verdict } from './state.js';
