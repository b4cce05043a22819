/**
 * The memory benchmark's server: exactly the create benchmark's Tawqi server
 * (create-requests/tawqi-server.ts, imported as it is: same settings, same accounts, same ready
 * line), plus one thing for the driver — on SIGUSR2 it runs a full garbage collection and prints
 * one JSON line on stdout, {"gc": {rss, heap_used, heap_total, external, array_buffers}} in bytes
 * (process.memoryUsage() after the collection). The heap used after a full collection is what
 * the process keeps alive; read at any other moment it also counts garbage not collected yet.
 *
 * With BENCH_MEMORY_SNAPSHOTS set to a folder, each of those collections also writes a heap
 * snapshot there (heap-1.heapsnapshot, heap-2…, in the order of the driver's samples: started,
 * first create, then one per step), for heapdiff.ts. A snapshot takes seconds and about twice the
 * heap's size in memory while it is written: a diagnostic run, not a measured one.
 *
 * `gc` is exposed at run time (v8.setFlagsFromString), not by a node flag, so the process is
 * started with the same flags as every other benchmark server.
 */
import path from 'node:path';
import { setFlagsFromString, writeHeapSnapshot } from 'node:v8';
import { runInNewContext } from 'node:vm';

setFlagsFromString('--expose-gc');
const gc = runInNewContext('gc') as () => void;
const snapshots = process.env.BENCH_MEMORY_SNAPSHOTS;
let taken = 0;

// Before the server starts (and prints its ready line), so no SIGUSR2 can find the default action (exit).
process.on('SIGUSR2', () => {
  gc();
  const m = process.memoryUsage();
  if (snapshots) writeHeapSnapshot(path.join(snapshots, `heap-${++taken}.heapsnapshot`));
  const figures = { rss: m.rss, heap_used: m.heapUsed, heap_total: m.heapTotal, external: m.external, array_buffers: m.arrayBuffers };
  console.log(JSON.stringify({ gc: figures }));
});

await import('../create-requests/tawqi-server.js');
