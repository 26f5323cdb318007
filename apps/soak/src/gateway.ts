/**
 * The gateway under test: the built CLI in its own process on a watched config file, with an HTTP MCP
 * listener and the admin listener. Its `/admin/status` JSON says which upstreams are connected, how many
 * sessions and subscriptions it holds, and which reloads it applied; its stderr is tallied by level.
 */
import { createWriteStream, existsSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { launchGateway } from '@switchyard/testkit/mcp';
import { type ManagedProcess, warningKind } from '@switchyard/testkit/process';
import { children } from './children.js';

export interface GatewayStatus {
  upstreams: { name: string; state: string; lastError?: string }[];
  sessions: { total: number };
  subscriptions: number;
  reloads: { time: string; outcome: string; added?: string[]; removed?: string[]; changed?: string[] }[];
}

export interface RunningGateway {
  proc: ManagedProcess;
  url: string;
  adminUrl: string;
  /** WARN/ERROR lines after start, grouped by the line with timestamps and digits masked. */
  warnings: Map<string, number>;
  /** Connections the gateway made to each upstream (its `connected` log lines), the first one included. */
  connects: Map<string, number>;
  status(): Promise<GatewayStatus>;
  /** Rejects when the gateway exits while the run still needs it. */
  crashed: Promise<never>;
}

function gatewayCli(): string {
  const cli = fileURLToPath(new URL('./cli.js', import.meta.resolve('switchyard')));
  if (!existsSync(cli)) throw new Error(`${cli} not found: build first (pnpm build)`);
  return cli;
}

/**
 * Starts the gateway (the testkit's launcher, a member of `children`) on `config`, written to the
 * `configFile` it reports (the file the soak rewrites to reload); with `logFile`, every line it writes to
 * stderr is copied there.
 */
export async function startGateway(
  config: Record<string, unknown>,
  logFile?: string,
): Promise<RunningGateway & { configFile: string }> {
  const launched = await launchGateway({
    cli: gatewayCli(),
    config,
    group: children,
    // Errors quoted at the end of a line vary with every request: one kind per attribute, not per message.
    warnings: {
      maxKinds: 200,
      kind: (line) => warningKind(line.replace(/ (error|lastError|uri)=".*$/, ' $1=…')),
    },
  });
  children.own(launched);
  const { proc, url } = launched;
  const adminUrl = launched.adminUrl;
  if (adminUrl === undefined) throw new Error('gateway: the soak config has no admin listener');
  const connects = new Map<string, number>();
  const count = (line: string) => {
    const upstream = /\[switchyard:upstream:([a-z0-9-]+)\] connected /.exec(line)?.[1];
    if (upstream) connects.set(upstream, (connects.get(upstream) ?? 0) + 1);
  };
  // The complete stderr lines so far, then every later one (a partial last line arrives as a later line).
  const before = proc.stderr();
  const complete = before.slice(0, before.lastIndexOf('\n') + 1);
  for (const line of complete.split('\n')) count(line);
  const log = logFile ? createWriteStream(logFile) : undefined;
  log?.write(complete);
  proc.onLine((line, stream) => {
    if (stream !== 'stderr') return;
    log?.write(`${line}\n`);
    count(line);
  });
  return {
    proc,
    url,
    adminUrl,
    configFile: launched.configFile,
    warnings: proc.warnings,
    connects,
    crashed: proc.crashed,
    async status() {
      const response = await fetch(`${adminUrl}/admin/status`, { signal: AbortSignal.timeout(5_000) });
      if (!response.ok) throw new Error(`/admin/status answered ${response.status}`);
      return (await response.json()) as GatewayStatus;
    },
  };
}

/** Polls `/admin/status` until `predicate` holds; resolves with the time it took, or undefined on timeout. */
export async function waitForStatus(
  gateway: RunningGateway,
  predicate: (status: GatewayStatus) => boolean,
  timeoutMs: number,
): Promise<number | undefined> {
  const start = Date.now();
  while (Date.now() - start < timeoutMs) {
    const status = await gateway.status().catch(() => undefined);
    if (status && predicate(status)) return Date.now() - start;
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
  return undefined;
}
