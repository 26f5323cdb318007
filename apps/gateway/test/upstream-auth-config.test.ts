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
    expect(resolved?.kind === 'tokenExchange' ? resolved.resource : 'personal').toBeUndefined();
  });

  it('refuses what cannot work, naming the path and never the secret', () => {
    expect(issues({ url: 'https://gh.example.com/mcp', auth: {} })).toEqual([
      {
        path: '$.mcpServers.gh.auth',
        message: 'give exactly one of "clientCredentials", "tokenExchange" or "user"',
      },
    ]);
    expect(
      issues({
        url: 'https://gh.example.com/mcp',
        auth: { clientCredentials: client, tokenExchange: client },
      }),
    ).toEqual([
      {
        path: '$.mcpServers.gh.auth',
        message: 'give exactly one of "clientCredentials", "tokenExchange" or "user"',
      },
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

  describe("auth.user: each person's own account (DESIGN §14)", () => {
    const KEY = 'k'.repeat(32);
    const credentials = { key: '${CRED_KEY}', publicUrl: 'https://mcp.example.com/' };
    const listen = { http: { port: 0 } };
    const personalEnv = { ...env, CRED_KEY: KEY };
    function load(server: Record<string, unknown>, top: Record<string, unknown> = { credentials, listen }) {
      return parseConfig(
        { mcpServers: { gh: server }, listen, ...top },
        { source: 't.json', baseDir: '/', env: personalEnv },
      );
    }
    function refusals(server: Record<string, unknown>, top?: Record<string, unknown>) {
      try {
        load(server, top);
      } catch (error) {
        expect((error as Error).message).not.toContain(KEY);
        expect((error as Error).message).not.toContain(SECRET);
        return (error as ConfigError).issues;
      }
      throw new Error('expected a ConfigError');
    }

    it('reads the client, and the vault with its public URL (trailing slash dropped)', () => {
      const config = load({
        url: 'https://gh.example.com/mcp',
        auth: { user: { clientId: 'app', clientSecret: '${GH_SECRET}', scope: 'repo' } },
      });
      expect(config.upstreams[0]?.transport).toMatchObject({
        kind: 'http',
        auth: { kind: 'user', clientId: 'app', clientSecret: SECRET, scope: 'repo' },
      });
      expect(config.credentials).toEqual({
        key: KEY,
        previousKeys: [],
        publicUrl: 'https://mcp.example.com',
      });
      expect(load({ url: 'https://gh.example.com/mcp', auth: { user: {} } }).upstreams).toHaveLength(1);
    });

    it('refuses what cannot work, naming the path and never the key or secret', () => {
      const url = 'https://gh.example.com/mcp';
      expect(refusals({ url, auth: { user: {} } }, { credentials, listen: { stdio: true } })).toEqual([
        {
          path: '$.credentials.publicUrl',
          message: expect.stringMatching(/enable "listen.http" or "listen.admin"/),
        },
      ]);
      expect(refusals({ url, auth: { user: {} } }, {})).toEqual([
        {
          path: '$.credentials',
          message: expect.stringMatching(/"gh" uses "auth.user": configure "credentials"/),
        },
      ]);
      expect(refusals({ url: 'https://gh.example.com/sse', transport: 'sse', auth: { user: {} } })).toEqual([
        {
          path: '$.mcpServers.gh.auth.user',
          message: expect.stringMatching(/needs a Streamable HTTP upstream, not SSE/),
        },
      ]);
      expect(refusals({ url, prefix: false, required: true, auth: { user: {} } })).toEqual([
        { path: '$.mcpServers.gh.prefix', message: expect.stringMatching(/needs the server's prefix/) },
        { path: '$.mcpServers.gh.required', message: expect.stringMatching(/cannot be "required"/) },
      ]);
      expect(refusals({ url, auth: { user: { clientSecret: '${GH_SECRET}' } } })).toEqual([
        { path: '$.mcpServers.gh.auth.user.clientSecret', message: 'a clientSecret needs its "clientId"' },
      ]);
      const short = { credentials: { key: 'short', publicUrl: 'https://mcp.example.com' } };
      expect(refusals({ url, auth: { user: {} } }, short)).toEqual([
        { path: '$.credentials.key', message: expect.stringMatching(/at least 32 characters/) },
      ]);
      const plain = { credentials: { key: KEY, publicUrl: 'http://mcp.example.com' } };
      expect(refusals({ url, auth: { user: {} } }, plain)).toEqual([
        { path: '$.credentials.publicUrl', message: expect.stringMatching(/must be an https:\/\/ URL/) },
      ]);
      const local = { credentials: { key: KEY, publicUrl: 'http://127.0.0.1:8080' } };
      expect(load({ url, auth: { user: {} } }, local).credentials?.publicUrl).toBe('http://127.0.0.1:8080');
    });
  });
});
