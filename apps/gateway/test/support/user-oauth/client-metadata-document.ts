import type { AdapterPayload } from 'oidc-provider';

// Client ID Metadata Documents (draft-ietf-oauth-client-id-metadata-document, MCP SEP-991): a client_id
// that is a URL names a JSON document holding the client's metadata. oidc-provider 9 implements the draft
// (`features.clientIdMetadataDocument`) but only for https client ids fetched from public addresses, so
// tests on http://127.0.0.1 resolve them here instead (see memoryAdapter's `resolveClient`).

const SECRET_AUTH_METHODS = new Set(['client_secret_basic', 'client_secret_post', 'client_secret_jwt']);

/**
 * Fetches `clientId` when it is an http(s) URL and returns its document as client metadata, or undefined
 * (oidc-provider then answers `invalid_client`) when it is not a URL, cannot be fetched, or breaks the
 * draft's rules: its `client_id` must equal the URL and it must not hold or use a shared secret.
 * `onFetch` sees every URL fetched.
 */
export async function fetchClientMetadataDocument(
  clientId: string,
  onFetch?: (url: string) => void,
): Promise<AdapterPayload | undefined> {
  if (!/^https?:\/\/[^/]+\/./.test(clientId)) return undefined;
  onFetch?.(clientId);
  let document: Record<string, unknown>;
  try {
    const res = await fetch(clientId, {
      headers: { accept: 'application/json' },
      redirect: 'manual',
      signal: AbortSignal.timeout(2500),
    });
    if (res.status !== 200) return undefined;
    document = (await res.json()) as Record<string, unknown>;
  } catch {
    return undefined;
  }
  if (typeof document !== 'object' || document === null || Array.isArray(document)) return undefined;
  if (document.client_id !== clientId) return undefined;
  if ('client_secret' in document || 'client_secret_expires_at' in document) return undefined;
  const authMethod = document.token_endpoint_auth_method ?? 'none';
  if (typeof authMethod !== 'string' || SECRET_AUTH_METHODS.has(authMethod)) return undefined;
  return { ...document, token_endpoint_auth_method: authMethod } as AdapterPayload;
}
