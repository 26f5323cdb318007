/**
 * `@switchyard/testkit/process`: child processes for tests, benchmarks and soak runs (spawn, drain the
 * output into bounded buffers, wait for a line, stop for sure) and loopback ports. Node built-ins only.
 */
export { runProcess, spawnProcess, startProcess } from './process/child.js';
export { ProcessGroup, type Stoppable } from './process/group.js';
export type { OutputStream } from './process/output.js';
export { type CleanupRegistry, freePort, type PortReservation, reservePort } from './process/ports.js';
export type {
  ExitStatus,
  LineMatcher,
  ManagedProcess,
  ProcessRun,
  ReadyLine,
  RunProcessOptions,
  SpawnProcessOptions,
  StartedProcess,
  StartProcessOptions,
  WaitForLineOptions,
} from './process/types.js';
export { cpuTimeMs, rssMiB } from './process/usage.js';
export { WARNING_LINE, WarningTally, type WarningTallyOptions, warningKind } from './process/warnings.js';
export {
  type Balancer,
  type BalancerBackend,
  haproxyConfig,
  haproxyMissing,
  startBalancer,
} from './services/haproxy.js';
export { type RedisServer, redisMissing, startRedis } from './services/redis.js';
