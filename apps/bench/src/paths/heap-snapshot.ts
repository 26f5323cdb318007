/**
 * The V8 heap of another Node process, measured from outside with no code in it: the process runs with
 * `--heapsnapshot-signal=SIGUSR2 --diagnostic-dir=DIR`; SIGUSR2 makes it write a heap snapshot (V8 runs a
 * full garbage collection first), and the sum of the snapshot's node self sizes is its live heap.
 */
import { readdir, readFile, rm } from 'node:fs/promises';
import { join } from 'node:path';
import type { ManagedProcess } from '@switchyard/testkit/process';

/** The node flags that let `takeHeapSnapshot` work on a process writing to `dir`. */
export function heapSnapshotFlags(dir: string): string[] {
  return ['--heapsnapshot-signal=SIGUSR2', `--diagnostic-dir=${dir}`];
}

interface HeapSnapshotJson {
  snapshot: { meta: { node_fields: string[] } };
  nodes: number[];
}

/** The live heap (bytes) a parsed heap snapshot describes: the sum of its nodes' self sizes. */
export function liveHeapBytes(snapshot: HeapSnapshotJson): number {
  const fields = snapshot.snapshot.meta.node_fields;
  const stride = fields.length;
  const selfSize = fields.indexOf('self_size');
  if (stride === 0 || selfSize < 0) throw new Error('heap snapshot without node self_size');
  let total = 0;
  for (let i = selfSize; i < snapshot.nodes.length; i += stride) total += snapshot.nodes[i]!;
  return total;
}

async function snapshotsIn(dir: string): Promise<Set<string>> {
  return new Set((await readdir(dir)).filter((f) => f.endsWith('.heapsnapshot')));
}

/**
 * Signals `proc` (started with `heapSnapshotFlags(dir)`) to write a heap snapshot, waits for the file to
 * appear (polled every 50 ms, at most `timeoutMs`), then for `roundTrip()` to complete (the process
 * writes the snapshot on its main thread, so it answers only once the file is whole), and returns the
 * live heap in bytes. The snapshot file is deleted afterwards.
 */
export async function takeHeapSnapshot(
  proc: ManagedProcess,
  dir: string,
  roundTrip: () => Promise<unknown>,
  timeoutMs = 60_000,
): Promise<number> {
  const before = await snapshotsIn(dir);
  proc.signal('SIGUSR2');
  const deadline = Date.now() + timeoutMs;
  let file: string | undefined;
  while (file === undefined) {
    file = [...(await snapshotsIn(dir))].find((f) => !before.has(f));
    if (file !== undefined) break;
    if (Date.now() > deadline)
      throw new Error(`${proc.name}: no heap snapshot in ${dir} after ${timeoutMs} ms`);
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
  await roundTrip();
  const path = join(dir, file);
  try {
    return liveHeapBytes(JSON.parse(await readFile(path, 'utf8')) as HeapSnapshotJson);
  } finally {
    await rm(path, { force: true });
  }
}
