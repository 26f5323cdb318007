import type { UpstreamCredentials } from '../../upstream/auth/upstream-auth.js';

// The `fetch` the SDK's SSE transport is given (`SseClientTransport`): authorized, and one abort signal per POST.

/** `fetch` with the gateway's own `Authorization` for the upstream; a 401 is retried once with a fresh token. */
export function authorizedFetch(credentials: UpstreamCredentials): typeof fetch {
  return (input, init) =>
    credentials.authorize(undefined, {
      send: (authorization) => {
        const headers = new Headers(init?.headers);
        headers.set('authorization', authorization);
        return fetch(input, { ...init, headers });
      },
      status: (res) => res.status,
      discard: (res) => void res.body?.cancel().catch(() => {}),
    });
}

/**
 * The SDK's SSE transport hands one long-lived transport AbortSignal to every POST. Node's fetch keeps a listener on it
 * per request until garbage collection, so a busy upstream piles up thousands of listeners (and a
 * MaxListenersExceeded warning per request, plus a scan over them). Here each POST gets its own signal,
 * linked to the transport's only until its response headers arrive; the GET event stream keeps the
 * transport signal so closing the transport still ends it.
 */
export const fetchWithScopedAbort = async (
  input: Parameters<typeof fetch>[0],
  init?: RequestInit,
  send: typeof fetch = fetch,
): Promise<Response> => {
  const shared = init?.signal;
  if (!shared || init?.method !== 'POST') return send(input, init);
  if (shared.aborted) return send(input, init);
  const own = new AbortController();
  const forward = () => own.abort(shared.reason);
  shared.addEventListener('abort', forward, { once: true });
  try {
    return await send(input, { ...init, signal: own.signal });
  } finally {
    shared.removeEventListener('abort', forward);
  }
};
