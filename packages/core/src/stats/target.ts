import type { RequestContext } from '../context.js';
import { clipped } from './clip.js';

/**
 * What a request addressed, as the status page and its span record it: the exposed URI, tool or prompt
 * name it was routed by, else the URI it carried; clipped (see `clipped`). Read when the request is done,
 * so it is what the plugins left: a credential the secrets plugin redacted in `ctx.params` and
 * `ctx.target` is recorded redacted, whatever the plugin order.
 */
export function requestTarget(ctx: RequestContext): string | undefined {
  const target = ctx.target?.exposed ?? (typeof ctx.params.uri === 'string' ? ctx.params.uri : undefined);
  return target === undefined ? undefined : clipped(target);
}
