// What one request costs the gateway, counted rather than timed: JSON parses and serializations, the
// gateway's source files run on every request, the functions called per request, and the bytes allocated
// (a sampling heap profile, grouped by whose code allocated them). One gateway CLI process with a stdio
// testkit upstream; a legacy Streamable HTTP session and 2026-07-28 stateless requests, each `resources/read`
// and `tools/call`, sequential.
//
//   node scripts/census/run.mjs [--root <checkout with built dist/>] [--requests N]
//
// `--root` measures another checkout (e.g. a worktree of an older commit) with this same script, so
// before and after are counted the same way.
import { spawn } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { KIT_ARGS } from './upstream.mjs';

const args = process.argv.slice(2);
const option = (name, fallback) => {
  const at = args.indexOf(name);
  return at === -1 ? fallback : args[at + 1];
};
const root = resolve(option('--root', fileURLToPath(new URL('../..', import.meta.url))));
const N = Number(option('--requests', '300'));
const WARMUP = 300;

const dir = mkdtempSync(join(tmpdir(), 'census-'));
const config = join(dir, 'switchyard.json');
writeFileSync(
  config,
  JSON.stringify({
    listen: { http: { host: '127.0.0.1', port: 0, path: '/mcp' } },
    mcpServers: {
      kit: {
        command: process.execPath,
        args: [join(root, 'packages/testkit/dist/cli.js'), ...KIT_ARGS],
      },
    },
  }),
);

const agent = fileURLToPath(new URL('./agent.mjs', import.meta.url));
const gateway = spawn(
  process.execPath,
  ['--import', agent, join(root, 'apps/gateway/dist/cli.js'), '--config', config],
  {
    stdio: ['ignore', 'ignore', 'pipe'],
  },
);
const ready = { url: undefined, agent: undefined };
const started = new Promise((resolveStarted, reject) => {
  let text = '';
  const timer = setTimeout(() => reject(new Error(`the gateway did not start: ${text}`)), 20_000);
  gateway.stderr.on('data', (chunk) => {
    text += chunk;
    ready.url ??= /listening on (http:\/\/\S+)/.exec(text)?.[1];
    ready.agent ??= /census agent on (http:\/\/\S+)/.exec(text)?.[1];
    if (ready.url && ready.agent) {
      clearTimeout(timer);
      resolveStarted();
    }
  });
  gateway.once('exit', (code) => reject(new Error(`the gateway exited (${code}): ${text}`)));
});

const MODERN_META = {
  'io.modelcontextprotocol/protocolVersion': '2026-07-28',
  'io.modelcontextprotocol/clientCapabilities': {},
  'io.modelcontextprotocol/clientInfo': { name: 'census', version: '1' },
};
const READ = { method: 'resources/read', params: { uri: 'kit+test://kit/r/0' }, name: 'kit+test://kit/r/0' };
const CALL = {
  method: 'tools/call',
  params: { name: 'kit__tool_0', arguments: { text: 'x'.repeat(64) } },
  name: 'kit__tool_0',
};

let nextId = 1;
async function post(headers, body) {
  const res = await fetch(ready.url, {
    method: 'POST',
    headers: {
      'content-type': 'application/json',
      accept: 'application/json, text/event-stream',
      ...headers,
    },
    body: JSON.stringify(body),
  });
  const text = await res.text();
  if (res.status >= 300) throw new Error(`HTTP ${res.status}: ${text}`);
  return { res, text };
}

async function legacySession() {
  const { res } = await post(
    {},
    {
      jsonrpc: '2.0',
      id: nextId++,
      method: 'initialize',
      params: {
        protocolVersion: '2025-11-25',
        capabilities: {},
        clientInfo: { name: 'census', version: '1' },
      },
    },
  );
  const headers = {
    'mcp-session-id': res.headers.get('mcp-session-id'),
    'mcp-protocol-version': '2025-11-25',
  };
  await post(headers, { jsonrpc: '2.0', method: 'notifications/initialized' });
  return (request) =>
    post(headers, { jsonrpc: '2.0', id: nextId++, method: request.method, params: request.params });
}

function modernClient() {
  return (request) =>
    post(
      { 'mcp-protocol-version': '2026-07-28', 'mcp-method': request.method, 'mcp-name': request.name },
      {
        jsonrpc: '2.0',
        id: nextId++,
        method: request.method,
        params: { ...request.params, _meta: MODERN_META },
      },
    );
}

async function control(path) {
  const res = await fetch(`${ready.agent}${path}`, { method: 'POST' });
  return res.json();
}

const GROUPS = [
  ['gateway', (url) => /\/(packages\/(core|plugin-[a-z-]+)|apps\/gateway)\/dist\//.test(url)],
  ['MCP SDK', (url) => url.includes('@modelcontextprotocol')],
  ['other packages', (url) => url.includes('node_modules')],
  ['node', (url) => url.startsWith('node:') || !url.includes('/')],
];
const groupOf = (url) => GROUPS.find(([, test]) => test(url))?.[0] ?? 'other';

async function census(label, send, request) {
  for (let i = 0; i < WARMUP; i++) await send(request);
  await control('/start');
  for (let i = 0; i < N; i++) await send(request);
  const { json, coverage, heap } = await control('/stop');
  const files = {};
  const calls = {};
  for (const script of coverage) {
    if (script.url.includes('census/agent.mjs') || script.url === '') continue;
    const group = groupOf(script.url);
    const perRequest = script.functions.reduce((sum, f) => sum + f.count, 0) / N;
    calls[group] = (calls[group] ?? 0) + perRequest;
    if (script.functions.some((f) => f.count >= N)) {
      files[group] ??= [];
      files[group].push(script.url);
    }
  }
  const bytes = {};
  for (const [url, size] of Object.entries(heap)) {
    if (url.includes('census/agent.mjs')) continue;
    const group = groupOf(url);
    bytes[group] = (bytes[group] ?? 0) + size / N;
  }
  return {
    label,
    parses: json.parse / N,
    serializations: json.stringify / N,
    files: Object.fromEntries(Object.entries(files).map(([g, list]) => [g, list.length])),
    gatewayFiles: (files.gateway ?? []).map((url) => url.replace(/^.*?\/(packages|apps)\//, '$1/')).sort(),
    calls: Object.fromEntries(Object.entries(calls).map(([g, n]) => [g, Math.round(n)])),
    kib: Object.fromEntries(Object.entries(bytes).map(([g, b]) => [g, Math.round((b / 1024) * 10) / 10])),
  };
}

try {
  await started;
  const legacy = await legacySession();
  const modern = modernClient();
  const results = [
    await census('legacy resources/read', legacy, READ),
    await census('legacy tools/call', legacy, CALL),
    await census('2026-07-28 resources/read', modern, READ),
    await census('2026-07-28 tools/call', modern, CALL),
  ];
  if (args.includes('--json')) console.log(JSON.stringify(results, null, 2));
  else {
    console.log(`census of ${root} (${N} requests each, after ${WARMUP} to warm up; per request)`);
    console.log(
      '| request | JSON.parse | JSON.stringify | gateway files run | gateway fn calls | SDK fn calls | node fn calls | KiB allocated: gateway / SDK / node / other |',
    );
    console.log('|---|---|---|---|---|---|---|---|');
    for (const r of results) {
      const k = (g) => r.kib[g] ?? 0;
      console.log(
        `| ${r.label} | ${r.parses} | ${r.serializations} | ${r.files.gateway ?? 0} | ${r.calls.gateway ?? 0} | ${r.calls['MCP SDK'] ?? 0} | ${r.calls.node ?? 0} | ${k('gateway')} / ${k('MCP SDK')} / ${k('node')} / ${Math.round((k('other packages') + k('other')) * 10) / 10} |`,
      );
    }
    if (args.includes('--files'))
      for (const r of results) console.log(`\n${r.label}:\n  ${r.gatewayFiles.join('\n  ')}`);
  }
} finally {
  gateway.kill('SIGTERM');
  rmSync(dir, { recursive: true, force: true });
}
