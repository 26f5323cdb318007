import { describe, expect, it } from 'vitest';
import { ClientDirectory } from '../src/identity.js';

describe('ClientDirectory', () => {
  const clients = { alice: { token: 'alice-secret', groups: ['platform'] }, bob: { token: 'bob-secret' } };

  it('treats everyone as the anonymous identity when no clients are configured', () => {
    const open = new ClientDirectory();
    expect(open.enabled).toBe(false);
    expect(open.authenticate(undefined)).toEqual({
      ok: true,
      identity: { id: 'anonymous', groups: [], anonymous: true },
    });
    expect(open.authenticate('Bearer anything')).toMatchObject({ ok: true, identity: { id: 'anonymous' } });
  });

  it('resolves bearer tokens to clients and their groups, case-insensitively on the scheme', () => {
    const directory = new ClientDirectory({ clients });
    expect(directory.authenticate('Bearer alice-secret')).toEqual({
      ok: true,
      identity: { id: 'alice', groups: ['platform'], anonymous: false },
    });
    expect(directory.authenticate('bearer   bob-secret ')).toMatchObject({
      ok: true,
      identity: { id: 'bob' },
    });
  });

  it('refuses missing, malformed and unknown tokens with 401, without echoing them', () => {
    const directory = new ClientDirectory({ clients });
    for (const header of [
      undefined,
      '',
      'Basic YWxpY2U6eA==',
      'Bearer',
      'Bearer alice-secretX',
      'Bearer a b',
    ]) {
      const result = directory.authenticate(header);
      expect(result.ok).toBe(false);
      if (!result.ok) {
        expect(result.status).toBe(401);
        expect(result.challenge).toMatch(/^Bearer /);
        expect(result.message).not.toContain('alice-secret');
      }
    }
  });

  it('lets tokenless callers in as `anonymous` when it is set, taking the groups of a client it names', () => {
    expect(new ClientDirectory({ clients, anonymous: 'guest' }).authenticate(undefined)).toEqual({
      ok: true,
      identity: { id: 'guest', groups: [], anonymous: true },
    });
    const asAlice = new ClientDirectory({ clients, anonymous: 'alice' });
    expect(asAlice.anonymous).toEqual({ id: 'alice', groups: ['platform'], anonymous: true });
    // A wrong token is a mistake, not anonymity.
    expect(asAlice.authenticate('Bearer nope').ok).toBe(false);
  });

  it('refuses empty and shared tokens at construction, naming clients only', () => {
    expect(() => new ClientDirectory({ clients: { a: { token: '' } } })).toThrow(
      /client 'a' has an empty token/,
    );
    expect(() => new ClientDirectory({ clients: { a: { token: 'same' }, b: { token: 'same' } } })).toThrow(
      /client 'b' has the same token as client 'a'/,
    );
  });
});
