export type { ControlClient } from './control.js';
export { controlClient } from './control.js';
export type { Failure, FailureMode } from './failures.js';
export type { HttpTestServer } from './http.js';
export type { TestServerOptions } from './options.js';
export type { TestServerStats } from './stats.js';
export { TestServer } from './test-server.js';
export { Cleanup, eventually } from './test-support.js';
