export type { ControlClient } from './control.js';
export { controlClient } from './control.js';
export type { Failure, FailureMode } from './failures.js';
export type { HttpTestServer } from './http.js';
export type { MisbehaveMode } from './misbehave/modes.js';
export { MISBEHAVE_MODES } from './misbehave/modes.js';
export type { TestServerOptions } from './options.js';
export {
  cpuTimeMs,
  type ExitStatus,
  freePort,
  type LineMatcher,
  type ManagedProcess,
  type OutputStream,
  type PortReservation,
  ProcessGroup,
  type ProcessRun,
  type ReadyLine,
  type RunProcessOptions,
  reservePort,
  rssMiB,
  runProcess,
  type SpawnProcessOptions,
  type StartedProcess,
  type StartProcessOptions,
  type Stoppable,
  spawnProcess,
  startProcess,
  type WaitForLineOptions,
  WarningTally,
  type WarningTallyOptions,
} from './process.js';
export type { TestServerStats } from './stats.js';
export { TestServer } from './test-server.js';
export { Cleanup, eventually } from './test-support.js';
