// The servers under test, each a child of the run's ProcessGroup (stopped by its stopAll()): the fixture
// over HTTP (direct), and gateways fronting a server, over stdio or over Streamable HTTP.
import { launchGateway, startTestkitHttp } from '@switchyard/testkit/mcp';

/**
 * Starts `node args…` in `group` and resolves with `{ url, procs: [proc] }` once `ready` (a line pattern or
 * matcher on `stream`, its first group or value the URL) gives the URL it serves; rejects, with its last
 * output, if it exits first or stays silent for `timeoutMs` (20 s).
 */
export async function startServer(group, { name, args, stream = 'stderr', ready, cwd, env, timeoutMs }) {
  // Keep only the tail: a long run logs a lot and only the last lines help when something breaks.
  const { proc, ready: found } = await group.start({
    name,
    args,
    cwd,
    env,
    keepChars: 20_000,
    ready: { stream, line: ready, timeoutMs },
  });
  return { url: ready instanceof RegExp ? found[1] : found, procs: [proc] };
}

/** The fixture served over Streamable HTTP on an ephemeral loopback port (the testkit's `startTestkitHttp`). */
export async function startFixtureHttp(group) {
  const fixture = await startTestkitHttp({
    group,
    fixture: true,
    name: 'conformance fixture',
    keepChars: 20_000,
  });
  return { url: fixture.url, procs: [fixture.proc] };
}

/**
 * The gateway on a loopback HTTP port (ephemeral unless `port`), started by the testkit's launcher in
 * `group` (its config in a scratch dir removed by the group's `stopAll()`).
 */
export async function startGatewayWith(group, { gatewayCli, name, port = 0, ...config }) {
  const gateway = await launchGateway({
    cli: gatewayCli,
    group,
    name,
    keepChars: 20_000,
    config: { listen: { http: { host: '127.0.0.1', port, path: '/mcp' } }, logLevel: 'info', ...config },
  });
  group.own(gateway);
  return { url: gateway.url, procs: [gateway.proc] };
}

/** The fixture spawned over stdio with `"prefix": false` (names and URIs unchanged), as a gateway upstream. */
export const fixtureOverStdio = (fixtureCli) => ({
  fixture: { command: process.execPath, args: [fixtureCli, '--stdio'], prefix: false },
});

/** The gateway fronting the fixture over stdio, so the suite's expectations hold through it. */
export function startGateway(group, gatewayCli, fixtureCli) {
  return startGatewayWith(group, {
    gatewayCli,
    name: 'gateway',
    mcpServers: fixtureOverStdio(fixtureCli),
  });
}

/** The gateway fronting `upstreamUrl` over Streamable HTTP with `"prefix": false`. */
export function startGatewayFronting(group, gatewayCli, upstreamUrl, name) {
  return startGatewayWith(group, {
    gatewayCli,
    name: `gateway fronting the ${name} server`,
    mcpServers: { [name]: { url: upstreamUrl, prefix: false } },
  });
}
