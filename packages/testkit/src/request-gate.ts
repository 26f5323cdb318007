import type { IncomingMessage, ServerResponse } from 'node:http';

/** What an HTTP listener checks before it serves an MCP request (the control API is never checked). */
export interface RequestGate {
  /**
   * Decides whether an MCP request's credentials (e.g. its bearer token) are accepted; false answers
   * `401` with `WWW-Authenticate: Bearer error="invalid_token"`, as a protected MCP server does. Tests
   * also use it to see the `Authorization` each request carries.
   */
  authorize?: (req: IncomingMessage) => boolean | Promise<boolean>;
}

/** Answers 401 (and returns true) when `gate` refuses the request. */
export async function refuseUnauthorized(
  gate: RequestGate,
  req: IncomingMessage,
  res: ServerResponse,
): Promise<boolean> {
  if (gate.authorize === undefined || (await gate.authorize(req))) return false;
  req.resume();
  res.writeHead(401, { 'www-authenticate': 'Bearer error="invalid_token"' }).end();
  return true;
}
