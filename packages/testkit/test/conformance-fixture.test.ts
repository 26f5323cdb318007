import { request as httpRequest } from 'node:http';
import { Client, StreamableHTTPClientTransport } from '@modelcontextprotocol/client';
import { afterEach, describe, expect, it } from 'vitest';
import { FixtureState, startConformanceHttp } from '../src/conformance/index.js';
import { Cleanup } from '../src/test-support.js';

const cleanup = new Cleanup();
afterEach(() => cleanup.run());

type Era = 'legacy' | 'modern';

/** A client declaring sampling, elicitation and roots, answering each; `modern` pins 2026-07-28. */
function answeringClient(era: Era): Client {
  const client = new Client(
    { name: 'fixture-test', version: '1.0.0' },
    {
      capabilities: { sampling: {}, elicitation: { form: {} }, roots: {} },
      ...(era === 'modern' ? { versionNegotiation: { mode: { pin: '2026-07-28' } } } : {}),
    },
  );
  client.setRequestHandler('sampling/createMessage', () => ({
    role: 'assistant',
    content: { type: 'text', text: 'Paris' },
    model: 'test-model',
  }));
  client.setRequestHandler('elicitation/create', (request) => {
    const props = Object.keys(
      (request.params as { requestedSchema?: { properties?: object } }).requestedSchema?.properties ?? {},
    );
    return { action: 'accept', content: Object.fromEntries(props.map((p) => [p, `my ${p}`])) };
  });
  client.setRequestHandler('roots/list', () => ({ roots: [{ uri: 'file:///project', name: 'project' }] }));
  return client;
}

async function fixtureUrl(): Promise<string> {
  const http = await startConformanceHttp(new FixtureState());
  cleanup.add(() => http.close());
  return http.url;
}

async function connect(era: Era, url: string): Promise<Client> {
  const client = answeringClient(era);
  const transport = new StreamableHTTPClientTransport(new URL(url));
  await client.connect(transport);
  cleanup.add(async () => {
    if (era === 'legacy') await transport.terminateSession().catch(() => undefined);
    await client.close();
  });
  return client;
}

function textOf(result: unknown): string {
  const content = (result as { content?: { type: string; text?: string }[] }).content ?? [];
  return content.map((c) => c.text ?? `<${c.type}>`).join(' ');
}

describe.each<Era>(['legacy', 'modern'])('conformance fixture over HTTP, %s era', (era) => {
  it('lists the scenario tools, prompts and resources', async () => {
    const client = await connect(era, await fixtureUrl());
    const tools = (await client.listTools()).tools.map((t) => t.name);
    expect(tools[0]).toBe('test_simple_text');
    expect(tools).toEqual(
      expect.arrayContaining([
        'test_sampling',
        'json_schema_2020_12_tool',
        'test_input_required_result_multi_round',
      ]),
    );
    const prompts = (await client.listPrompts()).prompts.map((p) => p.name);
    expect(prompts).toEqual(expect.arrayContaining(['test_simple_prompt', 'test_prompt_with_arguments']));
    const read = await client.readResource({ uri: 'test://template/7/data' });
    expect(read.contents[0]).toMatchObject({ uri: 'test://template/7/data', mimeType: 'application/json' });
  });

  it('asks the client for input (a real request on 2025 sessions, input-required rounds on 2026)', async () => {
    const client = await connect(era, await fixtureUrl());
    const sampled = await client.callTool({
      name: 'test_sampling',
      arguments: { prompt: 'Capital of France?' },
    });
    expect(textOf(sampled)).toBe('LLM response: Paris');
    const rounds = await client.callTool({ name: 'test_input_required_result_multi_round', arguments: {} });
    expect(textOf(rounds)).toBe('Done: name=my name, color=my color');
    const prompt = await client.getPrompt({ name: 'test_input_required_result_prompt' });
    expect(prompt.messages[0]?.content).toMatchObject({ text: 'Prompt rendered with context: my context' });
  });
});

interface RpcBody {
  result?: { resultType?: string; requestState?: string; content?: unknown };
  error?: { code: number; message: string };
}

/** One raw 2026-07-28 request to the fixture, returning the HTTP status and the JSON-RPC body. */
async function modernCall(
  url: string,
  params: Record<string, unknown>,
): Promise<{ status: number; body: RpcBody }> {
  const meta = {
    'io.modelcontextprotocol/protocolVersion': '2026-07-28',
    'io.modelcontextprotocol/clientCapabilities': { elicitation: {} },
  };
  const response = await fetch(url, {
    method: 'POST',
    headers: {
      'content-type': 'application/json',
      accept: 'application/json, text/event-stream',
      'mcp-protocol-version': '2026-07-28',
      'mcp-method': 'tools/call',
      'mcp-name': String(params.name),
    },
    body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'tools/call', params: { ...params, _meta: meta } }),
  });
  return { status: response.status, body: (await response.json()) as RpcBody };
}

describe('conformance fixture protections', () => {
  it('refuses a tampered requestState with -32602 and accepts the genuine one', async () => {
    const url = await fixtureUrl();
    const name = 'test_input_required_result_tampered_state';
    const first = await modernCall(url, { name, arguments: {} });
    const state = String(first.body.result?.requestState);
    expect(first.body.result?.resultType).toBe('input_required');
    const answer = { confirm: { action: 'accept', content: { ok: true } } };
    const tampered = await modernCall(url, {
      name,
      arguments: {},
      inputResponses: answer,
      requestState: `${state}x`,
    });
    expect(tampered.body.error?.code).toBe(-32602);
    const genuine = await modernCall(url, {
      name,
      arguments: {},
      inputResponses: answer,
      requestState: state,
    });
    expect(textOf(genuine.body.result)).toBe('state-ok: signature verified');
    expect(genuine.status).toBe(200);
  });

  it('refuses a foreign Host header (DNS rebinding) with 403', async () => {
    const url = new URL(await fixtureUrl());
    const status = await new Promise<number>((resolve, reject) => {
      const req = httpRequest(
        {
          host: url.hostname,
          port: url.port,
          path: url.pathname,
          method: 'POST',
          headers: { host: 'evil.example', 'content-type': 'application/json' },
        },
        (res) => {
          res.resume();
          resolve(res.statusCode ?? 0);
        },
      );
      req.once('error', reject);
      req.end('{}');
    });
    expect(status).toBe(403);
  });
});

describe('conformance fixture over HTTP, 2025 sessions', () => {
  const post = (url: string, body: unknown, headers: Record<string, string> = {}) =>
    fetch(url, {
      method: 'POST',
      headers: {
        'content-type': 'application/json',
        accept: 'application/json, text/event-stream',
        ...headers,
      },
      body: JSON.stringify(body),
    });

  /** Reads an SSE response until `pattern` shows up (bounded), then drops the stream. */
  async function readUntil(res: Response, pattern: RegExp, timeoutMs = 5_000): Promise<string> {
    const reader = res.body!.pipeThrough(new TextDecoderStream()).getReader();
    const timer = setTimeout(() => void reader.cancel(), timeoutMs);
    let text = '';
    try {
      while (!pattern.test(text)) {
        const { value, done } = await reader.read();
        if (done) break;
        text += value;
      }
    } finally {
      clearTimeout(timer);
      await reader.cancel().catch(() => undefined);
    }
    return text;
  }

  it('streams resumable SSE: ids and the retry hint on every stream, replay after Last-Event-ID', async () => {
    const url = await fixtureUrl();
    const protocolVersion = '2025-11-25';
    const init = await post(url, {
      jsonrpc: '2.0',
      id: 1,
      method: 'initialize',
      params: { protocolVersion, capabilities: {}, clientInfo: { name: 'raw', version: '1' } },
    });
    const sessionId = init.headers.get('mcp-session-id')!;
    await init.text();
    const session = { 'mcp-session-id': sessionId, 'mcp-protocol-version': protocolVersion };
    cleanup.add(() => fetch(url, { method: 'DELETE', headers: session }));

    const ping = await (await post(url, { jsonrpc: '2.0', id: 2, method: 'ping' }, session)).text();
    const priming = /^id: (\S+)\nretry: 1000\ndata: $/m.exec(ping);
    expect(priming, ping).not.toBeNull();
    expect(ping).toMatch(/^id: \S+\ndata: \{"result":\{\},"jsonrpc":"2\.0","id":2\}$/m);

    const replay = await fetch(url, {
      headers: { accept: 'text/event-stream', 'last-event-id': priming![1]!, ...session },
    });
    expect(replay.status).toBe(200);
    expect(await readUntil(replay, /"id":2\}/)).toMatch(/"result":\{\},"jsonrpc":"2\.0","id":2\}/);
  });
});
