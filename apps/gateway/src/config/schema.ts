import { SERVER_NAME_PATTERN } from '@switchyard/core';
import { z } from 'zod';

const timeoutMs = z.number().int().positive().max(3_600_000);
const headers = z.record(z.string(), z.string());

/** Keys other MCP hosts put in `mcpServers` entries that Switchyard accepts and ignores. */
const hostKeys = { disabled: z.boolean().optional(), autoApprove: z.array(z.string()).optional() };

const stdioServer = z.strictObject({
  type: z.literal('stdio').optional(),
  command: z.string().min(1, 'must be a non-empty command'),
  args: z.array(z.string()).default([]),
  env: z.record(z.string(), z.string()).default({}),
  cwd: z.string().optional(),
  prefix: z.boolean().default(true),
  timeoutMs: timeoutMs.default(30_000),
  ...hostKeys,
});

const remoteServer = z.strictObject({
  type: z.enum(['http', 'streamable-http', 'sse', 'ws']).optional(),
  transport: z.enum(['http', 'streamable-http', 'sse', 'ws']).optional(),
  url: z.string().refine((u) => URL.canParse(u), 'must be an absolute URL'),
  headers: headers.default({}),
  prefix: z.boolean().default(true),
  timeoutMs: timeoutMs.default(30_000),
  ...hostKeys,
});

const listener = z.strictObject({
  host: z.string().default('127.0.0.1'),
  port: z.number().int().min(0).max(65_535).default(7480),
  path: z.string().startsWith('/', 'must start with "/"').default('/mcp'),
  allowedHosts: z.array(z.string()).default([]),
  allowedOrigins: z.array(z.string()).default([]),
});

export const configSchema = z.strictObject({
  $schema: z.string().optional(),
  listen: z
    .strictObject({
      stdio: z.boolean().default(false),
      http: listener.optional(),
      ws: listener.optional(),
    })
    .optional(),
  mcpServers: z.record(
    z.string().regex(SERVER_NAME_PATTERN, 'server names must match ^[a-z][a-z0-9-]*$'),
    z.union([stdioServer, remoteServer], {
      error: 'each server needs either "command" (stdio) or "url" (Streamable HTTP, SSE or WebSocket)',
    }),
  ),
  plugins: z
    .array(z.tuple([z.string(), z.record(z.string(), z.unknown())]).or(z.tuple([z.string()])))
    .default([]),
  clients: z
    .record(z.string(), z.strictObject({ token: z.string().min(1), groups: z.array(z.string()).default([]) }))
    .optional(),
  anonymous: z.string().optional(),
  cursorSecret: z.string().optional(),
  logLevel: z.enum(['debug', 'info', 'warn', 'error']).optional(),
});

export type RawConfig = z.infer<typeof configSchema>;
