import {
  type Identity,
  type Outcome,
  type PluginGateway,
  type RequestContext,
  silentLogger,
  type UpstreamCall,
} from '@switchyard/core';
import { runUpstreamCall, testRequest } from '@switchyard/core/testing';
import { AccessGuard } from '../src/guard.js';
import type { AccessOptions } from '../src/index.js';
import { AccessPolicy } from '../src/policy.js';

/** A gateway view stub: every name and URI is prefixed with its server (`docs+uri`, `docs__name`). */
export const gatewayView: PluginGateway = {
  upstreams: () => ['docs'],
  route: (uri) => ({ upstream: uri.slice(0, uri.indexOf('+')), uri: uri.slice(uri.indexOf('+') + 1) }),
  tool: () => undefined,
  prompt: () => undefined,
  exposeName: (_kind, upstream, name) => `${upstream}__${name}`,
  completionTarget: () => undefined,
  task: () => undefined,
  prefixed: () => true,
  exposeUri: (upstream, uri) => `${upstream}+${uri}`,
  canSubscribe: () => false,
  watch: () => Promise.reject(new Error('not used')),
};

/** A guard over `options` on `view`, counting what it denies and hides. */
export function guardFor(options: AccessOptions, view: PluginGateway = gatewayView) {
  const counts = { denied: 0, hidden: 0 };
  const guard = new AccessGuard(AccessPolicy.compile(options), view, silentLogger, {
    denied: () => {
      counts.denied += 1;
    },
    hidden: (_method, n) => {
      counts.hidden += n;
    },
  });
  return { guard, counts };
}

/** A request context of `identity` (no transport behind it). */
export function requestOf(
  identity: Identity,
  method: string,
  params: Record<string, unknown>,
  signal: AbortSignal = new AbortController().signal,
): RequestContext {
  return testRequest(method, params, { identity, signal });
}

/**
 * Runs `call` through the guard's upstream-call hook, as the gateway does, in front of an upstream that
 * answers each call reaching it (the first, and each `call.repeat`) with `answer(params)`.
 */
export function throughGuard(
  guard: AccessGuard,
  call: UpstreamCall,
  answer: (params: Record<string, unknown> | undefined) => Promise<Record<string, unknown>>,
): Promise<Outcome> {
  return runUpstreamCall(
    (c, next) => guard.upstreamCall(c, next),
    call,
    (sent) => answer(sent.params),
  );
}
