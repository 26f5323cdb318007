/**
 * Reads Redis's own numbers over one short-lived TCP connection (RESP, see resp.ts): memory in use,
 * key count, and the shapes of the keys, so the bench needs no Redis client library.
 */
import { connect } from 'node:net';
import { encodeCommand, keyShape, parseInfo, parseReply, type RespValue } from './resp.js';

const TIMEOUT_MS = 5_000;

/** Sends each command in turn on one connection to `url` (`redis://host:port`); resolves with the replies. */
export function redisCommands(url: string, commands: readonly (readonly string[])[]): Promise<RespValue[]> {
  const { hostname, port } = new URL(url);
  return new Promise((resolve, reject) => {
    const socket = connect({ host: hostname, port: Number(port) });
    const replies: RespValue[] = [];
    let pending = Buffer.alloc(0);
    const fail = (error: Error): void => {
      socket.destroy();
      reject(error);
    };
    socket.setTimeout(TIMEOUT_MS, () => fail(new Error(`redis ${url}: no reply within ${TIMEOUT_MS} ms`)));
    socket.once('error', fail);
    socket.once('connect', () => {
      for (const command of commands) socket.write(encodeCommand(command));
    });
    socket.on('data', (chunk: Buffer) => {
      pending = Buffer.concat([pending, chunk]);
      try {
        for (;;) {
          const reply = parseReply(pending);
          if (!reply) break;
          replies.push(reply.value);
          pending = pending.subarray(reply.end);
        }
      } catch (error) {
        return fail(error as Error);
      }
      if (replies.length === commands.length) {
        socket.end();
        resolve(replies);
      }
    });
  });
}

/** Redis's running counters: commands processed since it started, and clients connected now. */
export interface RedisCounters {
  /** `INFO stats` `total_commands_processed` (each probe's own `INFO`s count too: two per call). */
  commands: number;
  /** `INFO clients` `connected_clients` (this probe's connection included). */
  clients: number;
}

/** Commands this probe's own `redisCounters()` call adds to `total_commands_processed`. */
export const PROBE_COMMANDS = 2;

export async function redisCounters(url: string): Promise<RedisCounters> {
  const [stats, clients] = await redisCommands(url, [
    ['INFO', 'stats'],
    ['INFO', 'clients'],
  ]);
  return {
    commands: Number(parseInfo(String(stats)).total_commands_processed),
    clients: Number(parseInfo(String(clients)).connected_clients),
  };
}

/** What Redis holds at one moment. */
export interface RedisSnapshot {
  /** `INFO memory` `used_memory`: bytes allocated by Redis (data, overhead, client buffers). */
  usedMemory: number;
  /** `DBSIZE`: keys in the current database. */
  keys: number;
  /** Keys by shape (`keyShape`), from a full `SCAN`. */
  keyShapes: Record<string, number>;
  /** `MEMORY USAGE` of every key, summed: the bytes the keys and their values take (Redis's estimate). */
  keyBytes: number;
  /** Clients connected, the probe's own connection not counted (the gateways' store connections). */
  clients: number;
}

/** `INFO memory`, `DBSIZE`, `INFO clients`, a `SCAN` of every key and the `MEMORY USAGE` of each. */
export async function redisSnapshot(url: string): Promise<RedisSnapshot> {
  const [info, keys, clients] = await redisCommands(url, [
    ['INFO', 'memory'],
    ['DBSIZE'],
    ['INFO', 'clients'],
  ]);
  const usedMemory = Number(parseInfo(String(info)).used_memory);
  if (!Number.isFinite(usedMemory)) throw new Error(`redis ${url}: INFO memory has no used_memory`);
  const keyShapes: Record<string, number> = {};
  const names: string[] = [];
  let cursor = '0';
  do {
    const [reply] = await redisCommands(url, [['SCAN', cursor, 'COUNT', '1000']]);
    const [next, batch] = reply as [string, string[]];
    names.push(...batch);
    cursor = next;
  } while (cursor !== '0');
  for (const key of names) {
    const shape = keyShape(key);
    keyShapes[shape] = (keyShapes[shape] ?? 0) + 1;
  }
  // SAMPLES 0: every element of a hash, set or list counted, not an estimate from 5 of them.
  const usages =
    names.length === 0
      ? []
      : await redisCommands(
          url,
          names.map((k) => ['MEMORY', 'USAGE', k, 'SAMPLES', '0']),
        );
  const keyBytes = usages.reduce<number>((sum, n) => sum + (typeof n === 'number' ? n : 0), 0);
  const connected = Number(parseInfo(String(clients)).connected_clients) - 1;
  return { usedMemory, keys: Number(keys), keyShapes, keyBytes, clients: connected };
}

/**
 * A snapshot once the keys stopped moving: a gateway may write a record just after it answered, so this
 * reads until two snapshots `intervalMs` apart agree on the key count and their bytes (at most `timeoutMs`).
 */
export async function settledSnapshot(
  url: string,
  intervalMs = 50,
  timeoutMs = 2_000,
): Promise<RedisSnapshot> {
  const deadline = Date.now() + timeoutMs;
  let last = await redisSnapshot(url);
  while (Date.now() < deadline) {
    await new Promise((resolve) => setTimeout(resolve, intervalMs));
    const now = await redisSnapshot(url);
    if (now.keys === last.keys && now.keyBytes === last.keyBytes) return now;
    last = now;
  }
  return last;
}
