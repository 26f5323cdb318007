import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterEach, describe, expect, it } from 'vitest';
import { adminGet, startAdminGateway } from './support/admin.js';
import { Cleanup, eventually, spawnGateway, writeConfig } from './support/harness.js';

// An OAuth issuer whose token endpoint quotes what it was sent (found from outside: the client secret
// reached /readyz, /admin/status and the log as "… with secret <the secret>"; only `check` masked it).

const cleanup = new Cleanup();
afterEach(() => cleanup.run());

const SECRET = 'CLIENTSECRET_e2e_9f3k';

/** An issuer (client_secret_post) refusing every grant with an `error_description` quoting the form. */
async function echoingIssuer(): Promise<string> {
  const server: Server = createServer((req, res) => {
    let body = '';
    req.on('data', (chunk: Buffer) => {
      body += chunk.toString();
    });
    req.on('end', () => {
      const base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
      if (req.url?.startsWith('/.well-known/')) {
        res.writeHead(200, { 'content-type': 'application/json' }).end(
          JSON.stringify({
            issuer: base,
            authorization_endpoint: `${base}/authorize`,
            token_endpoint: `${base}/token`,
            response_types_supported: ['code'],
            grant_types_supported: ['client_credentials'],
            token_endpoint_auth_methods_supported: ['client_secret_post'],
          }),
        );
        return;
      }
      const form = new URLSearchParams(body);
      res.writeHead(401, { 'content-type': 'application/json' }).end(
        JSON.stringify({
          error: 'invalid_client',
          error_description: `client ${form.get('client_id')} failed with secret ${form.get('client_secret')}`,
        }),
      );
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  cleanup.add(() => new Promise((resolve) => server.close(resolve)));
  return `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
}

describe("an issuer quoting the gateway's client secret", () => {
  it('has it masked in /readyz, /admin/status, the log and `check`', async () => {
    const issuer = await echoingIssuer();
    const config = {
      mcpServers: {
        oa: {
          url: `${issuer}/mcp`,
          required: true,
          timeoutMs: 3000,
          auth: { clientCredentials: { issuer, clientId: 'gw', clientSecret: '${OA_SECRET}' } },
        },
      },
    };
    const env = { OA_SECRET: SECRET };
    const { gw, admin } = await startAdminGateway(cleanup, config, { env });
    const readyz = await eventually(async () => {
      const { json } = await adminGet(admin, '/readyz');
      const text = JSON.stringify(json);
      return text.includes('invalid_client') && text;
    }, 'the issuer refusal in /readyz');
    expect(readyz).toContain('failed with secret ***');
    const status = JSON.stringify((await adminGet(admin, '/admin/status')).json);
    expect(status).toContain('failed with secret ***');
    await gw.waitForLine(/upstream:oa\].*invalid_client/);
    for (const text of [readyz, status, gw.stderr()]) expect(text).not.toContain(SECRET);

    const checked = spawnGateway(cleanup, ['check', '--config', await writeConfig(cleanup, config)], { env });
    expect(await checked.exited).toBe(1);
    expect(checked.stdout()).toContain('failed with secret ***');
    expect(`${checked.stdout()}${checked.stderr()}`).not.toContain(SECRET);
  });
});
