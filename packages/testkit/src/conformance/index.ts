export { createConformanceServer, type FixtureEra } from './fixture.js';
export { type ConformanceHttp, type ConformanceHttpOptions, startConformanceHttp } from './http.js';
export { FixtureState, type RoundState } from './state.js';
export { type ConformanceStdioOptions, serveConformanceStdio } from './stdio.js';
