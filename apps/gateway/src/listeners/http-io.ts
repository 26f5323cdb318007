import type { IncomingMessage, ServerResponse } from 'node:http';
import { isLegacyVersion } from '@switchyard/core';

// Reading requests and writing plain JSON answers on node:http, for the HTTP listener.

export const MAX_BODY_BYTES = 4 * 1024 * 1024;

export class BodyTooLarge extends Error {}

export async function readJson(req: IncomingMessage): Promise<unknown> {
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of req) {
    size += (chunk as Buffer).length;
    if (size > MAX_BODY_BYTES) throw new BodyTooLarge('too large');
    chunks.push(chunk as Buffer);
  }
  return JSON.parse(Buffer.concat(chunks).toString('utf8'));
}

export function isInitialize(body: unknown): boolean {
  const messages = Array.isArray(body) ? body : [body];
  return messages.some(
    (m) => typeof m === 'object' && m !== null && (m as { method?: unknown }).method === 'initialize',
  );
}

/** A single message whose envelope (or header) claims a protocol version of the modern era. */
export function claimsModernEra(body: unknown, headerVersion: string | undefined): boolean {
  if (Array.isArray(body) || typeof body !== 'object' || body === null) return false;
  const meta = (body as { params?: { _meta?: Record<string, unknown> } }).params?._meta;
  const claimed = meta?.['io.modelcontextprotocol/protocolVersion'];
  const version = typeof claimed === 'string' ? claimed : headerVersion;
  return version !== undefined && !isLegacyVersion(version);
}

export function accepts(req: IncomingMessage, type: string): boolean {
  const accept = req.headers.accept;
  return accept === undefined || accept.includes(type) || accept.includes('*/*');
}

export function header(req: IncomingMessage, name: string): string | undefined {
  const value = req.headers[name];
  return Array.isArray(value) ? value[0] : value;
}

export function rpcError(code: number, message: string) {
  return { jsonrpc: '2.0', error: { code, message }, id: null };
}

export function sendJson(res: ServerResponse, status: number, body: unknown): void {
  const text = JSON.stringify(body);
  res.writeHead(status, { 'content-type': 'application/json', 'content-length': Buffer.byteLength(text) });
  res.end(text);
}
