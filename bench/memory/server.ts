/**
 * The memory benchmark's server: exactly the create benchmark's Tawqi server
 * (create-requests/tawqi-server.ts, imported as it is: same settings, same accounts, same ready
 * line), plus one thing for the driver — on SIGUSR2 it runs a full garbage collection and prints
 * one JSON line on stdout, {"gc": {rss, heap_used, heap_total, external, array_buffers}} in bytes
 * (process.memoryUsage() after the collection). The heap used after a full collection is what
 * the process keeps alive; read at any other moment it also counts garbage not collected yet.
 *
 * `gc` is exposed at run time (v8.setFlagsFromString), not by a node flag, so the process is
 * started with the same flags as every other benchmark server.
 */
import { setFlagsFromString } from 'node:v8';
import { runInNewContext } from 'node:vm';

setFlagsFromString('--expose-gc');
const gc = runInNewContext('gc') as () => void;

// Before the server starts (and prints its ready line), so no SIGUSR2 can find the default action (exit).
process.on('SIGUSR2', () => {
  gc();
  const m = process.memoryUsage();
  const figures = { rss: m.rss, heap_used: m.heapUsed, heap_total: m.heapTotal, external: m.external, array_buffers: m.arrayBuffers };
  console.log(JSON.stringify({ gc: figures }));
});

await import('../create-requests/tawqi-server.js');
