import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterEach, expect, it } from 'vitest';
import { Cleanup, httpUpstream, rawInitialize, startGateway, tempDir } from './support/harness.js';

// Bad input through the whole stack: every method the gateway serves, with odd values in each param it
// could read, through the four first-party plugins and the real CLI. Each request must get a JSON-RPC
// answer (a result, or an error with a code and a message that is not an internal error) within a
// bound, and the gateway must keep serving. This is the fuzz run that once found requests the SDK
// dropped unanswered (a malformed `_meta`), kept as a regression test.

const cleanup = new Cleanup();
afterEach(() => cleanup.run());

const METHODS = [
  'resources/list',
  'resources/templates/list',
  'resources/read',
  'resources/subscribe',
  'resources/unsubscribe',
  'completion/complete',
  'logging/setLevel',
  'ping',
];
const KEYS = ['uri', 'cursor', 'ref', 'argument', '_meta', 'level'];
const VALUES: unknown[] = [
  null,
  0,
  -1,
  true,
  '',
  '%zz',
  'docs+',
  'docs+test://docs/r/%2e%2e/r/1',
  '\u0000',
  'x'.repeat(10_000),
  [],
  {},
  [1, 2],
  { uri: 1, type: 'ref/resource', name: 5 },
];
const NOT_OBJECTS: unknown[] = [null, 1, 'x', [], [1]];

interface Answer {
  status: number;
  message: { result?: unknown; error?: { code?: unknown; message?: unknown } } | undefined;
}

it('answers every malformed request with a JSON-RPC error or result, never an internal error, and keeps serving', async () => {
  const docs = await httpUpstream(cleanup, { name: 'docs', resources: 3, templates: 2 });
  const dir = await tempDir(cleanup);
  const audit = join(dir, 'audit.jsonl');
  const gw = await startGateway(cleanup, {
    listen: { http: { host: '127.0.0.1', port: 0, path: '/mcp' } },
    mcpServers: { docs: { url: docs.url } },
    plugins: [
      ['@switchyard/plugin-audit', { file: audit }],
      ['@switchyard/plugin-rate-limit', { perUpstream: { concurrency: 4, maxQueue: 1000 } }],
      [
        '@switchyard/plugin-access',
        { default: 'allow', rules: [{ effect: 'deny', uris: ['docs+test://docs/r/1'] }] },
      ],
      ['@switchyard/plugin-cache', {}],
    ],
  });
  const { sessionId, protocolVersion } = await rawInitialize(gw.url);
  let id = 100;
  const send = async (method: string, params: unknown): Promise<Answer> => {
    const res = await fetch(gw.url, {
      method: 'POST',
      signal: AbortSignal.timeout(10_000), // unanswered: reported as status 0 by the caught rejection below
      headers: {
        'content-type': 'application/json',
        accept: 'application/json, text/event-stream',
        'mcp-session-id': sessionId,
        'mcp-protocol-version': protocolVersion,
      },
      body: JSON.stringify({ jsonrpc: '2.0', id: id++, method, params }),
    });
    const text = await res.text();
    const data = text.startsWith('{') ? text : text.match(/^data: (.*)$/m)?.[1];
    return { status: res.status, message: data ? JSON.parse(data) : undefined };
  };
  const answer = (method: string, params: unknown): Promise<Answer> =>
    send(method, params).catch((error: Error) => ({
      status: 0,
      message: { error: { message: error.name } },
    }));

  const problems: string[] = [];
  const check = (what: string, answer: Answer) => {
    const { status, message } = answer;
    const error = message?.error;
    const answered =
      message?.result !== undefined ||
      (Number.isInteger(error?.code) && typeof error?.message === 'string' && error.message.length > 0);
    if (status === 0 || status >= 500 || !answered || error?.code === -32603) {
      problems.push(`${what} → ${status} ${JSON.stringify(message).slice(0, 200)}`);
    }
  };
  let requests = 0;
  for (const method of METHODS) {
    // One method's cases at a time, concurrently: a request left unanswered costs one timeout, not one each.
    const cases: [string, unknown][] = NOT_OBJECTS.map((params) => [
      `params=${JSON.stringify(params)}`,
      params,
    ]);
    for (const key of KEYS) {
      for (const value of VALUES) {
        const params: Record<string, unknown> = { [key]: value };
        // Give completions a routable ref, so the argument checks are reached too.
        if (method === 'completion/complete' && key !== 'ref') {
          params.ref = { type: 'ref/resource', uri: 'docs+test://docs/items/{id}' };
        }
        cases.push([JSON.stringify(params).slice(0, 80), params]);
      }
    }
    const answers = await Promise.all(cases.map(([, params]) => answer(method, params)));
    for (const [i, a] of answers.entries()) check(`${method} ${cases[i]![0]}`, a);
    requests += cases.length;
  }
  expect(problems).toEqual([]);

  expect(requests).toBe(METHODS.length * (KEYS.length * VALUES.length + NOT_OBJECTS.length));

  // Still serving, plugins included: the audit log still records each answered request.
  const read = await send('resources/read', { uri: 'docs+test://docs/r/0' });
  expect(read.message).toMatchObject({ result: { contents: [{ text: 'resource 0' }] } });
  const lines = (await readFile(audit, 'utf8')).trim().split('\n');
  expect(lines.map((line) => JSON.parse(line)).at(-1)).toMatchObject({
    method: 'resources/read',
    outcome: 'ok',
  });
}, 120_000);
