/**
 * The request mix of a session: reads of static and templated resources, tool calls and prompt gets on one
 * upstream each, and merged listings over all of them, each answer checked to be the one asked for.
 */
import type { Client } from '@modelcontextprotocol/client';
import { ALL, type Target } from './ledger.js';
import { CATALOG } from './upstreams.js';

export interface Operation {
  target: Target;
  method: string;
  params: Record<string, unknown>;
  /** Says what is wrong with the result, or undefined when it is the expected one. */
  verify?: (result: Record<string, unknown>) => string | undefined;
  /** A request the misbehaving upstream spoils: the gateway must answer it with this `data.reason`. */
  spoiled?: string;
}

const pick = <T>(items: readonly T[]): T => items[Math.floor(Math.random() * items.length)]!;
const index = (n: number): number => Math.floor(Math.random() * n);

function readOf(upstream: string, uri: string): Operation {
  const exposed = `${upstream}+${uri}`;
  return {
    target: upstream,
    method: 'resources/read',
    params: { uri: exposed },
    verify: (r) => {
      const got = (r.contents as { uri?: unknown }[] | undefined)?.[0]?.uri;
      return got === exposed ? undefined : `read ${exposed} answered contents of ${String(got)}`;
    },
  };
}

function callOf(upstream: string): Operation {
  const tool = `tool_${index(CATALOG.tools)}`;
  return {
    target: upstream,
    method: 'tools/call',
    params: { name: `${upstream}__${tool}`, arguments: { text: 'soak' } },
    verify: (r) => {
      const got = (r.structuredContent as { tool?: unknown } | undefined)?.tool;
      return got === tool ? undefined : `call of ${upstream}__${tool} answered for ${String(got)}`;
    },
  };
}

function promptOf(upstream: string): Operation {
  const prompt = `prompt_${index(CATALOG.prompts)}`;
  return {
    target: upstream,
    method: 'prompts/get',
    params: { name: `${upstream}__${prompt}`, arguments: { topic: 'soak' } },
    verify: (r) => (JSON.stringify(r.messages ?? '').includes(prompt) ? undefined : `no ${prompt} in answer`),
  };
}

const listing = (method: string, field: string): Operation => ({
  target: ALL,
  method,
  params: {},
  verify: (r) => (Array.isArray(r[field]) ? undefined : `${method} without ${field}`),
});

/**
 * A request the misbehaving upstream spoils, and the `data.reason` the gateway must answer it with (or
 * none: the `list_changed` burst is answered, and costs at most a few re-lists).
 */
function spoilerOf(upstream: string, maxResultBytes: number): Operation {
  const call = (tool: string, args: Record<string, unknown>, spoiled?: string): Operation => ({
    target: upstream,
    method: 'tools/call',
    params: { name: `${upstream}__${tool}`, arguments: args },
    spoiled,
  });
  return pick([
    call('non_object_result', {}, 'upstream_invalid_result'),
    call('huge', { bytes: 2 * maxResultBytes }, 'result_too_large'),
    call('http_500', {}, 'upstream_error'),
    call('burst', { count: 200 }),
  ]);
}

/** The misbehaving upstream of the run, and the `limits.maxResultBytes` its huge answers exceed. */
export interface Wild {
  name: string;
  maxResultBytes: number;
}

/**
 * One random operation over the upstreams configured right now; a share goes to the misbehaving upstream
 * (`wild`): the usual requests, which must be answered right through its noise, and requests it spoils.
 */
export function nextOperation(upstreams: readonly string[], wild?: Wild): Operation {
  if (wild && Math.random() < 0.15) {
    return Math.random() < 0.3 ? spoilerOf(wild.name, wild.maxResultBytes) : nextOperation([wild.name]);
  }
  const u = pick(upstreams);
  const roll = Math.random();
  if (roll < 0.3) return readOf(u, `test://${u}/r/${index(CATALOG.resources)}`);
  if (roll < 0.4) return readOf(u, `test://${u}/items/${index(1000)}`);
  if (roll < 0.65) return callOf(u);
  if (roll < 0.8) return promptOf(u);
  if (roll < 0.9) return listing('resources/list', 'resources');
  if (roll < 0.95) return listing('tools/list', 'tools');
  return listing('prompts/list', 'prompts');
}

/** Sends an operation with the given SDK timeout. */
export function send(client: Client, op: Operation, timeoutMs: number): Promise<unknown> {
  return client.request({ method: op.method, params: op.params } as never, { timeout: timeoutMs });
}
