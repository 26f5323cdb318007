import { mkdtemp, readdir, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { emptyLock, parseLock, readLock, serializeLock, withPin, writeLock } from '../src/lock-file.js';

const A = `sha256:${'a'.repeat(64)}` as const;
const B = `sha256:${'b'.repeat(64)}` as const;

let dir: string;
beforeEach(async () => {
  dir = await mkdtemp(join(tmpdir(), 'pin-lock-'));
});
afterEach(() => rm(dir, { recursive: true, force: true }));

describe('lock file', () => {
  it('reads undefined when there is none', async () => {
    expect(await readLock(join(dir, 'none.json'))).toBeUndefined();
  });

  it('writes atomically (no temporary file left) and reads back what it wrote, keys sorted', async () => {
    const file = join(dir, 'sub', 'switchyard.lock.json');
    const lock = withPin(
      withPin(withPin(emptyLock(), 'zeta', 'tools', 'b', A), 'alpha', 'prompts', 'p', B),
      'zeta',
      'tools',
      'a',
      B,
    );
    await writeLock(file, lock);
    expect(await readdir(join(dir, 'sub'))).toEqual(['switchyard.lock.json']);
    expect(await readLock(file)).toEqual(lock);
    const text = await readFile(file, 'utf8');
    expect(text).toBe(serializeLock(lock));
    expect(text.indexOf('alpha')).toBeLessThan(text.indexOf('zeta'));
    expect(text.indexOf('"a"')).toBeLessThan(text.indexOf('"b"'));
    expect(JSON.parse(text)).toEqual({
      version: 1,
      servers: { alpha: { tools: {}, prompts: { p: B } }, zeta: { tools: { a: B, b: A }, prompts: {} } },
    });
  });

  it('accepts instructions and missing tools or prompts maps', () => {
    expect(parseLock(`{"version":1,"servers":{"s":{"instructions":"${A}"}}}`, 'f')).toEqual({
      version: 1,
      servers: { s: { instructions: A, tools: {}, prompts: {} } },
    });
  });

  it('refuses what is not a version 1 lock file, naming the file and where', async () => {
    expect(() => parseLock('{', 'x.json')).toThrow(/lock file x.json is not JSON/);
    expect(() => parseLock('{"version":2,"servers":{}}', 'x.json')).toThrow(/invalid at \$\.version/);
    expect(() => parseLock('{"version":1,"servers":{"s":{"tools":{"t":"md5:1"}}}}', 'x.json')).toThrow(
      /invalid at \$\.servers\.s\.tools\.t: expected "sha256:"/,
    );
    expect(() => parseLock('{"version":1,"servers":{},"extra":1}', 'x.json')).toThrow(/invalid at \$/);
    const file = join(dir, 'bad.json');
    await writeFile(file, '[]');
    await expect(readLock(file)).rejects.toThrow(/bad.json is invalid/);
  });

  it('keeps the pin of a tool an upstream names __proto__ across a write and a read, and checks its digest', async () => {
    const file = join(dir, 'proto.json');
    const lock = withPin(
      withPin(emptyLock(), 'docs', 'tools', '__proto__', A),
      'docs',
      'prompts',
      'constructor',
      B,
    );
    await writeLock(file, lock);
    const read = await readLock(file);
    expect(Object.keys(read!.servers.docs!.tools)).toEqual(['__proto__']);
    expect(read).toEqual(lock);
    expect(() =>
      parseLock('{"version":1,"servers":{"docs":{"tools":{"__proto__":"sha256:nope"}}}}', 'x.json'),
    ).toThrow('lock file x.json is invalid at $.servers.docs.tools.__proto__');
  });
});
