import { describe, expect, it } from 'vitest';
import { type TaskBinding, TaskIdSeal } from '../src/routing/task-ids.js';
import { TaskOwners } from '../src/routing/task-owners.js';
import { SealedTooLarge } from '../src/sealed-box.js';

const binding: TaskBinding = {
  upstream: 'jobs',
  identity: 'alice',
  clientEra: 'modern',
  tool: { exposed: 'jobs__build', name: 'build' },
  taskId: 'upstream-task-1',
};

describe('TaskIdSeal', () => {
  it('opens its own ids for their caller only, and hides what they stand for', () => {
    const seal = new TaskIdSeal('secret');
    const id = seal.seal(binding);
    expect(seal.open(id, 'alice')).toEqual(binding);
    expect(seal.open(id, 'bob')).toBeUndefined();
    expect(id).not.toContain('upstream-task-1');
    expect(Buffer.from(id.slice(5), 'base64url').toString('latin1')).not.toContain('alice');
    expect(seal.seal(binding)).not.toBe(id); // a fresh IV each time
    expect(seal.open(seal.seal({ ...binding, local: true }), 'alice')).toMatchObject({ local: true });
  });

  it('hands out only ids it can open again: a long upstream id works, one too long is refused at once', () => {
    // Found from outside: an upstream id of 3,000 characters made an id the gateway then refused to open.
    const seal = new TaskIdSeal('secret');
    const long = { ...binding, taskId: 'x'.repeat(10_000) };
    expect(seal.open(seal.seal(long), 'alice')).toEqual(long);
    expect(() => seal.seal({ ...binding, taskId: 'x'.repeat(20_000) })).toThrow(SealedTooLarge);
  });

  it('refuses altered, foreign and malformed ids; instances sharing the secret share ids', () => {
    const seal = new TaskIdSeal('secret');
    const id = seal.seal(binding);
    const bytes = Buffer.from(id.slice(5), 'base64url');
    bytes[20] = (bytes[20] ?? 0) ^ 1;
    expect(seal.open(`swt1.${bytes.toString('base64url')}`, 'alice')).toBeUndefined();
    expect(new TaskIdSeal('other').open(id, 'alice')).toBeUndefined();
    expect(new TaskIdSeal(undefined).open(id, 'alice')).toBeUndefined();
    expect(new TaskIdSeal('secret').open(id, 'alice')).toEqual(binding);
    for (const raw of ['', 'swt1.', 'swt1.AAAA', 'upstream-task-1', 42, undefined]) {
      expect(seal.open(raw, 'alice')).toBeUndefined();
    }
  });
});

describe('SealedBox ids', () => {
  it('one text per id: stray characters and a last character with other spare bits are refused', () => {
    // Found from outside: `<id>x`, `<id>Q` and `<id>=` opened (base64url decoding skips what it cannot
    // use), so one task had several ids, and `tasks/cancel` of `<id>=` cancelled it.
    const seal = new TaskIdSeal('secret');
    const id = seal.seal(binding);
    const body = id.slice(5);
    const alphabet = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_';
    const sameBytes = [...alphabet]
      .map((c) => body.slice(0, -1) + c)
      .filter(
        (other) => other !== body && Buffer.from(other, 'base64url').equals(Buffer.from(body, 'base64url')),
      );
    for (const raw of [
      `${id}x`,
      `${id}Q`,
      `${id}=`,
      `${id}==`,
      ` ${id}`,
      `${id}\n`,
      ...sameBytes.map((b) => `swt1.${b}`),
    ]) {
      expect(seal.open(raw, 'alice'), JSON.stringify(raw)).toBeUndefined();
    }
    expect(seal.open(id, 'alice')).toEqual(binding);
  });
});

describe('TaskOwners', () => {
  it('remembers whose each task is until its TTL, and forgets removed upstreams', () => {
    let now = 1_000;
    const owners = new TaskOwners(() => now);
    owners.add({ binding, exposedId: 'e1' }, 5_000);
    owners.add({ binding: { ...binding, upstream: 'other', taskId: 't2' }, exposedId: 'e2' }, null);
    expect(owners.owner('jobs', 'upstream-task-1')?.exposedId).toBe('e1');
    expect(owners.owner('other', 'upstream-task-1')).toBeUndefined();
    now += 5_000;
    expect(owners.owner('jobs', 'upstream-task-1')).toBeUndefined();
    expect(owners.owner('other', 't2')?.exposedId).toBe('e2');
    owners.retain(new Set(['jobs']));
    expect(owners.owner('other', 't2')).toBeUndefined();
  });
});
