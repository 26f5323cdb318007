import type { RequestContext } from '../../context.js';
import { NOT_EXPOSED_KEY } from '../../views/not-exposed.js';
import type { CallerTools } from './caller-tools.js';
import { callArguments } from './gateway-tools.js';

/**
 * Turns a `call_tool` request into the `tools/call` of the tool it names, before any plugin sees it: the
 * plugins, the audit record (its target), limits, progress, elicitation and tasks are those of that
 * call. A tool the caller may not use (not in its own `tools/list` on this endpoint) is refused exactly as
 * an unknown name, never called. Throws a GatewayError for malformed arguments.
 */
export async function unwrapCallTool(ctx: RequestContext, callers: CallerTools): Promise<void> {
  const { name, arguments: args } = callArguments(ctx.params.arguments);
  const usable = await callers.of(ctx);
  const { name: _wrapper, arguments: _wrapped, ...rest } = ctx.params;
  ctx.params = { ...rest, name, ...(args === undefined ? {} : { arguments: args }) };
  if (!usable.has(name)) ctx.state.set(NOT_EXPOSED_KEY, true);
}
