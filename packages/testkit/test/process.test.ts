import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { createConnection, createServer } from 'node:net';
import { afterEach, describe, expect, it } from 'vitest';
import {
  cpuTimeMs,
  freePort,
  type ManagedProcess,
  ProcessGroup,
  reservePort,
  rssMiB,
  runProcess,
  type SpawnProcessOptions,
  spawnProcess,
  startProcess,
} from '../src/process.js';
import { Cleanup } from '../src/test-support.js';

const cleanup = new Cleanup();
afterEach(() => cleanup.run());

/** `node -e script`: the child keeps running until told otherwise unless the script exits. */
function script(source: string, keepAlive = true): string[] {
  return ['-e', keepAlive ? `${source}\nsetInterval(() => {}, 60_000);` : source];
}

function spawned(options: SpawnProcessOptions): ManagedProcess {
  const proc = spawnProcess(options);
  cleanup.add(() => proc.stop({ graceMs: 500 }));
  return proc;
}

async function started<T>(start: Promise<{ proc: ManagedProcess; ready: T }>) {
  const result = await start;
  cleanup.add(() => result.proc.stop({ graceMs: 500 }));
  return result;
}

/** Pids of the processes whose command line has `marker` (Linux). */
function processesWith(marker: string): number[] {
  return readdirSync('/proc')
    .filter((entry) => /^\d+$/.test(entry))
    .filter((pid) => {
      try {
        return readFileSync(`/proc/${pid}/cmdline`, 'utf8').includes(marker);
      } catch {
        return false;
      }
    })
    .map(Number);
}

function isAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
}

describe('startProcess', () => {
  it('resolves with the match of the ready line on the stream it names, and stops the child', async () => {
    const { proc, ready } = await started(
      startProcess({
        name: 'server',
        args: script(`console.error('booting'); console.log('listening on http://127.0.0.1:1234/mcp');`),
        ready: { line: /listening on (http:\/\/\S+)/, stream: 'stdout' },
      }),
    );
    expect(ready[1]).toBe('http://127.0.0.1:1234/mcp');
    expect(proc.running()).toBe(true);
    expect(proc.stdout()).toBe('listening on http://127.0.0.1:1234/mcp\n');
    await proc.waitForLine(/booting/);
    expect(proc.tail()).toContain('stderr: booting');
    const stopping = proc.stop();
    expect(proc.stop()).toBe(stopping);
    expect(await stopping).toBe('SIGTERM');
    expect(proc.running()).toBe(false);
    expect(await proc.stop()).toBe('SIGTERM');
  });

  it('gives what a matcher returns, and a matcher that throws fails the start with its message', async () => {
    const { ready } = await started(
      startProcess({
        name: 'upstream',
        args: script(`console.log('not json'); console.log(JSON.stringify({ url: 'u', controlUrl: 'c' }));`),
        ready: {
          line: (line) => (line.startsWith('{') ? (JSON.parse(line) as { url: string }) : undefined),
          stream: 'stdout',
        },
      }),
    );
    expect(ready).toEqual({ url: 'u', controlUrl: 'c' });

    let pid: number | undefined;
    await expect(
      startProcess({
        name: 'gateway',
        args: script(`console.error(process.pid); console.error('some upstreams are not connected');`),
        ready: {
          line: (line) => {
            if (/^\d+$/.test(line)) pid = Number(line);
            if (line.includes('not connected')) throw new Error('could not connect every upstream');
            return undefined;
          },
        },
      }),
    ).rejects.toThrow(/^gateway: could not connect every upstream; last output:\n {4}stderr: \d+\n/);
    expect(pid !== undefined && isAlive(pid)).toBe(false);
  });

  it('fails with the exit code and the last output when the child exits before its ready line', async () => {
    const start = startProcess({
      name: 'fixture',
      args: script(`console.error('config is broken'); process.exit(3);`, false),
      ready: { line: /listening/ },
    });
    await expect(start).rejects.toThrow(
      /^fixture: exited \(3\) before its ready line \(a line matching \/listening\/ on stderr\); last output:\n {4}stderr: config is broken$/,
    );
  });

  it('fails after the timeout, and the silent child is killed', async () => {
    const marker = `switchyard-silent-${process.pid}-${Date.now()}`;
    const start = startProcess({
      name: 'silent',
      args: [...script(''), marker],
      ready: { line: /never/, timeoutMs: 300 },
    });
    await expect(start).rejects.toThrow(/^silent: timed out after 300 ms waiting for its ready line/);
    if (process.platform === 'linux') expect(processesWith(marker)).toEqual([]);
  });

  it('names a command that cannot be spawned', async () => {
    const start = startProcess({
      name: 'ghost',
      command: '/nonexistent/switchyard-binary',
      ready: { line: /ready/ },
    });
    await expect(start).rejects.toThrow(/^ghost: failed to start: .*ENOENT/);
    const spawned = spawnProcess({ name: 'ghost', command: '/nonexistent/switchyard-binary' });
    expect(await spawned.exited).toBeNull();
    expect(spawned.running()).toBe(false);
  });

  it('counts stderr warnings by kind only after the ready line', async () => {
    const { proc } = await started(
      startProcess({
        name: 'gateway',
        args: script(
          [
            `console.error('2026-01-01T00:00:00.000Z WARN [boot] before ready');`,
            `console.error('ready');`,
            `console.error('2026-01-01T00:00:01.000Z WARN [x] retry 1 of 5');`,
            `console.error('2026-01-01T00:00:02.000Z WARN [x] retry 2 of 5');`,
            `console.error('(node:123) ExperimentalWarning: something');`,
            `console.error('2026-01-01T00:00:03.000Z INFO [x] fine');`,
            `console.error('done');`,
          ].join('\n'),
        ),
        ready: { line: /^ready$/ },
      }),
    );
    await proc.waitForLine(/^done$/);
    expect(Object.fromEntries(proc.warnings)).toEqual({
      'WARN [x] retry # of #': 2,
      '(node:#) ExperimentalWarning: something': 1,
    });
  });
});

describe('ManagedProcess', () => {
  it('waitForLine sees lines already printed and lines still to come, on either stream', async () => {
    const proc = spawned({
      name: 'talker',
      stdin: 'pipe',
      args: script(
        `console.error('first'); process.stdin.on('data', (d) => console.log('got ' + String(d).trim()));`,
      ),
    });
    expect((await proc.waitForLine(/fir(st)/))[1]).toBe('st');
    expect(await proc.waitForLine(/first/)).toBeTruthy();
    const later = proc.waitForLine(/^got (\w+)$/, { stream: 'stdout' });
    proc.child.stdin?.write('hello\n');
    expect((await later)[1]).toBe('hello');
  });

  it('waitForLine fails after its timeout, or when the child exits first, naming the line', async () => {
    const proc = spawned({ name: 'quiet', args: script(`process.stdin;`) });
    await expect(proc.waitForLine(/never/, { timeoutMs: 100 })).rejects.toThrow(
      /^quiet: timed out after 100 ms waiting for a line matching \/never\/ on stderr$/,
    );
    const gone = spawned({ name: 'short', args: script(`console.log('bye')`, false) });
    await expect(gone.waitForLine(/never/, { what: 'the banner' })).rejects.toThrow(
      /^short: exited \(0\) before the banner \(a line matching \/never\/ on stderr\); last output:\n {4}stdout: bye$/,
    );
    // Once it has exited, a new wait fails at once.
    await expect(gone.waitForLine(/never/)).rejects.toThrow(/exited \(0\)/);
  });

  it('sets env and cwd, and reads output written just before exit', async () => {
    const proc = spawned({
      name: 'env',
      cwd: '/',
      env: { SWITCHYARD_PROCESS_TEST: 'yes', HOME: undefined },
      args: script(
        `console.log(process.env.SWITCHYARD_PROCESS_TEST, process.cwd(), 'HOME' in process.env); process.stdout.write('partial');`,
        false,
      ),
    });
    expect(await proc.exited).toBe(0);
    expect(proc.stdout()).toBe('yes / false\npartial');
    expect(proc.tail()).toEqual(['stdout: yes / false', 'stdout: partial']);
  });

  it('keeps bounded output: the newest characters of each stream and the last lines of both', async () => {
    const proc = spawned({
      name: 'chatty',
      keepChars: 1000,
      tailLines: 5,
      args: script(`for (let i = 0; i < 5000; i++) console.log('line ' + i); console.error('end');`, false),
    });
    expect(await proc.exited).toBe(0);
    expect(proc.stdout().length).toBeLessThanOrEqual(1000);
    expect(proc.stdout().endsWith('line 4998\nline 4999\n')).toBe(true);
    expect(proc.tail()).toHaveLength(5);
    // The two pipes interleave as they please: only the order within stdout is certain.
    expect(
      proc
        .tail()
        .filter((line) => line.startsWith('stdout: '))
        .at(-1),
    ).toBe('stdout: line 4999');
  });

  it('crashed rejects when the child exits on its own, and never when it was stopped', async () => {
    const crasher = spawned({
      name: 'crasher',
      stdin: 'pipe',
      args: script(`process.stdin.on('data', () => process.exit(7));`),
    });
    crasher.child.stdin?.write('x');
    await expect(crasher.crashed).rejects.toThrow(/^crasher exited unexpectedly \(7\)/);

    const stopped = spawned({ name: 'stopped', args: script(`console.error('up');`) });
    await stopped.waitForLine(/up/);
    const outcome = Promise.race([
      stopped.crashed.then(
        () => 'crashed',
        () => 'crashed',
      ),
      stopped.exited,
    ]);
    await stopped.stop();
    expect(await outcome).toBe('SIGTERM');
  });

  it('stop() escalates to SIGKILL when SIGTERM is ignored', async () => {
    const proc = spawned({
      name: 'stubborn',
      args: script(`process.on('SIGTERM', () => console.error('ignoring SIGTERM')); console.error('up');`),
    });
    await proc.waitForLine(/up/);
    expect(await proc.stop({ graceMs: 200 })).toBe('SIGKILL');
    expect(proc.stderr()).toContain('ignoring SIGTERM');
  });

  it('stop() resumes a SIGSTOPped child so that SIGTERM reaches it', async () => {
    const proc = spawned({
      name: 'paused',
      args: script(
        `process.on('SIGTERM', () => { console.error('terminating'); process.exit(0); }); console.error('up');`,
      ),
    });
    await proc.waitForLine(/up/);
    proc.signal('SIGSTOP');
    expect(await proc.stop({ graceMs: 10_000 })).toBe(0);
    expect(proc.stderr()).toContain('terminating');
  });

  it('an exit asked for with a terminating signal is not a crash', async () => {
    const proc = spawned({ name: 'killed', args: script(`console.error('up');`) });
    await proc.waitForLine(/up/);
    const crashed = proc.crashed.then(
      () => 'crashed',
      () => 'crashed',
    );
    proc.signal('SIGKILL');
    expect(await Promise.race([crashed, proc.exited])).toBe('SIGKILL');
  });
});

describe('runProcess', () => {
  it('resolves once the command has exited, with its status and its output', async () => {
    const run = await runProcess({
      name: 'lister',
      args: script(`console.log('one'); console.log('two'); console.error('oops'); process.exit(2);`, false),
    });
    expect(run).toMatchObject({ status: 2, timedOut: false });
    expect(run.proc.stdout()).toBe('one\ntwo\n');
    expect(run.proc.stderr()).toBe('oops\n');
    expect(run.proc.tail()).toEqual(expect.arrayContaining(['stdout: two', 'stderr: oops']));
    await expect(Promise.race([run.proc.crashed, 'not crashed'])).resolves.toBe('not crashed');
  });

  it('stops a command that runs past its timeout, escalating to SIGKILL', async () => {
    const marker = `switchyard-run-timeout-${process.pid}`;
    const started = Date.now();
    const run = await runProcess({
      name: 'stuck',
      // Ignores SIGTERM once it is up (it may not be yet when the timeout fires: then SIGTERM ends it).
      args: script(`process.on('SIGTERM', () => {}); // ${marker}`),
      timeoutMs: 300,
      stopGraceMs: 200,
    });
    expect(run.timedOut).toBe(true);
    expect(run.status).toMatch(/^SIG(TERM|KILL)$/);
    expect(Date.now() - started).toBeLessThan(5_000);
    if (process.platform === 'linux') expect(processesWith(marker)).toEqual([]);
  });

  it('ends with status null and the reason when the command cannot be spawned', async () => {
    const run = await runProcess({ name: 'ghost', command: '/nonexistent/switchyard-binary' });
    expect(run.status).toBeNull();
    expect(run.timedOut).toBe(false);
    expect(run.startError?.message).toMatch(/ENOENT/);
  });
});

describe('ProcessGroup', () => {
  it('stops every member and removes its scratch dirs', async () => {
    const group = new ProcessGroup();
    cleanup.add(() => group.stopAll());
    const dir = await group.scratchDir('switchyard-process-test-');
    expect(existsSync(dir)).toBe(true);
    const a = group.spawn({ name: 'a', args: script('') });
    const { proc: b } = await group.start({
      name: 'b',
      args: script(`console.log('ready')`),
      ready: { line: /ready/, stream: 'stdout' },
    });
    expect(group.size).toBe(2);
    await group.stopAll();
    expect(a.running() || b.running()).toBe(false);
    expect(existsSync(dir)).toBe(false);
    await group.stopAll();
  });

  it('stops the services it owns, started outside it, with its members', async () => {
    const group = new ProcessGroup();
    cleanup.add(() => group.stopAll());
    const { proc } = await startProcess({
      name: 'service',
      args: script(`console.error('ready')`),
      ready: { line: /ready/ },
    });
    cleanup.add(() => proc.stop({ graceMs: 500 }));
    let stops = 0;
    const service = group.own({
      stop: async () => {
        stops += 1;
        await proc.stop();
      },
    });
    expect(service.stop).toBeTypeOf('function');
    await group.stopAll();
    expect(proc.running()).toBe(false);
    await group.stopAll();
    expect(stops).toBe(1);
  });

  it('crashed rejects when any member crashes after it was ready', async () => {
    const group = new ProcessGroup();
    cleanup.add(() => group.stopAll());
    await group.start({
      name: 'steady',
      args: script(`console.error('ready')`),
      ready: { line: /ready/ },
    });
    const { proc } = await group.start({
      name: 'fragile',
      stdin: 'pipe',
      args: script(`console.error('ready'); process.stdin.on('data', () => process.exit(4));`),
      ready: { line: /ready/ },
    });
    proc.child.stdin?.write('x');
    await expect(group.crashed).rejects.toThrow(/^fragile exited unexpectedly \(4\)/);
  });
});

describe('ports', () => {
  it('freePort() finds a port a server can listen on', async () => {
    const port = await freePort();
    const server = createServer();
    cleanup.add(() => new Promise((resolve) => server.close(resolve)));
    await new Promise<void>((resolve, reject) => {
      server.once('error', reject);
      server.listen(port, '127.0.0.1', resolve);
    });
    expect(server.address()).toMatchObject({ port });
  });

  it('reservePort() holds the port, dropping connections, until release()', async () => {
    const { port, release } = await reservePort(cleanup);
    const taken = createServer();
    await expect(
      new Promise<void>((resolve, reject) => {
        taken.once('error', reject);
        taken.listen(port, '127.0.0.1', resolve);
      }),
    ).rejects.toThrow(/EADDRINUSE/);
    const closed = await new Promise<string>((resolve) => {
      const socket = createConnection({ port, host: '127.0.0.1' });
      socket.on('error', () => resolve('error'));
      socket.on('close', () => resolve('closed'));
    });
    expect(['closed', 'error']).toContain(closed);
    await release();
    await release();
    const server = createServer();
    cleanup.add(() => new Promise((resolve) => server.close(resolve)));
    await new Promise<void>((resolve) => server.listen(port, '127.0.0.1', resolve));
  });
});

describe.runIf(process.platform === 'linux')('usage', () => {
  it('reads CPU time and RSS of a live process, and nothing of a gone one', async () => {
    expect(cpuTimeMs(process.pid)).toBeGreaterThan(0);
    expect(rssMiB(process.pid)).toBeGreaterThan(1);
    const proc = spawned({ name: 'gone', args: script('', false) });
    const pid = proc.pid;
    await proc.exited;
    expect(rssMiB(pid)).toBeUndefined();
    expect(cpuTimeMs(undefined)).toBeUndefined();
  });
});
