/**
 * The timed request loops of the paths benchmark: `resources/read` round-robin over the upstream's
 * resources, or `tools/call` round-robin over its echo tools, every answer checked (outside the timing).
 */
import type { RequestClient } from '@switchyard/testkit/mcp';
import { requestLoop, type TimedLoop } from '../rounds.js';
import type { PathMethod } from './model.js';

/** What one side of a path addresses: the upstream's own URIs and tool names, or the gateway's prefixed ones. */
export interface Targets {
  uris: string[];
  /** The names to call, and what the echo tool answers as its own name for each. */
  tools: string[];
  upstreamTools: string[];
}

/**
 * The targets of upstream `name` (testkit resources `test://<name>/r/<i>`, tools `tool_<k>`), directly or
 * through the gateway (URIs `<name>+<uri>`, tools `<name>__tool_<k>`).
 */
export function targetsOf(name: string, resources: number, tools: number, viaGateway: boolean): Targets {
  const uris = Array.from({ length: resources }, (_, i) => `test://${name}/r/${i}`);
  const upstreamTools = Array.from({ length: tools }, (_, k) => `tool_${k}`);
  return {
    uris: viaGateway ? uris.map((u) => `${name}+${u}`) : uris,
    tools: viaGateway ? upstreamTools.map((t) => `${name}__${t}`) : upstreamTools,
    upstreamTools,
  };
}

/** Throws unless `result` is the read of `uri`: one text content of that URI, at least `minChars` long. */
export function checkRead(uri: string, result: Record<string, unknown>, minChars: number): void {
  const contents = result.contents as { uri?: string; text?: string }[] | undefined;
  const content = contents?.[0];
  if (contents?.length !== 1 || content?.uri !== uri || typeof content.text !== 'string') {
    throw new Error(`unexpected resources/read result for ${uri}: ${JSON.stringify(result).slice(0, 300)}`);
  }
  if (content.text.length < minChars) {
    throw new Error(`resources/read ${uri}: ${content.text.length} chars, expected ≥ ${minChars}`);
  }
}

/** Throws unless `result` is the echo tool `tool`'s answer to `args` (as structuredContent). */
export function checkCall(
  tool: string,
  args: Record<string, unknown>,
  result: Record<string, unknown>,
): void {
  const expected = JSON.stringify({ tool, arguments: args });
  if (result.isError === true || JSON.stringify(result.structuredContent) !== expected) {
    throw new Error(
      `tools/call ${tool}: wrong result ${JSON.stringify(result).slice(0, 300)}; expected ${expected}`,
    );
  }
}

/** A text argument of `bytes` characters. */
export function filler(bytes: number): string {
  return 'lorem ipsum dolor sit amet '.repeat(Math.ceil(bytes / 27)).slice(0, bytes);
}

/** Runs `count` checked requests of `method` on `client` at `concurrency`. */
export function pathLoop(
  client: RequestClient,
  method: PathMethod,
  targets: Targets,
  options: { count: number; concurrency: number; minChars: number; text: string },
): Promise<TimedLoop> {
  const { count, concurrency } = options;
  if (method === 'read') {
    const { uris } = targets;
    return requestLoop(
      count,
      concurrency,
      (i) => client.request({ method: 'resources/read', params: { uri: uris[i % uris.length]! } }),
      (i, result) => checkRead(uris[i % uris.length]!, result, options.minChars),
    );
  }
  const { tools, upstreamTools } = targets;
  return requestLoop(
    count,
    concurrency,
    (i) =>
      client.request({
        method: 'tools/call',
        params: { name: tools[i % tools.length]!, arguments: { text: options.text, seq: i } },
      }),
    (i, result) => checkCall(upstreamTools[i % tools.length]!, { text: options.text, seq: i }, result),
  );
}
