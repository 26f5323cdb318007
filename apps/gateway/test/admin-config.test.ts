import { describe, expect, it } from 'vitest';
import { ConfigError, parseConfig } from '../src/config/load.js';

// `listen.admin` and the per-server `required` key (DESIGN §3, §10).

const parse = (raw: unknown) => parseConfig(raw, { source: 'test.json', baseDir: '/tmp', env: {} });

describe('admin config', () => {
  it('defaults listen.admin to loopback port 7482 for the admins group', () => {
    const config = parse({
      listen: { http: {}, admin: {} },
      mcpServers: { gh: { url: 'http://127.0.0.1:1/mcp', required: true }, docs: { command: 'x' } },
    });
    expect(config.listen.admin).toEqual({
      host: '127.0.0.1',
      port: 7482,
      groups: ['admins'],
      allowedHosts: [],
      allowedOrigins: [],
    });
    expect(config.upstreams.map((u) => [u.name, u.required === true])).toEqual([
      ['gh', true],
      ['docs', false],
    ]);
  });

  it('refuses an admin listener open beyond loopback without identities, as a start would (check too)', () => {
    // Found from outside: `switchyard check` passed a config the gateway then refused to start.
    const open = { listen: { http: {}, admin: { host: '0.0.0.0' } }, mcpServers: {} };
    expect(() => parse(open)).toThrow(
      /\$\.listen\.admin\.host: binds 0\.0\.0\.0 but no identities are configured/,
    );
    expect(() => parse({ ...open, clients: { ops: { token: 'ops-token-0123456789' } } })).not.toThrow();
    expect(() => parse({ ...open, listen: { http: {}, admin: { host: '::1' } } })).not.toThrow();
  });

  it('refuses unknown admin keys and a non-boolean required, naming the path', () => {
    const error = (() => {
      try {
        parse({
          listen: { http: {}, admin: { path: '/admin' } },
          mcpServers: { gh: { url: 'http://127.0.0.1:1/mcp', required: 'yes' } },
        });
      } catch (e) {
        return e as ConfigError;
      }
    })();
    expect(error).toBeInstanceOf(ConfigError);
    expect(error!.message).toMatch(/\$\.listen\.admin: unknown key\(s\) "path"/);
    expect(error!.message).toMatch(/\$\.mcpServers\.gh\.required/);
  });
});
