/**
 * The startup banner: one short human block on stderr once the gateway is ready (after the first connect
 * round), saying where the MCP endpoint and the status page are, what each upstream exposes, and how to
 * add the endpoint to a client. Never on stdout, which carries JSON-RPC in stdio mode.
 */

/** What an upstream exposes through the gateway (undefined: could not be listed). */
export interface ExposedCounts {
  tools: number;
  prompts: number;
  resources: number;
  templates: number;
}

/** Everything the banner shows, gathered once the gateway is ready. */
export interface BannerFacts {
  version: string;
  /** Milliseconds from process start to ready. */
  readyMs: number;
  /** The MCP listeners with their bound URLs (`stdio` for the stdio listener). */
  listeners: { kind: string; url: string }[];
  /** The admin listener's URL (status page at `/`), when `listen.admin` is set. */
  adminUrl?: string;
  /** `counts` only for a ready upstream; `error`: why one that is not ready last failed. */
  upstreams: { name: string; state: string; counts?: ExposedCounts; error?: string }[];
}

/**
 * Why the banner is left out, or undefined when it is shown. It is for people at a terminal: by default
 * it shows only when stderr is a TTY (a service manager, a container log or a stdio client's log gets
 * none), and not at the warn or error log levels. `--banner` shows it anyway, `--quiet` never.
 */
export function bannerSkipped(options: {
  quiet?: boolean;
  banner?: boolean;
  logLevel?: string;
  tty?: boolean;
}): string | undefined {
  if (options.quiet) return '--quiet';
  if (options.banner) return undefined;
  // The banner is info-level output: an operator who asked for warnings only gets none.
  if (options.logLevel === 'warn' || options.logLevel === 'error') return `log level ${options.logLevel}`;
  if (!options.tty) return 'stderr is not a terminal';
  return undefined;
}

/** Colour only on a terminal, and never with NO_COLOR set (https://no-color.org). */
export function bannerColor(stream: { isTTY?: boolean }, env: NodeJS.ProcessEnv = process.env): boolean {
  return stream.isTTY === true && !env.NO_COLOR;
}

type Paint = (text: string) => string;

function painter(color: boolean) {
  const sgr =
    (open: number): Paint =>
    (text) =>
      color ? `\x1b[${open}m${text}\x1b[0m` : text;
  return { bold: sgr(1), dim: sgr(2), green: sgr(32), yellow: sgr(33), red: sgr(31), cyan: sgr(36) };
}

function plural(n: number, one: string): string {
  return `${n} ${one}${n === 1 ? '' : 's'}`;
}

/** An error's first line, cut to keep the banner's lines short (the log has it whole). */
function shorten(text: string, max = 80): string {
  const line = text.split('\n')[0] ?? '';
  return line.length > max ? `${line.slice(0, max - 1)}…` : line;
}

function describeCounts(counts: ExposedCounts): string {
  return [
    plural(counts.tools, 'tool'),
    plural(counts.prompts, 'prompt'),
    plural(counts.resources, 'resource'),
    plural(counts.templates, 'template'),
  ].join(', ');
}

/** One line per client, for an HTTP endpoint (the clients in docs/clients.md). */
function clientLines(url: string): [string, string][] {
  const json = (value: unknown) => JSON.stringify(value);
  return [
    [
      'Claude Desktop',
      `claude_desktop_config.json: "switchyard": ${json({ command: 'npx', args: ['-y', 'mcp-remote', url] })}`,
    ],
    ['Cursor', `.cursor/mcp.json: ${json({ mcpServers: { switchyard: { url } } })}`],
    ['VS Code', `code --add-mcp '${json({ name: 'switchyard', type: 'http', url })}'`],
  ];
}

/**
 * The banner text (ending in a newline): at most 8 + one line per upstream.
 *
 * @example
 * process.stderr.write(formatBanner(facts, { color: bannerColor(process.stderr) }));
 */
export function formatBanner(facts: BannerFacts, options: { color?: boolean } = {}): string {
  const p = painter(options.color ?? false);
  const label = (text: string) => p.dim(text.padEnd(14));
  const lines = [p.bold(`Switchyard ${facts.version} ready in ${(facts.readyMs / 1000).toFixed(1)} s`)];
  for (const listener of facts.listeners) {
    const where = listener.kind === 'stdio' ? 'stdio (this process’s stdin/stdout)' : p.cyan(listener.url);
    lines.push(`${label(listener.kind === 'ws' ? 'MCP WebSocket' : 'MCP endpoint')}${where}`);
  }
  if (facts.adminUrl !== undefined) lines.push(`${label('Status page')}${p.cyan(facts.adminUrl)}`);
  const width = Math.max(0, ...facts.upstreams.map((u) => u.name.length));
  const stateWidth = Math.max(0, ...facts.upstreams.map((u) => u.state.length));
  facts.upstreams.forEach((upstream, i) => {
    const paint =
      upstream.state === 'ready'
        ? p.green
        : upstream.state === 'backoff' || upstream.state === 'closed'
          ? p.red
          : p.yellow;
    const detail = upstream.counts ? describeCounts(upstream.counts) : shorten(upstream.error ?? '');
    // Padded before painting: escape codes would count towards the width.
    const state =
      detail === ''
        ? paint(upstream.state)
        : `${paint(upstream.state)}${' '.repeat(stateWidth - upstream.state.length)}  ${detail}`;
    lines.push(`${label(i === 0 ? 'Upstreams' : '')}${upstream.name.padEnd(width)}  ${state}`);
  });
  if (facts.upstreams.length === 0) lines.push(`${label('Upstreams')}none configured`);
  const http = facts.listeners.find((l) => l.kind === 'http');
  if (http !== undefined) {
    lines.push(`Add it to a client (more in docs/clients.md):`);
    for (const [client, how] of clientLines(http.url)) lines.push(`  ${p.dim(client.padEnd(15))}${how}`);
  } else if (facts.listeners.some((l) => l.kind !== 'stdio')) {
    lines.push('Add it to a client: see docs/clients.md');
  }
  return `${lines.join('\n')}\n`;
}
