/**
 * The statements of a group commit's turn (pgGroupCommit.ts), with the same plain INSERT of
 * several members merged into one multi-row INSERT: `insert into "t" (cols) values ($1, $2), …` of
 * three members becomes one statement with their rows one after another, the placeholders
 * renumbered. Only a plain INSERT of bound values merges (no RETURNING, no ON CONFLICT, no
 * literal): its result is its rows, all inserted or none, so each member's share is known. Only
 * statements of different members merge, and only consecutive ones, so no member's statements
 * change order, and a merged INSERT runs where the first of them stood. Likewise the same plain
 * read (no row lock) with the same values, asked for by several members in one turn, is sent once
 * and its rows given to each: in one transaction, each would have read the same.
 */

interface Item {
  member: number;
  sql: string;
  parameters: readonly unknown[];
}

/** One statement to send: its SQL, its parameters and the items it answers. */
export interface Statement<I extends Item> {
  sql: string;
  parameters: readonly unknown[];
  items: I[];
  /**
   * A merged INSERT: the rows each item inserted (its own statement's tuples). null otherwise: one
   * item, or a read several items share (each gets its own copy of the rows).
   */
  rowsEach: number | null;
}

/** A plain INSERT split at its VALUES: the head, the tuples and how many there are. */
interface Shape {
  head: string;
  tuples: string;
  rows: number;
}

/** PostgreSQL's limit of bound parameters per statement. */
const MAX_PARAMETERS = 65535;
const PLAIN_INSERT = /^(insert into "[a-z0-9_]+" \([a-z0-9_", ]+\) values )(\(\$\d+(?:, \$\d+)*\)(?:, \(\$\d+(?:, \$\d+)*\))*)$/;

const shapes = new Map<string, Shape | null>();
const merged = new Map<string, string>();

function shapeOf(sql: string): Shape | null {
  let shape = shapes.get(sql);
  if (shape === undefined) {
    const m = PLAIN_INSERT.exec(sql);
    shape = m ? { head: m[1]!, tuples: m[2]!, rows: m[2]!.split('), (').length } : null;
    if (shapes.size > 1000) shapes.clear();
    shapes.set(sql, shape);
  }
  return shape;
}

/** The SQL of `count` copies of one plain INSERT's rows, each copy's placeholders moved past the last. */
function mergedSql(sql: string, shape: Shape, parametersEach: number, count: number): string {
  const key = `${count}\u0000${sql}`;
  let text = merged.get(key);
  if (text === undefined) {
    const parts: string[] = [];
    for (let i = 0; i < count; i++) {
      const offset = i * parametersEach;
      parts.push(shape.tuples.replace(/\$(\d+)/g, (_, n: string) => `$${Number(n) + offset}`));
    }
    text = shape.head + parts.join(', ');
    if (merged.size > 1000) merged.clear();
    merged.set(key, text);
  }
  return text;
}

/** A plain read that takes no lock: the same one of several members can be answered once. */
const SHAREABLE_READ = /^select (?![\s\S]* for (update|share|no key update|key share)\b)/i;

function sameValues(a: readonly unknown[], b: readonly unknown[]): boolean {
  if (a.length !== b.length) return false;
  for (let i = 0; i < a.length; i++) if (a[i] !== b[i]) return false;
  return true;
}

export function mergeInserts<I extends Item>(items: readonly I[]): Statement<I>[] {
  const out: Statement<I>[] = [];
  let i = 0;
  while (i < items.length) {
    const first = items[i]!;
    const shape = shapeOf(first.sql);
    let end = i + 1;
    if (shape === null && SHAREABLE_READ.test(first.sql)) {
      // The same read with the same values (a template, an account's webhook endpoints): sent once.
      const members = new Set([first.member]);
      while (
        end < items.length &&
        items[end]!.sql === first.sql &&
        !members.has(items[end]!.member) &&
        sameValues(items[end]!.parameters, first.parameters)
      ) {
        members.add(items[end]!.member);
        end++;
      }
      out.push({ sql: first.sql, parameters: first.parameters, items: items.slice(i, end), rowsEach: null });
      i = end;
      continue;
    }
    if (shape !== null) {
      const members = new Set([first.member]);
      const each = first.parameters.length;
      while (
        end < items.length &&
        items[end]!.sql === first.sql &&
        !members.has(items[end]!.member) &&
        (end - i + 1) * each <= MAX_PARAMETERS
      ) {
        members.add(items[end]!.member);
        end++;
      }
    }
    if (end - i === 1) {
      out.push({ sql: first.sql, parameters: first.parameters, items: [first], rowsEach: null });
    } else {
      const run = items.slice(i, end);
      const parameters: unknown[] = [];
      for (const it of run) for (const p of it.parameters) parameters.push(p);
      out.push({ sql: mergedSql(first.sql, shape!, first.parameters.length, run.length), parameters, items: run, rowsEach: shape!.rows });
    }
    i = end;
  }
  return out;
}
