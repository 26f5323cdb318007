import { describe, expect, it } from 'vitest';
import { findAdminRoute, type PluginAdminRoute } from '../src/plugins/admin.js';
import { GatewayPort, type LoadedPlugin } from '../src/plugins/host.js';

const route = (method: 'GET' | 'POST', path: string): PluginAdminRoute => ({
  method,
  path,
  handle: () => ({ body: {} }),
});

const plugins: LoadedPlugin[] = [
  {
    name: 'approvals',
    hooks: { admin: { routes: [route('GET', 'approvals'), route('POST', 'approvals/:id')] } },
    port: new GatewayPort(),
  },
];

describe('findAdminRoute', () => {
  it('captures decoded segments, and only the declared ones', () => {
    const { found } = findAdminRoute(plugins, 'POST', 'approvals/a%20b');
    expect(found?.params.id).toBe('a b');
    expect(Object.keys(found!.params)).toEqual(['id']);
    // A capture the route did not declare is absent, whatever it is called.
    for (const name of ['constructor', 'toString', '__proto__', 'hasOwnProperty']) {
      expect(found!.params[name], name).toBeUndefined();
    }
    expect(findAdminRoute(plugins, 'POST', 'approvals/__proto__').found?.params.id).toBe('__proto__');
  });

  it('matches no route with a segment that is not valid percent-encoding (a 404, not a throw)', () => {
    for (const path of ['approvals/%zz', 'approvals/%E0%A4%A', 'approvals/%']) {
      expect(findAdminRoute(plugins, 'POST', path), path).toEqual({ methods: [] });
    }
  });
});
