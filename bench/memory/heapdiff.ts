/**
 * What grew between two heap snapshots of the memory benchmark's server (BENCH_MEMORY_SNAPSHOTS,
 * see server.ts): objects counted and sized by kind (constructor name for objects, closures and
 * native objects; the node type for strings, numbers, code…), the largest growth first.
 *
 *   node --conditions=tawqi-source --import tsx bench/memory/heapdiff.ts <before.heapsnapshot> <after.heapsnapshot> [top]
 */
import { readFileSync } from 'node:fs';

interface Snapshot {
  snapshot: { meta: { node_fields: string[]; node_types: [string[], ...unknown[]] } };
  nodes: number[];
  strings: string[];
}

/** Node types whose name says what they are; the others (strings, numbers, code) are summed by type alone. */
const NAMED = new Set(['object', 'closure', 'native', 'array', 'hidden', 'regexp']);

function kinds(file: string): Map<string, { count: number; bytes: number }> {
  const snap = JSON.parse(readFileSync(file, 'utf8')) as Snapshot;
  const fields = snap.snapshot.meta.node_fields;
  const width = fields.length;
  const [typeAt, nameAt, sizeAt] = ['type', 'name', 'self_size'].map((f) => fields.indexOf(f)) as [number, number, number];
  const types = snap.snapshot.meta.node_types[0];
  const out = new Map<string, { count: number; bytes: number }>();
  for (let i = 0; i < snap.nodes.length; i += width) {
    const type = types[snap.nodes[i + typeAt]!]!;
    const key = NAMED.has(type) ? `${type} ${snap.strings[snap.nodes[i + nameAt]!]!.slice(0, 80)}` : type;
    const entry = out.get(key) ?? { count: 0, bytes: 0 };
    entry.count++;
    entry.bytes += snap.nodes[i + sizeAt]!;
    out.set(key, entry);
  }
  return out;
}

const [beforeFile, afterFile, topArg] = process.argv.slice(2);
if (!beforeFile || !afterFile) {
  console.error('usage: heapdiff.ts <before.heapsnapshot> <after.heapsnapshot> [top]');
  process.exit(2);
}
const before = kinds(beforeFile);
const after = kinds(afterFile);
const rows = [...new Set([...before.keys(), ...after.keys()])].map((kind) => {
  const b = before.get(kind) ?? { count: 0, bytes: 0 };
  const a = after.get(kind) ?? { count: 0, bytes: 0 };
  return { kind, count: a.count, count_delta: a.count - b.count, bytes: a.bytes, bytes_delta: a.bytes - b.bytes };
});
const total = (m: Map<string, { bytes: number }>) => [...m.values()].reduce((n, e) => n + e.bytes, 0);
console.log(JSON.stringify({ heapdiff: true, bytes_before: total(before), bytes_after: total(after) }));
rows.sort((x, y) => y.bytes_delta - x.bytes_delta);
for (const row of rows.slice(0, Number(topArg ?? 25))) console.log(JSON.stringify(row));
