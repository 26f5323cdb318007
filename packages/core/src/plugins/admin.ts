import type { Identity } from '../context.js';
import type { Logger } from '../logger.js';
import type { LoadedPlugin } from './host.js';

/**
 * What a plugin adds to the admin listener (DESIGN §10): a section of `/admin/status` and endpoints of
 * its own under `/admin/` (e.g. approving a quarantined tool, answering a pending approval). The admin
 * listener authenticates every call to them like `/admin/status`.
 */
export interface PluginAdmin {
  /** A section of `/admin/status`, under `key`, read at each request (the gateway's own keys win). */
  status?: { key: string; read: () => unknown };
  routes?: readonly PluginAdminRoute[];
}

export interface PluginAdminRoute {
  method: 'GET' | 'POST';
  /** Below `/admin/`, segments separated by `/`; `:name` captures one segment (e.g. `approvals/:id`). */
  path: string;
  /**
   * Groups admitted besides `listen.admin.groups` (e.g. an approval rule's approvers); read at each
   * request, so a reload that changes them applies at once.
   */
  groups?: () => readonly string[];
  handle(request: PluginAdminRequest): PluginAdminResponse | Promise<PluginAdminResponse>;
}

export interface PluginAdminRequest {
  /** Who calls (the anonymous identity on a loopback listener without configured identities). */
  identity: Identity;
  /**
   * Whether the caller is an admin (in `listen.admin.groups`, or anyone on a loopback listener without
   * identities), as opposed to admitted by the route's own `groups` only.
   */
  admin: boolean;
  /** The path's `:name` captures. */
  params: Readonly<Record<string, string>>;
  /** The parsed JSON body of a POST (undefined for GET or an empty body). */
  body: unknown;
}

export interface PluginAdminResponse {
  /** Default 200. */
  status?: number;
  /** Sent as JSON. */
  body: unknown;
}

/** A route of the plugins in effect that answers `method` at `path` (below `/admin/`), with its captures. */
export interface FoundAdminRoute {
  plugin: string;
  route: PluginAdminRoute;
  params: Record<string, string>;
}

/**
 * Finds the route for `method` and `path` (e.g. `approvals/3f2a`) among the plugins' routes; `methods`
 * lists the methods some route answers at that path (for a 405), empty when none does (a 404).
 */
export function findAdminRoute(
  plugins: readonly LoadedPlugin[],
  method: string,
  path: string,
): { found?: FoundAdminRoute; methods: string[] } {
  const segments = path.split('/');
  const methods: string[] = [];
  for (const plugin of plugins) {
    for (const route of plugin.hooks.admin?.routes ?? []) {
      const params = match(route.path.split('/'), segments);
      if (!params) continue;
      if (route.method === method)
        return { found: { plugin: plugin.name, route, params }, methods: [method] };
      methods.push(route.method);
    }
  }
  return { methods };
}

/**
 * The captures of `segments` under `pattern`, or undefined when they do not match: a capture that is not
 * valid percent-encoding (`%zz`) matches nothing (a 404), like an unknown path. The captures are the
 * caller's, so they are a null-prototype record: a plugin reading a capture it did not declare finds none.
 */
function match(pattern: string[], segments: string[]): Record<string, string> | undefined {
  if (pattern.length !== segments.length) return undefined;
  const params: Record<string, string> = Object.create(null);
  for (const [i, part] of pattern.entries()) {
    const segment = segments[i]!;
    if (part.startsWith(':')) {
      const value = decodeSegment(segment);
      if (value === undefined || value.length === 0) return undefined;
      params[part.slice(1)] = value;
    } else if (part !== segment) return undefined;
  }
  return params;
}

function decodeSegment(segment: string): string | undefined {
  try {
    return decodeURIComponent(segment);
  } catch {
    return undefined;
  }
}

/** The plugins' sections of `/admin/status`, by key; a section whose `read` throws is left out (logged). */
export function collectAdminStatus(plugins: readonly LoadedPlugin[], log: Logger): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  for (const p of plugins) {
    const section = p.hooks.admin?.status;
    if (!section) continue;
    try {
      out[section.key] = section.read();
    } catch (error) {
      log.debug('plugin admin status failed', { plugin: p.name, error: String(error) });
    }
  }
  return out;
}
