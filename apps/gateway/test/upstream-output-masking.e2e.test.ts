import { afterEach, describe, expect, it } from 'vitest';
import { adminGet, startAdminGateway } from './support/admin.js';
import { Cleanup, eventually, loopbackServer } from './support/harness.js';

// What an upstream prints or answers reaches the log and /readyz masked and with its control characters
// escaped (found from outside: a stdio server's stderr lines showed its env secret while lastError showed
// ***, and an SSE upstream's ESC sequences reached the log and /readyz raw).

const cleanup = new Cleanup();
afterEach(() => cleanup.run());

const SECRET = 'ENVSECRET_e2e_4q7w';
const ESC = '\u001b';

/** A server printing its env secret and a colour sequence on stderr, then exiting before any handshake. */
const LEAKY = {
  command: process.execPath,
  args: [
    '-e',
    "process.stderr.write('plain ' + process.env.KIT_SECRET + '\\n\\u001b[31mred\\u001b[0m bell\\u0007\\n'); setTimeout(() => process.exit(3), 50)",
  ],
  env: { KIT_SECRET: SECRET },
  required: true,
  timeoutMs: 3000,
};

/** An SSE upstream refusing its stream with a 401 whose body carries escape sequences. */
async function hostileSse(): Promise<string> {
  const base = await loopbackServer(cleanup, (req, res) => {
    req.resume();
    res.writeHead(401, { 'content-type': 'text/plain' }).end(`denied ${ESC}[31m red ${ESC}]0;title\u0007`);
  });
  return `${base}/sse`;
}

describe("an upstream's own output", () => {
  it('is logged with env values masked and control characters escaped; /readyz shows them escaped', async () => {
    const sse = { url: await hostileSse(), transport: 'sse', required: true, timeoutMs: 3000 };
    const { gw, admin } = await startAdminGateway(
      cleanup,
      { mcpServers: { leaky: LEAKY, sse } },
      { env: { KIT_SECRET: SECRET } },
    );
    const upstreams = await eventually(async () => {
      const { json } = await adminGet(admin, '/readyz');
      const listed = (json.upstreams ?? []) as { name: string; lastError?: string }[];
      return listed.filter((u) => u.lastError).length === 2 && listed;
    }, 'both upstreams failed in /readyz');
    const lastError = Object.fromEntries(upstreams.map((u) => [u.name, u.lastError!]));
    expect(lastError.sse).toContain('denied \\u001b[31m red \\u001b]0;title\\u0007');
    expect(lastError.leaky).toContain('plain ***');
    await gw.waitForLine(/upstream:leaky\].*plain \*\*\*.*stream="stderr"/);
    await gw.waitForLine(/upstream:leaky\].*\\u001b\[31mred/);
    await gw.waitForLine(/upstream:sse\].*denied \\u001b\[31m/);
    for (const text of [gw.stderr(), JSON.stringify(upstreams)]) expect(text).not.toContain(SECRET);
    expect(gw.stderr()).not.toContain(ESC);
    expect(gw.stderr()).not.toContain('\u0007');
    for (const text of Object.values(lastError)) expect(text).not.toContain(ESC);
  });
});
