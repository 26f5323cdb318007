import { randomBytes } from 'node:crypto';
import { mkdir, readFile, rename, rm, writeFile } from 'node:fs/promises';
import { basename, dirname, join } from 'node:path';
import { z } from 'zod';
import { DIGEST_PATTERN, type Digest, type PinKind } from './digest.js';

/** One server's pins: its `instructions`, and each tool and prompt by the name the server itself gives it. */
export interface ServerPins {
  instructions?: Digest;
  tools: Record<string, Digest>;
  prompts: Record<string, Digest>;
}

/** The lock file (DESIGN §8): `{ "version": 1, "servers": { "<server>": ServerPins } }`. */
export interface LockFile {
  version: 1;
  servers: Record<string, ServerPins>;
}

const digest = z.string().regex(DIGEST_PATTERN, { error: 'expected "sha256:" and 64 lowercase hex digits' });
const pins = z.record(z.string(), digest).default({});

const lockSchema = z.strictObject({
  version: z.literal(1, { error: 'expected 1 (the only lock file version)' }),
  servers: z.record(
    z.string(),
    z.strictObject({ instructions: digest.optional(), tools: pins, prompts: pins }),
  ),
});

export function emptyLock(): LockFile {
  return { version: 1, servers: {} };
}

/** Parses and validates a lock file's text; throws an Error naming the file and the offending path. */
export function parseLock(text: string, file: string): LockFile {
  let raw: unknown;
  try {
    raw = JSON.parse(text);
  } catch (error) {
    throw new Error(`lock file ${file} is not JSON: ${(error as Error).message}`);
  }
  const parsed = lockSchema.safeParse(raw);
  if (!parsed.success) {
    const issue = parsed.error.issues[0]!;
    const where = issue.path.length > 0 ? `$.${issue.path.join('.')}` : '$';
    throw new Error(`lock file ${file} is invalid at ${where}: ${issue.message}`);
  }
  return { version: 1, servers: ownServers(raw as LockFile, parsed.data as LockFile, file) };
}

/**
 * The validated servers with every pin the file has: zod's records skip a `__proto__` key, and an upstream
 * may name a tool so (the names are the upstreams', not ours). Its digest is checked like the others.
 */
function ownServers(raw: LockFile, parsed: LockFile, file: string): Record<string, ServerPins> {
  const servers: Record<string, ServerPins> = {};
  for (const [server, entry] of Object.entries(parsed.servers)) {
    const source = raw.servers[server]!;
    const pins = (kind: PinKind): Record<string, Digest> => {
      const own = Object.entries(source[kind] ?? {});
      for (const [name, value] of own) {
        if (typeof value !== 'string' || !DIGEST_PATTERN.test(value)) {
          const where = `$.servers.${server}.${kind}.${name}`;
          throw new Error(
            `lock file ${file} is invalid at ${where}: expected "sha256:" and 64 lowercase hex digits`,
          );
        }
      }
      return Object.fromEntries(own);
    };
    servers[server] = { ...entry, tools: pins('tools'), prompts: pins('prompts') };
  }
  return servers;
}

/**
 * The pin of one tool or prompt, by the name its server gives it: only the lock's own entries count, so a
 * tool an upstream names `constructor` or `__proto__` is unpinned until pinned, not Object.prototype's.
 */
export function pinOf(lock: LockFile, server: string, kind: PinKind, name: string): Digest | undefined {
  if (!Object.hasOwn(lock.servers, server)) return undefined;
  const pins = lock.servers[server]![kind];
  return Object.hasOwn(pins, name) ? pins[name] : undefined;
}

/** Reads a lock file: undefined when there is none (trust on first use), else its validated content. */
export async function readLock(file: string): Promise<LockFile | undefined> {
  let text: string;
  try {
    text = await readFile(file, 'utf8');
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return undefined;
    throw error;
  }
  return parseLock(text, file);
}

/**
 * The lock file's text: keys sorted (servers, then names) so that a rewrite changes only the lines of
 * what changed, two-space indented, ending with a newline.
 */
export function serializeLock(lock: LockFile): string {
  const servers: Record<string, ServerPins> = {};
  for (const server of Object.keys(lock.servers).sort()) {
    const entry = lock.servers[server]!;
    servers[server] = {
      ...(entry.instructions === undefined ? {} : { instructions: entry.instructions }),
      tools: sorted(entry.tools),
      prompts: sorted(entry.prompts),
    };
  }
  return `${JSON.stringify({ version: 1, servers }, null, 2)}\n`;
}

function sorted(pins: Record<string, Digest>): Record<string, Digest> {
  return Object.fromEntries(
    Object.keys(pins)
      .sort()
      .map((name) => [name, pins[name]!]),
  );
}

/**
 * Writes a lock file atomically: to a temporary file beside it, then renamed over it, so a reader (the
 * gateway's watch, another replica) sees the old file or the new one, never half of one.
 */
export async function writeLock(file: string, lock: LockFile): Promise<void> {
  const dir = dirname(file);
  await mkdir(dir, { recursive: true });
  const temp = join(dir, `.${basename(file)}.${process.pid}.${randomBytes(4).toString('hex')}.tmp`);
  try {
    await writeFile(temp, serializeLock(lock), { encoding: 'utf8', mode: 0o644 });
    await rename(temp, file);
  } catch (error) {
    await rm(temp, { force: true });
    throw error;
  }
}

/** A copy of `lock` with one pin set. */
export function withPin(lock: LockFile, server: string, kind: PinKind, name: string, pin: Digest): LockFile {
  const entry = lock.servers[server] ?? { tools: {}, prompts: {} };
  return {
    version: 1,
    servers: { ...lock.servers, [server]: { ...entry, [kind]: { ...entry[kind], [name]: pin } } },
  };
}

/**
 * The pins a replica starts with when the shared store has some too (DESIGN §12): the store's entry
 * wins for every server it has; a server only the lock file has keeps the lock file's entry.
 */
export function mergeLocks(local: LockFile | undefined, stored: LockFile): LockFile {
  return { version: 1, servers: { ...(local?.servers ?? {}), ...stored.servers } };
}
