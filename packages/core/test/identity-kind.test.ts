import { describe, expect, it } from 'vitest';
import type { Identity } from '../src/context.js';
import { ClientDirectory } from '../src/identity.js';
import { attachSubjectToken } from '../src/identity-credential.js';
import { credentialOwner, identityKind } from '../src/identity-kind.js';

// What personal credentials are kept by (DESIGN §14): an identity's kind as well as its id, so the local
// user, a static client and an OAuth identity of the same name never share an account.

const oauth = (id: string): Identity => {
  const identity = Object.freeze({ id, groups: Object.freeze([]), anonymous: false });
  attachSubjectToken(identity, `access-token-of-${id}`);
  return identity;
};

describe('credentialOwner', () => {
  it('tells the local user, a static client and an OAuth identity of the same id apart', () => {
    const clients = new ClientDirectory({
      clients: { alice: { token: 'alice-token-123' } },
      anonymous: 'alice',
    });
    const local = clients.anonymous;
    const known = clients.authenticate('Bearer alice-token-123');
    if (!known.ok) throw new Error('alice is configured');
    expect([identityKind(local), identityKind(known.identity), identityKind(oauth('alice'))]).toEqual([
      'local',
      'client',
      'oauth',
    ]);
    const owners = [local, known.identity, oauth('alice')].map(credentialOwner);
    expect(new Set(owners).size).toBe(3);
    // The default local user and an OAuth `sub` "anonymous" too.
    expect(credentialOwner(new ClientDirectory().anonymous)).not.toBe(credentialOwner(oauth('anonymous')));
  });

  it('is the same for every token of one OAuth subject, and keeps ids holding `:` apart', () => {
    expect(credentialOwner(oauth('alice'))).toBe(credentialOwner(oauth('alice')));
    const client = (id: string): Identity => ({ id, groups: [], anonymous: false });
    expect(credentialOwner(client('oauth:alice'))).not.toBe(credentialOwner(oauth('alice')));
    expect(credentialOwner(oauth('client:alice'))).not.toBe(credentialOwner(client('alice')));
  });
});
