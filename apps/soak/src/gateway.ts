/**
 * The gateway under test: the built CLI in its own process on a watched config file, with an HTTP MCP
 * listener and the admin listener. Its `/admin/status` JSON says which upstreams are connected, how many
 * sessions and subscriptions it holds, and which reloads it applied; its stderr is tallied by level.
 */
import { createWriteStream, existsSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { type ManagedProcess, spawnNode } from './procs.js';

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

/** Starts the gateway on `configPath`; with `logFile`, every line it writes to stderr is copied there. */
export async function startGateway(configPath: string, logFile?: string): Promise<RunningGateway> {
  let url: string | undefined;
  const { proc, value: adminUrl } = await spawnNode({
    name: 'gateway',
    script: gatewayCli(),
    args: ['--config', configPath],
    readyStream: 'stderr',
    ready: (line) => {
      url ??= /\blistening on (http:\/\/\S+)/.exec(line)?.[1];
      return /admin listening on (http:\/\/\S+)/.exec(line)?.[1];
    },
  });
  if (url === undefined) throw new Error('gateway: no "listening on" line before the admin listener');
  const warnings = new Map<string, number>();
  const connects = new Map<string, number>();
  const count = (line: string) => {
    const upstream = /\[switchyard:upstream:([a-z0-9-]+)\] connected /.exec(line)?.[1];
    if (upstream) connects.set(upstream, (connects.get(upstream) ?? 0) + 1);
  };
  for (const line of proc.tail()) count(line);
  const log = logFile ? createWriteStream(logFile) : undefined;
  log?.write(`${proc.tail().join('\n')}\n`);
  proc.onLine = (line) => {
    log?.write(`${line}\n`);
    count(line);
    if (!/\b(WARN|ERROR)\b|Warning: /.test(line)) return;
    const kind = line
      .replace(/^\S*\d{4}-\d\d-\d\dT\S+\s+/, '')
      .replace(/ (error|lastError|uri)=".*$/, ' $1=…')
      .replace(/\d+/g, '#');
    if (warnings.has(kind) || warnings.size < 200) warnings.set(kind, (warnings.get(kind) ?? 0) + 1);
  };
  const crashed = proc.exited.then((code) => {
    throw new Error(`the gateway exited (${code}); last output:\n    ${proc.tail().join('\n    ')}`);
  });
  crashed.catch(() => {});
  const base = adminUrl.replace(/\/+$/, '');
  return {
    proc,
    url,
    adminUrl: base,
    warnings,
    connects,
    crashed,
    async status() {
      const response = await fetch(`${base}/admin/status`, { signal: AbortSignal.timeout(5_000) });
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
