#!/usr/bin/env node
// Measures what `limits` do against abuse: RSS per idle legacy HTTP session, 20,000 `initialize`
// requests against the default limits, and a 200 MiB POST. Starts the built gateway (apps/gateway/dist)
// with a stdio testkit upstream; Linux only (reads /proc/<pid>/status). Run after `pnpm build`:
//   node scripts/abuse.mjs [--sessions 2000] [--initializes 20000]
import { spawn } from 'node:child_process';
import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { request } from 'node:http';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';

const root = fileURLToPath(new URL('..', import.meta.url));
const GATEWAY = join(root, 'apps/gateway/dist/cli.js');
const TESTKIT = join(root, 'packages/testkit/dist/cli.js');
const { values } = parseArgs({
  options: {
    sessions: { type: 'string', default: '2000' },
    initializes: { type: 'string', default: '20000' },
  },
});
const MIB = 1024 * 1024;
const INIT = JSON.stringify({
  jsonrpc: '2.0',
  id: 1,
  method: 'initialize',
  params: { protocolVersion: '2025-06-18', capabilities: {}, clientInfo: { name: 'abuse', version: '1' } },
});
const JSON_HEADERS = { 'content-type': 'application/json', accept: 'application/json, text/event-stream' };

async function startGateway(limits) {
  const dir = await mkdtemp(join(tmpdir(), 'switchyard-abuse-'));
  const config = join(dir, 'switchyard.json');
  const mcpServers = { kit: { command: process.execPath, args: [TESTKIT, '--resources', '10'] } };
  await writeFile(config, JSON.stringify({ listen: { http: { port: 0 } }, mcpServers, limits }));
  const proc = spawn(process.execPath, [GATEWAY, '--config', config], {
    stdio: ['ignore', 'ignore', 'pipe'],
  });
  const port = await new Promise((resolve, reject) => {
    let err = '';
    proc.stderr.setEncoding('utf8');
    proc.stderr.on('data', (chunk) => {
      err += chunk;
      const m = /listening on http:\/\/127\.0\.0\.1:(\d+)/.exec(err);
      if (m) resolve(Number(m[1]));
    });
    proc.once('exit', (code) => reject(new Error(`gateway exited ${code}: ${err}`)));
    setTimeout(() => reject(new Error(`gateway did not start: ${err}`)), 15_000).unref();
  }).catch((error) => {
    proc.kill();
    throw error;
  });
  return {
    url: `http://127.0.0.1:${port}/mcp`,
    rss: async () => {
      const status = await readFile(`/proc/${proc.pid}/status`, 'utf8');
      return Number(/VmRSS:\s+(\d+) kB/.exec(status)[1]) / 1024;
    },
    stop: async () => {
      proc.kill('SIGTERM');
      await new Promise((resolve) => (proc.exitCode === null ? proc.once('exit', resolve) : resolve()));
      await rm(dir, { recursive: true, force: true });
    },
  };
}

async function post(url, body, headers = {}) {
  const res = await fetch(url, { method: 'POST', headers: { ...JSON_HEADERS, ...headers }, body });
  await res.arrayBuffer();
  return { status: res.status, sessionId: res.headers.get('mcp-session-id') };
}

async function openSession(url) {
  const init = await post(url, INIT);
  if (init.sessionId) {
    const headers = { 'mcp-session-id': init.sessionId, 'mcp-protocol-version': '2025-06-18' };
    await post(url, JSON.stringify({ jsonrpc: '2.0', method: 'notifications/initialized' }), headers);
  }
  return init;
}

/** Runs `count` tasks, `width` at a time; returns how many ended with each status. */
async function pool(count, width, task) {
  const statuses = {};
  let next = 0;
  await Promise.all(
    Array.from({ length: width }, async () => {
      while (next < count) {
        next += 1;
        const { status } = await task().catch(() => ({ status: 'error' }));
        statuses[status] = (statuses[status] ?? 0) + 1;
      }
    }),
  );
  return statuses;
}

async function stillServing(url) {
  const started = performance.now();
  const s = await openSession(url);
  return { status: s.status, ms: Math.round(performance.now() - started) };
}

/** Sends `bytes` of body (declared, or chunked when `declared` is false); resolves at the answer. */
function hugePost(url, bytes, declared) {
  return new Promise((resolve) => {
    const started = performance.now();
    const headers = { ...JSON_HEADERS, ...(declared ? { 'content-length': String(bytes) } : {}) };
    const req = request(url, { method: 'POST', headers });
    const chunk = Buffer.alloc(MIB, 0x20);
    let sent = 0;
    let answered = false;
    const pump = () => {
      while (!answered && sent < bytes) {
        sent += chunk.length;
        if (!req.write(chunk)) return void req.once('drain', pump);
      }
      if (!answered) req.end();
    };
    req.on('error', () => {});
    req.on('response', (res) => {
      answered = true;
      res.resume();
      res.on('end', () => {
        req.destroy();
        resolve({ status: res.statusCode, ms: Math.round(performance.now() - started), sentMiB: sent / MIB });
      });
    });
    pump();
  });
}

const r1 = (n) => Math.round(n * 10) / 10;

async function idleSessions() {
  const count = Number(values.sessions);
  const gw = await startGateway({ sessions: 100_000, sessionsPerClient: 100_000 });
  try {
    await pool(50, 10, () => openSession(gw.url));
    const before = await gw.rss();
    const statuses = await pool(count, 20, () => openSession(gw.url));
    const after = await gw.rss();
    console.log(`idle legacy HTTP sessions: opened ${count} (${JSON.stringify(statuses)})`);
    console.log(
      `  RSS ${r1(before)} MiB -> ${r1(after)} MiB: ~${r1(((after - before) * 1024) / count)} KiB per session`,
    );
  } finally {
    await gw.stop();
  }
}

async function initializeFlood() {
  const count = Number(values.initializes);
  const gw = await startGateway(undefined);
  try {
    const mine = await openSession(gw.url);
    const before = await gw.rss();
    const started = performance.now();
    const statuses = await pool(count, 50, () => post(gw.url, INIT));
    const seconds = (performance.now() - started) / 1000;
    const after = await gw.rss();
    console.log(`${count} initialize requests, default limits, one (anonymous) client, 50 at a time:`);
    console.log(`  statuses ${JSON.stringify(statuses)} in ${r1(seconds)} s`);
    console.log(`  RSS ${r1(before)} MiB -> ${r1(after)} MiB`);
    const headers = { 'mcp-session-id': mine.sessionId, 'mcp-protocol-version': '2025-06-18' };
    const t0 = performance.now();
    const ping = await post(gw.url, JSON.stringify({ jsonrpc: '2.0', id: 9, method: 'ping' }), headers);
    const ms = Math.round(performance.now() - t0);
    console.log(`  still serving: a ping on a session opened before answers ${ping.status} in ${ms} ms`);
  } finally {
    await gw.stop();
  }
}

async function hugeBodies() {
  const gw = await startGateway(undefined);
  try {
    await stillServing(gw.url);
    const before = await gw.rss();
    const declared = await hugePost(gw.url, 200 * MIB, true);
    const afterDeclared = await gw.rss();
    const chunked = await hugePost(gw.url, 200 * MIB, false);
    const afterChunked = await gw.rss();
    const serving = await stillServing(gw.url);
    console.log('200 MiB POST, default maxBodyBytes (4 MiB):');
    console.log(
      `  Content-Length: ${declared.status} after ${declared.ms} ms (${declared.sentMiB} MiB written by then)`,
    );
    console.log(
      `  chunked:        ${chunked.status} after ${chunked.ms} ms (${chunked.sentMiB} MiB written by then)`,
    );
    console.log(`  RSS ${r1(before)} MiB -> ${r1(afterDeclared)} MiB -> ${r1(afterChunked)} MiB`);
    console.log(`  still serving: initialize answers ${serving.status} in ${serving.ms} ms`);
  } finally {
    await gw.stop();
  }
}

await idleSessions();
await initializeFlood();
await hugeBodies();
