import type { Adapter, AdapterFactory, AdapterPayload } from 'oidc-provider';

// oidc-provider's storage, in memory and private to one authorization server (the built-in adapter shares
// one process-wide store between providers). It can also resolve unknown client ids itself, which is how
// the test authorization server accepts Client ID Metadata Documents served over plain http on loopback.

/** Looks up a client oidc-provider does not know (undefined: `invalid_client`). */
export type ClientResolver = (clientId: string) => Promise<AdapterPayload | undefined>;

interface Entry {
  payload: AdapterPayload;
  expiresAt?: number;
}

/** An adapter factory whose models share one in-memory store; `resolveClient` answers unknown client ids. */
export function memoryAdapter(resolveClient?: ClientResolver): AdapterFactory {
  const entries = new Map<string, Entry>();
  /** Secondary indexes: (model, grant id), session uid and user code → primary keys. */
  const byGrant = new Map<string, Set<string>>();
  const byIndex = new Map<string, string>();

  const live = (key: string): AdapterPayload | undefined => {
    const entry = entries.get(key);
    if (entry?.expiresAt !== undefined && entry.expiresAt <= Date.now()) {
      entries.delete(key);
      return undefined;
    }
    return entry?.payload;
  };

  return (model: string): Adapter => {
    const key = (id: string) => `${model}:${id}`;
    return {
      async upsert(id, payload, expiresIn) {
        const k = key(id);
        entries.set(k, { payload, expiresAt: expiresIn ? Date.now() + expiresIn * 1000 : undefined });
        if (payload.grantId) {
          const keys = byGrant.get(key(payload.grantId)) ?? new Set<string>();
          byGrant.set(key(payload.grantId), keys.add(k));
        }
        if (payload.uid) byIndex.set(`uid:${payload.uid}`, k);
        if (payload.userCode) byIndex.set(`userCode:${payload.userCode}`, k);
      },
      async find(id) {
        const payload = live(key(id));
        if (payload || model !== 'Client' || !resolveClient) return payload;
        return resolveClient(id);
      },
      async findByUid(uid) {
        const k = byIndex.get(`uid:${uid}`);
        return k === undefined ? undefined : live(k);
      },
      async findByUserCode(userCode) {
        const k = byIndex.get(`userCode:${userCode}`);
        return k === undefined ? undefined : live(k);
      },
      async consume(id) {
        const payload = live(key(id));
        if (payload) payload.consumed = Math.floor(Date.now() / 1000);
      },
      async destroy(id) {
        entries.delete(key(id));
      },
      async revokeByGrantId(grantId) {
        for (const k of byGrant.get(key(grantId)) ?? []) entries.delete(k);
        byGrant.delete(key(grantId));
      },
    };
  };
}
