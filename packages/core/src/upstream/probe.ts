import type { Client, ServerCapabilities } from '@modelcontextprotocol/client';
import type { UpstreamConfig } from '../config.js';
import { type ListMethod, type ListPage, walk } from '../listing/walk.js';
import { type Logger, silentLogger } from '../logger.js';
import { prepareAttempt } from './attempt.js';
import { upstreamAuthOf } from './auth/upstream-auth.js';
import type { CallCorrelation } from './correlation.js';
import { errorText } from './errors.js';
import { handshake } from './handshake.js';
import { DEFAULT_UPSTREAM_LIMITS, type UpstreamLimits } from './limits.js';
import { sendRequest } from './send.js';

/** What one upstream exposes, counted over every page; undefined = the upstream does not offer it. */
export interface UpstreamCounts {
  resources?: number;
  resourceTemplates?: number;
  tools?: number;
  prompts?: number;
}

/** What one upstream lists, item by item, as it lists it (with `probeUpstream`'s `definitions` option). */
export interface UpstreamDefinitions {
  tools: Record<string, unknown>[];
  prompts: Record<string, unknown>[];
  /** The server's `instructions` from the handshake, when it gave any. */
  instructions?: string;
}

/** The outcome of connecting once to one upstream and listing everything it exposes. */
export type UpstreamProbe = {
  name: string;
  /** The transport kind from the config (stdio, http, sse, ws). */
  transport: UpstreamConfig['transport']['kind'];
  /** Time from the start of the connection to a completed handshake (or to the failure), in ms. */
  latencyMs: number;
} & (
  | {
      ok: true;
      era: 'modern' | 'legacy';
      protocolVersion: string | undefined;
      server: { name: string; version: string } | undefined;
      counts: UpstreamCounts;
      /** With the `definitions` option: the tools and prompts it listed (e.g. for `switchyard pin`). */
      definitions?: UpstreamDefinitions;
    }
  | { ok: false; error: string }
);

const LISTS = [
  ['resources', 'resources/list', 'resources', 'resources'],
  ['resourceTemplates', 'resources/templates/list', 'resourceTemplates', 'resources'],
  ['tools', 'tools/list', 'tools', 'tools'],
  ['prompts', 'prompts/list', 'prompts', 'prompts'],
] as const;

/**
 * Connects once to `config`'s upstream with the gateway's own connection code (transport, era
 * negotiation, credentials), counts its resources, resource templates, tools and prompts over every
 * page, and disconnects. The whole probe gets the upstream's `timeoutMs`. Never rejects: a failure is
 * an `{ ok: false }` result whose `error` says what went wrong. With `definitions: true` the result
 * also carries the listed tools and prompts themselves, and the server's instructions.
 *
 * @example
 * const probe = await probeUpstream(config);
 * if (probe.ok) console.error(probe.era, probe.counts.tools);
 */
export async function probeUpstream(
  config: UpstreamConfig,
  options: { logger?: Logger; limits?: UpstreamLimits; definitions?: boolean } = {},
): Promise<UpstreamProbe> {
  const limits = options.limits ?? DEFAULT_UPSTREAM_LIMITS;
  const base = { name: config.name, transport: config.transport.kind };
  const log = (options.logger ?? silentLogger).child(config.name);
  const started = performance.now();
  const elapsed = () => Math.round(performance.now() - started);
  let attempt: ReturnType<typeof prepareAttempt>;
  try {
    attempt = prepareAttempt(config, upstreamAuthOf(config), () => {}, log, limits);
  } catch (error) {
    return { ...base, ok: false, latencyMs: elapsed(), error: errorText(error) };
  }
  const { client, correlation, transport } = attempt;
  const deadline = new AbortController();
  let step = 'connecting';
  let latencyMs: number | undefined;
  let timer: NodeJS.Timeout | undefined;
  const timedOut = new Promise<never>((_, reject) => {
    timer = setTimeout(() => {
      deadline.abort();
      reject(new Error(`timed out after ${config.timeoutMs} ms (${step})`));
    }, config.timeoutMs);
  });
  const work = (async () => {
    await handshake(client, transport, { timeoutMs: config.timeoutMs, prior: undefined });
    latencyMs = elapsed();
    const counts: UpstreamCounts = {};
    const definitions: UpstreamDefinitions = { tools: [], prompts: [] };
    const capabilities = client.getServerCapabilities();
    for (const [key, method, field, feature] of LISTS) {
      if (!offers(capabilities, feature)) continue;
      step = `listing ${method}`;
      const pages = {
        timeoutMs: config.timeoutMs,
        signal: deadline.signal,
        maxPages: limits.maxPagesPerList,
      };
      const sink =
        options.definitions && (key === 'tools' || key === 'prompts') ? definitions[key] : undefined;
      counts[key] = await countAll(client, correlation, method, field, pages, sink);
    }
    const instructions = client.getInstructions();
    if (typeof instructions === 'string') definitions.instructions = instructions;
    return { counts, definitions };
  })();
  try {
    const { counts, definitions } = await Promise.race([work, timedOut]);
    return {
      ...base,
      ok: true,
      latencyMs: latencyMs ?? elapsed(),
      era: client.getProtocolEra() ?? 'legacy',
      protocolVersion: client.getNegotiatedProtocolVersion(),
      server: client.getServerVersion(),
      counts,
      ...(options.definitions ? { definitions } : {}),
    };
  } catch (failure) {
    const when = latencyMs === undefined ? 'before its handshake' : `while ${step}`;
    const error = await attempt.explain(failure, when);
    return { ...base, ok: false, latencyMs: latencyMs ?? elapsed(), error: errorText(error) };
  } finally {
    clearTimeout(timer);
    work.catch(() => {}); // after a timeout, whatever it ends with is moot
    await client.close().catch(() => {});
  }
}

function offers(capabilities: ServerCapabilities | undefined, feature: keyof ServerCapabilities): boolean {
  return capabilities?.[feature] !== undefined;
}

async function countAll(
  client: Client,
  correlation: CallCorrelation,
  method: ListMethod,
  field: string,
  { timeoutMs, signal, maxPages }: { timeoutMs: number; signal: AbortSignal; maxPages: number },
  sink?: Record<string, unknown>[],
): Promise<number> {
  let count = 0;
  const list: ListPage = (m, cursor) =>
    sendRequest(client, correlation, m, cursor === undefined ? {} : { cursor }, { signal }, timeoutMs);
  const end = await walk(
    list,
    method,
    (page) => {
      const items = page[field];
      count += Array.isArray(items) ? items.length : 0;
      if (sink && Array.isArray(items)) {
        for (const item of items) {
          if (typeof item === 'object' && item !== null && !Array.isArray(item))
            sink.push(item as Record<string, unknown>);
        }
      }
    },
    maxPages,
  );
  if (end === 'repeated-cursor') throw new Error(`${method} repeated a cursor it had given before`);
  if (end === 'page-limit') {
    throw new Error(`${method} still had more after ${maxPages} pages (limits.maxPagesPerList)`);
  }
  return count;
}
