/**
 * The few bytes of RESP (the Redis wire protocol) the bench needs to read Redis's own numbers
 * (`INFO memory`, `DBSIZE`, `SCAN`) without a client library: encode a command, parse one reply.
 * Pure functions, no I/O (see redis-probe.ts for the socket).
 */

/** A parsed RESP2 reply: simple string or bulk string (null for a nil bulk), integer, or array. */
export type RespValue = string | number | null | RespValue[];

/** A reply Redis answered with an error (`-ERR …`). */
export class RespError extends Error {}

/** Encodes one command as a RESP array of bulk strings, e.g. `['INFO', 'memory']`. */
export function encodeCommand(args: readonly string[]): Buffer {
  const parts = [`*${args.length}\r\n`];
  for (const arg of args) parts.push(`$${Buffer.byteLength(arg)}\r\n${arg}\r\n`);
  return Buffer.from(parts.join(''), 'utf8');
}

/** The reply at the start of `buffer` and how many bytes it took, or undefined while it is incomplete. */
export function parseReply(buffer: Buffer, offset = 0): { value: RespValue; end: number } | undefined {
  const lineEnd = buffer.indexOf('\r\n', offset);
  if (lineEnd < 0) return undefined;
  const type = String.fromCharCode(buffer[offset]!);
  const line = buffer.toString('utf8', offset + 1, lineEnd);
  const next = lineEnd + 2;
  switch (type) {
    case '+':
      return { value: line, end: next };
    case '-':
      throw new RespError(line);
    case ':':
      return { value: Number(line), end: next };
    case '$': {
      const length = Number(line);
      if (length < 0) return { value: null, end: next };
      if (buffer.length < next + length + 2) return undefined;
      return { value: buffer.toString('utf8', next, next + length), end: next + length + 2 };
    }
    case '*': {
      const count = Number(line);
      if (count < 0) return { value: null, end: next };
      const items: RespValue[] = [];
      let at = next;
      for (let i = 0; i < count; i++) {
        const item = parseReply(buffer, at);
        if (!item) return undefined;
        items.push(item.value);
        at = item.end;
      }
      return { value: items, end: at };
    }
    default:
      throw new RespError(`not a RESP reply (type byte ${JSON.stringify(type)})`);
  }
}

/** The `field:value` lines of an `INFO` reply (section headers and blank lines skipped). */
export function parseInfo(text: string): Record<string, string> {
  const fields: Record<string, string> = {};
  for (const line of text.split(/\r?\n/)) {
    if (line === '' || line.startsWith('#')) continue;
    const colon = line.indexOf(':');
    if (colon > 0) fields[line.slice(0, colon)] = line.slice(colon + 1);
  }
  return fields;
}

/**
 * A key's shape, for counting what kinds of keys a gateway wrote: a `:`-separated segment that looks
 * like a token (16+ base64url characters: sealed ids) becomes `*`, and so do UUIDs, hex runs of 8+
 * characters and digit runs anywhere, e.g. `switchyard:session:QPBfq…` → `switchyard:session:*`.
 */
export function keyShape(key: string): string {
  return key
    .split(':')
    .map((segment) => (/^[A-Za-z0-9_-]{16,}$/.test(segment) ? '*' : segment))
    .join(':')
    .replace(/[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}/gi, '*')
    .replace(/[0-9a-f]{8,}/gi, '*')
    .replace(/\d+/g, '*');
}
