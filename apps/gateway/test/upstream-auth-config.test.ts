import { describe, expect, it } from 'vitest';
import { ConfigError, parseConfig } from '../src/config/load.js';

// `mcpServers.*.auth`: how the config names the gateway's own credentials for a remote upstream.

const SECRET = 'shh-client-secret-0b7d';
const env = { GH_SECRET: SECRET };
const client = { issuer: 'https://idp.example.com', clientId: 'switchyard', clientSecret: '${GH_SECRET}' };

function parse(server: Record<string, unknown>) {
  return parseConfig({ mcpServers: { gh: server } }, { source: 'test.json', baseDir: '/', env });
}

function issues(server: Record<string, unknown>) {
  try {
    parse(server);
  } catch (error) {
    expect(error).toBeInstanceOf(ConfigError);
    expect((error as Error).message).not.toContain(SECRET);
    return (error as ConfigError).issues;
  }
  throw new Error('expected a ConfigError');
}

describe('mcpServers.*.auth', () => {
  it('reads client credentials, the secret from the environment, the resource defaulting to the URL', () => {
    const auth = { clientCredentials: { ...client, scope: 'repo:read' } };
    const [upstream] = parse({ url: 'https://gh.example.com/mcp', auth }).upstreams;
    expect(upstream?.transport).toMatchObject({
      kind: 'http',
      auth: {
        kind: 'clientCredentials',
        issuer: 'https://idp.example.com',
        clientId: 'switchyard',
        clientSecret: SECRET,
        scope: 'repo:read',
        resource: 'https://gh.example.com/mcp',
      },
    });
  });

  it('reads token exchange with an audience, and "resource": false sends none', () => {
    const auth = { tokenExchange: { ...client, audience: 'gh-api', resource: false } };
    const [upstream] = parse({ url: 'https://gh.example.com/mcp', auth }).upstreams;
    const resolved = upstream?.transport.kind === 'http' ? upstream.transport.auth : undefined;
    expect(resolved).toMatchObject({ kind: 'tokenExchange', audience: 'gh-api' });
    expect(resolved?.resource).toBeUndefined();
  });

  it('refuses what cannot work, naming the path and never the secret', () => {
    expect(issues({ url: 'https://gh.example.com/mcp', auth: {} })).toEqual([
      { path: '$.mcpServers.gh.auth', message: 'give exactly one of "clientCredentials" or "tokenExchange"' },
    ]);
    expect(
      issues({
        url: 'https://gh.example.com/mcp',
        auth: { clientCredentials: client, tokenExchange: client },
      }),
    ).toEqual([
      { path: '$.mcpServers.gh.auth', message: 'give exactly one of "clientCredentials" or "tokenExchange"' },
    ]);
    expect(
      issues({ url: 'https://gh.example.com/sse', transport: 'sse', auth: { tokenExchange: client } }),
    ).toEqual([
      {
        path: '$.mcpServers.gh.auth.tokenExchange',
        message: expect.stringMatching(/token exchange needs a Streamable HTTP upstream.*not SSE/),
      },
    ]);
    const headers = { Authorization: `Bearer ${SECRET}` };
    expect(
      issues({ url: 'https://gh.example.com/mcp', headers, auth: { clientCredentials: client } }),
    ).toEqual([
      { path: '$.mcpServers.gh.headers', message: expect.stringMatching(/cannot be combined with "auth"/) },
    ]);
    const plain = { ...client, issuer: 'http://idp.example.com' };
    expect(issues({ url: 'https://gh.example.com/mcp', auth: { clientCredentials: plain } })).toEqual([
      {
        path: '$.mcpServers.gh.auth.clientCredentials.issuer',
        message: expect.stringMatching(/must use https:/),
      },
    ]);
    expect(
      issues({ url: 'https://gh.example.com/mcp', auth: { clientCredentials: { ...client, secret: 'x' } } }),
    ).toEqual([{ path: '$.mcpServers.gh.auth.clientCredentials', message: 'unknown key(s) "secret"' }]);
  });
});
