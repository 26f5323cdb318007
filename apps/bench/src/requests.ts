/**
 * The checked request loops every section times: `resources/read` round-robin over a list of URIs, or
 * `tools/call` round-robin over the testkit's echo tools, on any client (the SDK client, or the testkit's
 * raw ones), each request timed with hrtime by `requestLoop` (rounds.ts) and every answer checked outside
 * the timing: a wrong answer throws, which fails the bench.
 */
import type { RequestClient } from '@switchyard/testkit/mcp';
import { REQUEST_OPTIONS } from './client.js';
import { type ListKind, RESOURCES, TOOLS } from './lists.js';
import { type Run, requestLoop, type TimedLoop } from './rounds.js';

/** What a client sends its requests with: the SDK client or one of the testkit's raw clients. */
export type Requester = Pick<RequestClient, 'request'>;

/** What one side of a comparison addresses: the upstream's own URIs and tool names, or the gateway's prefixed ones. */
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
  const ids = (kind: ListKind, n: number, exposed: boolean) =>
    Array.from({ length: n }, (_, i) => kind.direct(name, i)).map((id) =>
      exposed ? kind.expose(name, id) : id,
    );
  return {
    uris: ids(RESOURCES, resources, viaGateway),
    tools: ids(TOOLS, tools, viaGateway),
    upstreamTools: ids(TOOLS, tools, false),
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

/**
 * Throws unless `result` is the echo tool `tool`'s answer to `args`: `{ tool, arguments }` as
 * `structuredContent` and as its one text content, so a call answered by the wrong tool, with the wrong
 * arguments or for another request (the arguments carry its sequence number) fails.
 */
export function checkCall(
  tool: string,
  args: Record<string, unknown>,
  result: Record<string, unknown>,
): void {
  const expected = JSON.stringify({ tool, arguments: args });
  const content = result.content as { type?: string; text?: string }[] | undefined;
  const ok =
    result.isError !== true &&
    JSON.stringify(result.structuredContent) === expected &&
    content?.length === 1 &&
    content[0]?.type === 'text' &&
    content[0].text === expected;
  if (!ok) {
    throw new Error(
      `tools/call ${tool}: wrong result ${JSON.stringify(result).slice(0, 300)}; ` +
        `expected structuredContent and text ${expected.slice(0, 120)}`,
    );
  }
}

/** A text argument of `bytes` characters. */
export function filler(bytes: number): string {
  return 'lorem ipsum dolor sit amet '.repeat(Math.ceil(bytes / 27)).slice(0, bytes);
}

/** `count` checked reads over `uris` (round-robin) with `concurrency` workers sharing `client`. */
export function readLoop(
  client: Requester,
  uris: readonly string[],
  count: number,
  concurrency: number,
  minChars: number,
): Promise<TimedLoop> {
  return requestLoop(
    count,
    concurrency,
    (i) =>
      client.request({ method: 'resources/read', params: { uri: uris[i % uris.length]! } }, REQUEST_OPTIONS),
    (i, result) => checkRead(uris[i % uris.length]!, result, minChars),
  );
}

/**
 * `count` checked calls over `targets.tools` (round-robin) with `concurrency` workers sharing `client`,
 * each with the arguments `{ text, seq: i }`.
 */
export function callLoop(
  client: Requester,
  targets: Pick<Targets, 'tools' | 'upstreamTools'>,
  text: string,
  count: number,
  concurrency: number,
): Promise<TimedLoop> {
  const { tools, upstreamTools } = targets;
  return requestLoop(
    count,
    concurrency,
    (i) =>
      client.request(
        { method: 'tools/call', params: { name: tools[i % tools.length]!, arguments: { text, seq: i } } },
        REQUEST_OPTIONS,
      ),
    (i, result) => checkCall(upstreamTools[i % tools.length]!, { text, seq: i }, result),
  );
}

/** `count` checked requests of `method` (a read of `targets.uris` or a call of `targets.tools`) at `concurrency`. */
export function methodLoop(
  client: Requester,
  method: 'read' | 'call',
  targets: Targets,
  options: { count: number; concurrency: number; minChars: number; text: string },
): Promise<TimedLoop> {
  const { count, concurrency } = options;
  return method === 'read'
    ? readLoop(client, targets.uris, count, concurrency, options.minChars)
    : callLoop(client, targets, options.text, count, concurrency);
}

/**
 * The upstream's `tools/call` counter (`served`) held to the calls issued, round by round: `before` reads it
 * ahead of a round (rounds.ts `before`), `check` after it (in `after`) adds the round to `totals` and throws,
 * failing the bench, unless the upstream served exactly one call per call issued.
 */
export function callCounter(what: string, served: () => Promise<number>) {
  const totals = { issued: 0, served: 0 };
  return {
    totals,
    before: served,
    async check(run: Run, before: number, issued: number): Promise<void> {
      const calls = (await served()) - before;
      totals.issued += issued;
      totals.served += calls;
      if (calls !== issued) {
        throw new Error(
          `${what} ${run.path} c=${run.concurrency} round ${run.round + 1}: the upstream served ${calls} ` +
            `tools/call for ${issued} calls issued; expected exactly one each`,
        );
      }
    },
  };
}
