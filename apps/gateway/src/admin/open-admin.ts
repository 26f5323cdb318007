/** A host only this machine reaches: the admin listener may be open there without identities. */
export const LOOPBACK_HOST = /^(127\.\d+\.\d+\.\d+|::1|localhost)$/;

/** Why an admin listener on `host` may not be open (no identities configured): said at start and by `check`. */
export function openAdminProblem(host: string): string {
  return `binds ${host} but no identities are configured: bind it to 127.0.0.1, or configure "clients" or "auth.oauth" so the status page needs a token`;
}

/** Whether callers must identify themselves: named clients or OAuth sign-in configured. */
export function identitiesConfigured(config: {
  clients?: Readonly<Record<string, unknown>>;
  auth?: { oauth?: unknown };
}): boolean {
  return Object.keys(config.clients ?? {}).length > 0 || config.auth?.oauth !== undefined;
}
