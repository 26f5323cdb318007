import { readFile } from 'node:fs/promises';
import { dirname, isAbsolute, resolve } from 'node:path';
import {
  isPersonal,
  type LogLevel,
  type StoreConfig,
  type ToolSearchConfig,
  type UpstreamConfig,
  type UpstreamTransportConfig,
  type VirtualServerConfig,
} from '@switchyard/core';
import { type ClientConfig, jsonValueTooDeep } from '@switchyard/core/listener';
import type { z } from 'zod';
import { identitiesConfigured, LOOPBACK_HOST, openAdminProblem } from '../admin/open-admin.js';
import type { Limits } from '../listeners/limits.js';
import type { AuthConfig } from './auth-schema.js';
import type { CredentialsConfig } from './credentials-schema.js';
import { checkCwds } from './cwd.js';
import { type ConfigIssue, expandEnv, joinPath } from './expand.js';
import { type AdminListenerConfig, configSchema, type RawConfig } from './schema.js';
import { isYamlFile, parseJsonSource, parseYamlSource, placeIssues } from './source-positions.js';
import { resolveUpstreamAuth } from './upstream-auth-schema.js';
import { resolveVirtualServers } from './virtual-servers.js';

export interface ListenerConfig {
  host: string;
  port: number;
  path: string;
  allowedHosts: string[];
  allowedOrigins: string[];
  /** HTTP only: where the other replicas reach this listener (default: derived from host and port). */
  advertise?: string;
}

/** The validated, resolved gateway configuration. */
export interface GatewayConfig {
  /** Where the config came from (a file path, or "(embedded default)"). */
  source: string;
  baseDir: string;
  listen: { stdio: boolean; http?: ListenerConfig; ws?: ListenerConfig; admin?: AdminListenerConfig };
  upstreams: UpstreamConfig[];
  /** Plugins in config order (first = outermost): a package name or a path relative to baseDir. */
  plugins: { specifier: string; options: Record<string, unknown> }[];
  /** Named clients and their bearer tokens (HTTP/WS); see ClientDirectory. */
  clients?: Record<string, ClientConfig>;
  /** Identity of stdio sessions and, when set, of tokenless HTTP/WS requests. */
  anonymous?: string;
  /** `auth.oauth`: OAuth access tokens from an issuer (HTTP/WS), beside the static `clients`. */
  auth?: AuthConfig;
  telemetry?: TelemetryConfig;
  cursorSecret?: string;
  /** `credentials`: the vault of each person's upstream tokens (DESIGN §14); needed by `auth.user`. */
  credentials?: CredentialsConfig;
  /** `store`: state shared by replicas (DESIGN §12); absent = in memory. */
  store?: StoreConfig;
  logLevel?: LogLevel;
  /** `limits`; absent = the defaults (DEFAULT_LIMITS). */
  limits?: Limits;
  /** SIGTERM: how long in-flight requests get to finish (default 10000). */
  shutdownGraceMs?: number;
  /** `virtualServers` (DESIGN §13), in config order; absent when the config has none. */
  virtualServers?: ReadonlyMap<string, VirtualServerConfig>;
  /** Top-level `toolSearch`: the root endpoint's, and a virtual server's without its own. */
  toolSearch?: ToolSearchConfig;
}

export interface TelemetryConfig {
  serviceName: string;
  /** OTLP/HTTP export of traces and metrics (endpoint = the collector's base URL, e.g. http://127.0.0.1:4318). */
  otlp?: { endpoint: string; headers: Record<string, string>; exportIntervalMs: number };
  /** A Prometheus scrape endpoint served by the gateway. */
  prometheus?: { host: string; port: number; path: string };
}

/**
 * A config that cannot be used; its message names the file, each JSON path and what is wrong, and where
 * known the line and column (`  - $.mcpServers.docs.url: unsupported URL scheme … (line 4, column 12)`).
 */
export class ConfigError extends Error {
  override readonly name = 'ConfigError';
  readonly issues: ConfigIssue[];
  /** The file and its problems, without the advice for a start (a reload words its own). */
  readonly details: string;

  constructor(source: string, issues: ConfigIssue[]) {
    const details = `Invalid config ${source}:\n${issues.map(describeIssue).join('\n')}`;
    super(`${details}\nFix the config and start again; nothing was started.`);
    this.issues = issues;
    this.details = details;
  }
}

function describeIssue(issue: ConfigIssue): string {
  const at = issue.line === undefined ? '' : ` (line ${issue.line}, column ${issue.column ?? 1})`;
  return `  - ${issue.path}: ${issue.message}${at}`;
}

/** Loads a JSON config, or a YAML one (`.yaml`/`.yml`); problems come with their line and column. */
export async function loadConfigFile(
  file: string,
  env: NodeJS.ProcessEnv = process.env,
): Promise<GatewayConfig> {
  const path = resolve(file);
  let text: string;
  try {
    text = await readFile(path, 'utf8');
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    const why = code === 'ENOENT' ? 'file not found' : (error as Error).message;
    throw new ConfigError(path, [{ path: '$', message: `cannot read config: ${why}` }]);
  }
  const parsed = isYamlFile(path) ? parseYamlSource(text) : parseJsonSource(text);
  if ('issues' in parsed) throw new ConfigError(path, parsed.issues);
  let config: GatewayConfig;
  try {
    config = parseConfig(parsed.value, { source: path, baseDir: dirname(path), env });
  } catch (error) {
    if (error instanceof ConfigError) throw new ConfigError(path, placeIssues(text, error.issues));
    throw error;
  }
  // The file system is judged once the config is valid, and only for a file (an import writes configs
  // for wherever they will run).
  const issues: ConfigIssue[] = [];
  await checkCwds(config.upstreams, issues);
  if (issues.length > 0) throw new ConfigError(path, placeIssues(text, issues));
  return config;
}

/** Levels of objects and arrays a config may nest (a deep one is about 8: this is far past any). */
const MAX_CONFIG_DEPTH = 64;

export function parseConfig(
  raw: unknown,
  options: { source: string; baseDir: string; env?: NodeJS.ProcessEnv },
): GatewayConfig {
  // No config nests anywhere near this: a file that does is refused before anything recurses through it.
  if (jsonValueTooDeep(raw, MAX_CONFIG_DEPTH)) {
    throw new ConfigError(options.source, [
      { path: '$', message: `nests more than ${MAX_CONFIG_DEPTH} levels of objects and arrays` },
    ]);
  }
  const issues: ConfigIssue[] = [];
  const expanded = expandEnv(raw, options.env ?? process.env, issues);
  const parsed = configSchema.safeParse(expanded);
  if (!parsed.success) issues.push(...parsed.error.issues.map(toIssue));
  if (issues.length > 0 || !parsed.success) throw new ConfigError(options.source, issues);
  const config = parsed.data;
  const resolved = resolveConfig(config, options.source, options.baseDir, issues);
  if (issues.length > 0) throw new ConfigError(options.source, issues);
  return resolved;
}

function resolveConfig(
  config: RawConfig,
  source: string,
  baseDir: string,
  issues: ConfigIssue[],
): GatewayConfig {
  const upstreams: UpstreamConfig[] = [];
  for (const [name, server] of Object.entries(config.mcpServers)) {
    const at = joinPath('$.mcpServers', name);
    if (server.disabled) continue;
    const exposure = {
      name,
      prefix: server.prefix,
      timeoutMs: server.timeoutMs,
      tools: server.tools,
      prompts: server.prompts,
      ...(server.required ? { required: true } : {}),
    };
    if ('command' in server) {
      upstreams.push({
        ...exposure,
        transport: {
          kind: 'stdio',
          command: server.command,
          args: server.args,
          env: server.env,
          cwd:
            server.cwd === undefined
              ? baseDir
              : isAbsolute(server.cwd)
                ? server.cwd
                : resolve(baseDir, server.cwd),
        },
      });
      continue;
    }
    const url = new URL(server.url);
    const declared = server.transport ?? server.type;
    const kind =
      declared === 'sse' ? 'sse' : declared === 'ws' || /^wss?:$/.test(url.protocol) ? 'ws' : 'http';
    const schemes = kind === 'ws' ? /^wss?:$/ : /^https?:$/;
    if (!schemes.test(url.protocol)) {
      const expected = kind === 'ws' ? 'ws: or wss:' : 'http: or https:';
      issues.push({
        path: `${at}.url`,
        message: `unsupported URL scheme "${url.protocol}" for ${kind} (use ${expected})`,
      });
      continue;
    }
    const auth = resolveUpstreamAuth(server, kind, at, issues);
    // A personal `auth.user` on SSE or WebSocket is an issue already (it needs Streamable HTTP).
    const transport = { kind, url: server.url, headers: server.headers, auth } as UpstreamTransportConfig;
    upstreams.push({ ...exposure, transport });
  }
  const owners = new Map<string, string>();
  for (const [name, client] of Object.entries(config.clients ?? {})) {
    // Never echo a token: name the clients that share one.
    const other = owners.get(client.token);
    if (other !== undefined) {
      issues.push({
        path: joinPath(joinPath('$.clients', name), 'token'),
        message: `same token as client "${other}": give each client its own token`,
      });
    }
    owners.set(client.token, name);
  }
  const personal = upstreams.filter(isPersonal);
  if (personal.length > 0 && config.credentials === undefined) {
    issues.push({
      path: '$.credentials',
      message: `${personal.map((u) => `"${u.name}"`).join(', ')} ${personal.length === 1 ? 'uses' : 'use'} "auth.user": configure "credentials": { "key": "\${SWITCHYARD_CREDENTIALS_KEY}", "publicUrl": "https://…" } (where browsers reach this gateway)`,
    });
  }
  const listening = config.listen ?? { stdio: true };
  if (
    config.credentials !== undefined &&
    !('http' in listening && listening.http) &&
    !('admin' in listening && listening.admin)
  ) {
    issues.push({
      path: '$.credentials.publicUrl',
      message:
        'people connect their accounts in a browser at <publicUrl>/oauth/…: enable "listen.http" or "listen.admin" and point publicUrl at it',
    });
  }
  const virtualServers = resolveVirtualServers(config.virtualServers, Object.keys(config.mcpServers), issues);
  const listen = config.listen ?? { stdio: true };
  const admin = 'admin' in listen ? listen.admin : undefined;
  if (admin && !identitiesConfigured(config) && !LOOPBACK_HOST.test(admin.host)) {
    // Refused here, not only when the listener starts: `switchyard check` says it as a start would.
    issues.push({ path: '$.listen.admin.host', message: openAdminProblem(admin.host) });
  }
  if (!listen.stdio && !listen.http && !listen.ws) {
    issues.push({
      path: '$.listen',
      message: 'enable at least one listener ("stdio": true, "http": {...} or "ws": {...})',
    });
  }
  return {
    source,
    baseDir,
    listen: {
      stdio: listen.stdio,
      http: 'http' in listen ? listen.http : undefined,
      ws: 'ws' in listen ? listen.ws : undefined,
      admin: 'admin' in listen ? listen.admin : undefined,
    },
    upstreams,
    plugins: config.plugins.map(([specifier, options]) => ({ specifier, options: options ?? {} })),
    clients: config.clients,
    anonymous: config.anonymous,
    auth: config.auth,
    telemetry: config.telemetry,
    cursorSecret: config.cursorSecret,
    ...(config.credentials ? { credentials: config.credentials } : {}),
    store: config.store,
    logLevel: config.logLevel,
    limits: {
      ...config.limits,
      maxWsFrameBytes: config.limits.maxWsFrameBytes ?? config.limits.maxBodyBytes,
    },
    shutdownGraceMs: config.shutdownGraceMs,
    ...(config.virtualServers ? { virtualServers } : {}),
    ...(config.toolSearch ? { toolSearch: config.toolSearch } : {}),
  };
}

function toIssue(issue: z.core.$ZodIssue): ConfigIssue {
  let path = '$';
  for (const key of issue.path) path = joinPath(path, typeof key === 'number' ? key : String(key));
  let message = issue.message;
  if (issue.code === 'unrecognized_keys')
    message = `unknown key(s) ${issue.keys.map((k) => JSON.stringify(k)).join(', ')}`;
  return { path, message };
}
