import { DEFAULT_UPSTREAM_LIMITS, SERVER_NAME_PATTERN } from '@switchyard/core';
import { z } from 'zod';
import { authSchema } from './auth-schema.js';
import { credentialsSchema } from './credentials-schema.js';
import { upstreamAuthSchema } from './upstream-auth-schema.js';

const timeoutMs = z.number().int().positive().max(3_600_000);
const headers = z.record(z.string(), z.string());

/** Keys other MCP hosts put in `mcpServers` entries that Switchyard accepts and ignores. */
const hostKeys = { disabled: z.boolean().optional(), autoApprove: z.array(z.string()).optional() };

/** Globs over the upstream's own tool (or prompt) names: `*` any run of characters, `?` one character. */
const globs = z.array(z.string().min(1, 'must be a non-empty glob'));
const curation = z.strictObject({ allow: globs.optional(), deny: globs.optional() }).optional();

/** What every server entry may say besides how to reach it. */
const exposure = {
  prefix: z.boolean().default(true),
  timeoutMs: timeoutMs.default(30_000),
  tools: curation,
  prompts: curation,
  required: z.boolean().default(false),
};

const stdioServer = z.strictObject({
  type: z.literal('stdio').optional(),
  command: z.string().min(1, 'must be a non-empty command'),
  args: z.array(z.string()).default([]),
  env: z.record(z.string(), z.string()).default({}),
  cwd: z.string().optional(),
  ...exposure,
  ...hostKeys,
});

const remoteServer = z.strictObject({
  type: z.enum(['http', 'streamable-http', 'sse', 'ws']).optional(),
  transport: z.enum(['http', 'streamable-http', 'sse', 'ws']).optional(),
  url: z.string().refine((u) => URL.canParse(u), 'must be an absolute URL'),
  headers: headers.default({}),
  auth: upstreamAuthSchema.optional(),
  ...exposure,
  ...hostKeys,
});

const listener = z.strictObject({
  host: z.string().default('127.0.0.1'),
  port: z.number().int().min(0).max(65_535).default(7480),
  path: z.string().startsWith('/', 'must start with "/"').default('/mcp'),
  allowedHosts: z.array(z.string()).default([]),
  allowedOrigins: z.array(z.string()).default([]),
});

/** `listen.admin`: health probes, the status page and its JSON (DESIGN §10). */
const adminListener = z.strictObject({
  host: z.string().default('127.0.0.1'),
  port: z.number().int().min(0).max(65_535).default(7482),
  groups: z.array(z.string().min(1)).default(['admins']),
  allowedHosts: z.array(z.string()).default([]),
  allowedOrigins: z.array(z.string()).default([]),
});

export type AdminListenerConfig = z.infer<typeof adminListener>;

const count = z.number().int().positive();
/** The largest `limits.maxJsonDepth` accepted. */
const MAX_JSON_DEPTH_CEILING = 1_000;
/** `limits` (DESIGN §10): every key optional, the defaults are safe for one process. */
const limits = z
  .strictObject({
    sessions: count.default(10_000),
    sessionsPerClient: count.default(1_000),
    maxBodyBytes: count.default(4 * 1024 * 1024),
    concurrentPerSession: count.default(64),
    idleSessionMs: count.max(2 ** 31 - 1).default(1_800_000),
    maxWsFrameBytes: count.optional(),
    maxResultBytes: count.default(DEFAULT_UPSTREAM_LIMITS.maxResultBytes),
    maxPagesPerList: count.default(DEFAULT_UPSTREAM_LIMITS.maxPagesPerList),
    // Past ~1,000 levels the SDK's schema validation may overflow the stack: the bound would not protect.
    maxJsonDepth: count.max(MAX_JSON_DEPTH_CEILING).default(DEFAULT_UPSTREAM_LIMITS.maxJsonDepth),
  })
  .prefault({});

/**
 * `toolSearch` (DESIGN §13), top level or per virtual server: writing the object turns search on unless it
 * says `"enabled": false`.
 */
const toolSearch = z.strictObject({
  enabled: z.boolean().default(true),
  limit: z.number().int().min(1).max(20).default(5),
  alwaysList: z.array(z.string().min(1, 'must be an exposed tool name')).default([]),
});

/** Virtual server names become a path segment (`/mcp/<name>`): lower-case letters, digits and dashes. */
export const VIRTUAL_SERVER_NAME = /^[a-z0-9][a-z0-9-]*$/;

/** `virtualServers.<name>` (DESIGN §13): an endpoint exposing part of the catalog. */
/** One `plugins` entry: `["<package or path>"]` or `["<package or path>", { options }]`. */
const pluginSpecifier = z.string().min(1, 'name the plugin: its package name or a path to its module');
const pluginEntry = z.union(
  [z.tuple([pluginSpecifier, z.record(z.string(), z.unknown())]), z.tuple([pluginSpecifier])],
  { error: 'each plugin is ["<package or path>"] or ["<package or path>", { options }]' },
);

const virtualServer = z.strictObject({
  servers: z
    .array(z.string().min(1, 'must be a server name or a glob'))
    .min(1, 'name at least one server (or "*" for every one)'),
  tools: curation,
  prompts: curation,
  resources: curation,
  toolSearch: toolSearch.optional(),
});

type ServerEntry = z.infer<typeof stdioServer> | z.infer<typeof remoteServer>;

export const configSchema = z.strictObject({
  $schema: z.string().optional(),
  listen: z
    .strictObject({
      stdio: z.boolean().default(false),
      http: listener
        .extend({
          /**
           * Where the other replicas reach this listener (DESIGN §12), e.g. `http://10.0.3.7:7480`; default
           * the bound address, or the machine's first non-loopback IPv4 when bound to a wildcard address.
           */
          advertise: z
            .string()
            .refine((u) => URL.canParse(u) && new URL(u).protocol === 'http:', 'must be an http:// URL')
            .optional(),
        })
        .optional(),
      ws: listener.extend({ port: z.number().int().min(0).max(65_535).default(7481) }).optional(),
      admin: adminListener.optional(),
    })
    .optional(),
  mcpServers: z.record(z.string(), z.unknown()).transform((servers, ctx) => {
    // Each entry is validated against the one shape it claims ("url" → remote, otherwise stdio), so
    // errors point at the offending key instead of a generic union failure.
    const out: Record<string, ServerEntry> = {};
    for (const [name, entry] of Object.entries(servers)) {
      if (!SERVER_NAME_PATTERN.test(name)) {
        ctx.addIssue({ code: 'custom', path: [name], message: 'server names must match ^[a-z][a-z0-9-]*$' });
        continue;
      }
      const isRemote = typeof entry === 'object' && entry !== null && 'url' in entry;
      const parsed = (isRemote ? remoteServer : stdioServer).safeParse(entry);
      if (parsed.success) {
        out[name] = parsed.data;
        continue;
      }
      for (const issue of parsed.error.issues) {
        const missingCommand =
          !isRemote &&
          issue.path.length === 1 &&
          issue.path[0] === 'command' &&
          issue.code === 'invalid_type';
        ctx.addIssue({
          code: 'custom',
          path: missingCommand ? [name] : [name, ...issue.path],
          message: missingCommand
            ? 'each server needs either "command" (stdio) or "url" (Streamable HTTP or SSE)'
            : issue.code === 'unrecognized_keys'
              ? `unknown key(s) ${issue.keys.map((k) => JSON.stringify(k)).join(', ')}`
              : issue.message,
        });
      }
    }
    return out;
  }),
  plugins: z.array(pluginEntry).default([]),
  virtualServers: z
    .record(
      z.string().regex(VIRTUAL_SERVER_NAME, 'virtual server names must match ^[a-z0-9][a-z0-9-]*$'),
      virtualServer,
    )
    .optional(),
  toolSearch: toolSearch.optional(),
  clients: z
    .record(
      z.string().regex(/^\S+$/, 'client names must be non-empty and contain no whitespace'),
      z.strictObject({
        token: z.string().min(1, 'must be a non-empty token (is the variable it reads set?)'),
        groups: z.array(z.string().min(1)).default([]),
      }),
    )
    .optional(),
  anonymous: z.string().regex(/^\S+$/, 'must be a non-empty identity name without whitespace').optional(),
  auth: authSchema.optional(),
  telemetry: z
    .strictObject({
      serviceName: z.string().min(1).default('switchyard'),
      otlp: z
        .strictObject({
          endpoint: z.string().refine((u) => URL.canParse(u), 'must be an absolute URL'),
          headers: headers.default({}),
          exportIntervalMs: z.number().int().positive().default(10_000),
        })
        .optional(),
      prometheus: z
        .strictObject({
          host: z.string().default('127.0.0.1'),
          port: z.number().int().min(0).max(65_535).default(9464),
          path: z.string().startsWith('/', 'must start with "/"').default('/metrics'),
        })
        .optional(),
    })
    .optional(),
  cursorSecret: z.string().optional(),
  credentials: credentialsSchema.optional(),
  store: z
    .strictObject({
      redis: z
        .strictObject({
          url: z
            .string()
            .refine(
              (u) => URL.canParse(u) && ['redis:', 'rediss:'].includes(new URL(u).protocol),
              'must be a redis:// or rediss:// URL (is the variable it reads set?)',
            ),
          keyPrefix: z.string().default('switchyard:'),
          onUnavailable: z.enum(['local', 'refuse']).default('local'),
          commandTimeoutMs: z.number().int().positive().max(60_000).default(1000),
        })
        .optional(),
    })
    .optional(),
  limits,
  shutdownGraceMs: z.number().int().nonnegative().max(3_600_000).default(10_000),
  logLevel: z.enum(['debug', 'info', 'warn', 'error']).optional(),
});

export type RawConfig = z.infer<typeof configSchema>;
