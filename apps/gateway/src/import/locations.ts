import { join, win32 } from 'node:path';

export type ClientId = 'claude-desktop' | 'claude-code' | 'cursor' | 'vscode' | 'windsurf';

/** Where a client keeps an MCP server list. */
export interface ClientLocation {
  client: ClientId;
  file: string;
}

/** What the default locations depend on; read from the environment at call time, so tests can move them. */
export interface LocationContext {
  platform: NodeJS.Platform;
  home: string;
  /** Windows `%APPDATA%` (default `<home>\AppData\Roaming`). */
  appData?: string;
  /** Linux `$XDG_CONFIG_HOME` (default `<home>/.config`). */
  xdgConfigHome?: string;
  /** The project folder for project-level files (`.cursor/mcp.json`, `.vscode/mcp.json`, `.mcp.json`). */
  cwd: string;
}

/** The context of this process: HOME (USERPROFILE on Windows), APPDATA, XDG_CONFIG_HOME, cwd. */
export function currentLocationContext(
  env: NodeJS.ProcessEnv = process.env,
  platform: NodeJS.Platform = process.platform,
  cwd: string = process.cwd(),
): LocationContext {
  const home = (platform === 'win32' ? (env.USERPROFILE ?? env.HOME) : env.HOME) ?? '';
  return { platform, home, appData: env.APPDATA, xdgConfigHome: env.XDG_CONFIG_HOME, cwd };
}

/**
 * Each client's documented MCP config files for the platform, user-level first, then the project's.
 * Claude Desktop has no official Linux build; `~/.config/Claude` is where the community builds keep it.
 */
export function defaultLocations(ctx: LocationContext): ClientLocation[] {
  const path = ctx.platform === 'win32' ? win32.join : join;
  const home = ctx.home;
  const appData = ctx.appData ?? path(home, 'AppData', 'Roaming');
  const config = ctx.xdgConfigHome ?? path(home, '.config');
  const appDir =
    ctx.platform === 'darwin'
      ? path(home, 'Library', 'Application Support')
      : ctx.platform === 'win32'
        ? appData
        : config;
  const cwd = ctx.cwd;
  return [
    { client: 'claude-desktop', file: path(appDir, 'Claude', 'claude_desktop_config.json') },
    { client: 'claude-code', file: path(home, '.claude.json') },
    { client: 'cursor', file: path(home, '.cursor', 'mcp.json') },
    { client: 'vscode', file: path(appDir, 'Code', 'User', 'mcp.json') },
    { client: 'vscode', file: path(appDir, 'Code', 'User', 'settings.json') },
    { client: 'windsurf', file: path(home, '.codeium', 'windsurf', 'mcp_config.json') },
    { client: 'claude-code', file: path(cwd, '.mcp.json') },
    { client: 'cursor', file: path(cwd, '.cursor', 'mcp.json') },
    { client: 'vscode', file: path(cwd, '.vscode', 'mcp.json') },
  ];
}
