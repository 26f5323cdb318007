import type WebSocket from 'ws';

/** The WebSocket subprotocol Switchyard speaks MCP over, in both directions. */
export const MCP_WS_SUBPROTOCOL = 'mcp';
export const DEFAULT_MAX_MESSAGE_BYTES = 16 * 1024 * 1024;
export const KEEP_ALIVE_MS = 20_000;

/** Pings every `intervalMs`; a peer that has not answered the previous ping is terminated. */
export function keepAlive(socket: WebSocket, intervalMs: number): NodeJS.Timeout {
  let alive = true;
  socket.on('pong', () => {
    alive = true;
  });
  const timer = setInterval(() => {
    if (!alive) {
      socket.terminate();
      return;
    }
    alive = false;
    socket.ping();
  }, intervalMs);
  timer.unref();
  socket.once('close', () => clearInterval(timer));
  return timer;
}
