import type { IncomingMessage, ServerResponse } from 'node:http';
import {
  buildOAuthProtectedResourceMetadata,
  getOAuthProtectedResourceMetadataUrl,
  type OAuthMetadata,
  type OAuthProtectedResourceMetadata,
} from '@modelcontextprotocol/server';
import type { OAuthConfig } from '../config/auth-schema.js';
import { requestPath } from '../listeners/http-io.js';

const WELL_KNOWN = '/.well-known/oauth-protected-resource';

/**
 * The gateway's RFC 9728 Protected Resource Metadata: the document, the URL clients are pointed at
 * (`resource_metadata` in every challenge), and the well-known routes that serve it: path-aware
 * (`/.well-known/oauth-protected-resource/mcp`) and root, as the MCP authorization spec has clients try.
 */
export class ProtectedResource {
  /** Where the document is, as clients reach the gateway (derived from `resource`). */
  readonly metadataUrl: string;
  readonly document: OAuthProtectedResourceMetadata;
  /** The scopes a token must have, advertised in challenges. */
  readonly requiredScopes: readonly string[];
  readonly #body: string;
  readonly #resourcePath: string;

  constructor(config: OAuthConfig) {
    const resource = new URL(config.resource);
    this.metadataUrl = getOAuthProtectedResourceMetadataUrl(resource);
    this.requiredScopes = config.scopes.required;
    const scopes = [...new Set([...config.scopes.required, ...Object.keys(config.scopes.groups)])];
    this.document = {
      // Only `issuer` is read: the document names the authorization server, not its endpoints.
      ...buildOAuthProtectedResourceMetadata({
        oauthMetadata: { issuer: config.issuer } as OAuthMetadata,
        resourceServerUrl: resource,
        scopesSupported: scopes.length > 0 ? scopes : undefined,
        resourceName: 'Switchyard MCP gateway',
      }),
      bearer_methods_supported: ['header'],
    };
    this.#body = JSON.stringify(this.document);
    this.#resourcePath = wellKnownPath(resource.pathname);
  }

  /**
   * Answers `req` when it asks for the metadata: at the path-aware URI of the resource's path or of the
   * listener's path (they differ behind a path-rewriting proxy) or of a virtual server below it, or at the
   * root URI. Returns whether it did.
   */
  serve(req: IncomingMessage, res: ServerResponse, listenerPath: string): boolean {
    const path = (requestPath(req) ?? '').replace(/(.)\/$/, '$1');
    const listener = wellKnownPath(listenerPath);
    // A virtual server (<path>/<name>) is the same protected resource: its path-aware URI answers too.
    const virtual = path.startsWith(`${listener}/`) && !path.slice(listener.length + 1).includes('/');
    if (path !== WELL_KNOWN && path !== this.#resourcePath && path !== listener && !virtual) {
      return false;
    }
    req.resume();
    const cors = { 'access-control-allow-origin': '*' };
    if (req.method === 'OPTIONS') {
      const asked = req.headers['access-control-request-headers'];
      res.writeHead(204, {
        ...cors,
        'access-control-allow-methods': 'GET, HEAD, OPTIONS',
        ...(asked ? { 'access-control-allow-headers': asked } : {}),
      });
      res.end();
    } else if (req.method === 'GET' || req.method === 'HEAD') {
      res.writeHead(200, {
        ...cors,
        'content-type': 'application/json',
        'content-length': Buffer.byteLength(this.#body),
      });
      res.end(req.method === 'HEAD' ? undefined : this.#body);
    } else {
      res.writeHead(405, { ...cors, allow: 'GET, HEAD, OPTIONS', 'content-type': 'application/json' });
      res.end(
        JSON.stringify({ error: 'method_not_allowed', error_description: `${req.method} is not allowed` }),
      );
    }
    return true;
  }

  /** The challenge for a request that carries no token (RFC 6750 §3.1: no error code then). */
  missingTokenChallenge(): string {
    const scope = this.requiredScopes.length > 0 ? `, scope="${quoted(this.requiredScopes.join(' '))}"` : '';
    return `Bearer resource_metadata="${quoted(this.metadataUrl)}"${scope}`;
  }
}

function wellKnownPath(resourcePath: string): string {
  const path = resourcePath.replace(/\/$/, '');
  return `${WELL_KNOWN}${path}`;
}

function quoted(value: string): string {
  return value.replaceAll(/[\\"]/g, '\\$&');
}
