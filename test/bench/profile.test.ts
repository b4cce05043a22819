/**
 * The CPU profile reader of the benchmarks (bench/support/profile.ts) and the create's phase table
 * (bench/create-requests/phases.ts), on a small hand-made profile: self time per function grouped by
 * module, and each sample's phase by the first matching frame from the leaf up, idle left out.
 */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { CREATE_PHASES, EVENTS, HTTP, KEY, PLAN, SQL, STORED, WRITE } from '../../bench/create-requests/phases.js';
import {
  byPhase,
  formatPhases,
  formatTopFunctions,
  moduleOf,
  OTHER,
  summarise,
  type CpuProfile,
  type PhaseRule,
} from '../../bench/support/profile.js';

const ROOT = '/repo';
const ours = (file: string): string => `file:///repo/${file}`;
const pkg = (file: string): string => `file:///repo/node_modules/${file}`;

/** [id, parent id, functionName, url, 0-based line] */
type Row = [number, number | null, string, string, number];

function profile(rows: Row[], samples: [number, number][]): CpuProfile {
  const nodes = rows.map(([id, , functionName, url, lineNumber]) => ({
    id,
    callFrame: { functionName, url, lineNumber, columnNumber: 0, scriptId: '0' },
    children: rows.filter((r) => r[1] === id).map((r) => r[0]),
  }));
  // Sample i lasts samples[i][1] µs: its delta is the previous sample's duration.
  const timeDeltas = samples.map((_, i) => (i === 0 ? 0 : samples[i - 1]![1]));
  const total = samples.reduce((a, [, us]) => a + us, 0);
  return {
    nodes,
    startTime: 1_000,
    endTime: 1_000 + total,
    samples: samples.map(([id]) => id),
    timeDeltas,
  };
}

const ROWS: Row[] = [
  [1, null, '(root)', '', -1],
  [2, 1, '(idle)', '', -1],
  [3, 1, '(garbage collector)', '', -1],
  [4, 1, '(program)', '', -1],
  [5, 1, 'handle', pkg('express/lib/application.js'), 151],
  [6, 5, 'next', pkg('router/index.js'), 188],
  [7, 6, 'keyAuth', ours('server/src/http/middleware/authenticate.ts'), 39],
  [8, 7, 'findKeyByHash', ours('server/src/store/apiKeys.ts'), 60],
  [9, 8, 'executeDirect', ours('server/src/store/compiled.ts'), 91],
  [10, 9, 'all', '', 0],
  [11, 7, 'digest', 'node:internal/crypto/hash', 179],
  [12, 1, 'writevGeneric', 'node:internal/stream_base_commons', 122],
  [13, 12, 'writev', '', 0],
  [14, 1, '#commitGroup', ours('server/src/store/groupCommit.ts'), 158],
  [15, 14, 'run', '', 0],
  [16, 1, 'requestEventInput', ours('server/src/services/signatureRequests.ts'), 528],
  [17, 16, 'requestObject', ours('server/src/presenters/objects.ts'), 74],
  [18, 1, '', ours('server/src/http/routes/signatureRequests.ts'), 25],
  [19, 18, 'requestObject', ours('server/src/presenters/objects.ts'), 74],
  [20, 1, 'planCreate', ours('server/src/domain/createPlan.ts'), 189],
  [21, 20, 'newId', ours('server/src/ids.ts'), 40],
  [22, 1, 'commitWrite', ours('server/src/http/commitWrite.ts'), 60],
  [23, 22, 'end', 'node:_http_outgoing', 1000],
  [24, 6, 'parseurl', pkg('parseurl/index.js'), 34],
  [25, 8, 'all', '', 0],
];

// (node id, µs): 10 ms idle, then the rest.
const SAMPLES: [number, number][] = [
  [2, 10_000],
  [10, 4_000], // SQL under the key lookup
  [11, 2_000], // Node's hash under keyAuth: key lookup
  [13, 1_000], // a socket write with no caller that has a rule: response write (fallback)
  [15, 5_000], // the group's COMMIT
  [17, 1_000], // a presenter under an event's snapshot
  [19, 1_500], // the same presenter under the route's unnamed `present`
  [21, 500], // ids.ts has no rule: its caller's phase
  [23, 700], // Node's outgoing message under commitWrite: response write (a strong rule above the fallback)
  [24, 300], // Express's helpers
  [3, 800], // GC
  [4, 200], // (program)
  [25, 1_000], // a second native `all`, called from store/apiKeys.ts directly
];

test('self time per function, natives by their caller, grouped by module; idle not counted', () => {
  const s = summarise(profile(ROWS, SAMPLES), ROOT);
  assert.equal(s.idleMs, 10);
  assert.equal(s.busyMs, 18);
  assert.equal(s.spanMs, 28);
  const top = s.functions[0]!;
  assert.deepEqual(top, {
    function: 'run (native) ← #commitGroup',
    module: '(native)',
    location: 'server/src/store/groupCommit.ts:159',
    selfMs: 5,
  });
  // The same native method from two callers is two entries.
  const alls = s.functions.filter((f) => f.function.startsWith('all (native)'));
  assert.deepEqual(
    alls.map((f) => [f.function, f.location, f.selfMs]),
    [
      ['all (native) ← executeDirect', 'server/src/store/compiled.ts:92', 4],
      ['all (native) ← findKeyByHash', 'server/src/store/apiKeys.ts:61', 1],
    ],
  );
  assert.ok(!s.functions.some((f) => f.function === '(idle)'));
  const modules = new Map(s.modules.map((m) => [m.module, m.selfMs]));
  assert.equal(modules.get('(native)'), 4 + 1 + 5 + 1);
  assert.equal(modules.get('server/src/presenters'), 2.5);
  assert.equal(modules.get('parseurl'), 0.3);
  assert.equal(modules.get('node'), 2 + 0.7);
  assert.equal(modules.get('(garbage collector)'), 0.8);
  const text = formatTopFunctions(s, 3);
  assert.match(text, /top 3 functions by self time \(of 18 ms busy\)/);
  assert.match(text, /\(idle 10 ms of 28 ms, not counted\)/);
});

test('moduleOf: packages, scoped packages, Node, our folders, natives and V8 frames', () => {
  const frame = (url: string, functionName = 'f') => ({ functionName, url, lineNumber: 0 });
  assert.equal(moduleOf(frame(pkg('kysely/dist/esm/index.js')), ROOT), 'kysely');
  assert.equal(moduleOf(frame(pkg('@pinojs/redact/index.js')), ROOT), '@pinojs/redact');
  assert.equal(moduleOf(frame(pkg('express/node_modules/debug/src/node.js')), ROOT), 'debug');
  assert.equal(moduleOf(frame('node:internal/streams/readable'), ROOT), 'node');
  assert.equal(moduleOf(frame(ours('server/src/http/middleware/limits.ts')), ROOT), 'server/src/http/middleware');
  assert.equal(moduleOf(frame(''), ROOT), '(native)');
  assert.equal(moduleOf(frame('', '(garbage collector)'), ROOT), '(garbage collector)');
});

test('phases: the first matching frame from the leaf up; fallback rules only when nothing else matches', () => {
  const rules: PhaseRule[] = [
    { phase: 'db', url: /\/server\/src\/store\// },
    { phase: 'auth', url: /authenticate\.ts$/ },
    { phase: 'http', url: /\/node_modules\/(express|router|parseurl)\// },
    { phase: 'write', url: /^node:internal\/stream_base_commons$/, fallback: true },
    { phase: 'write', url: /^node:_http_outgoing$/, fallback: true },
    { phase: 'http', url: /^node:/, fallback: true },
    { phase: 'gc', url: /^$/, fn: /^\(garbage collector\)$/ },
  ];
  const { phases, split } = byPhase(profile(ROWS, SAMPLES), rules, { order: ['http', 'auth', 'db'], splitPhase: 'db', root: ROOT });
  const ms = Object.fromEntries(phases.map((p) => [p.phase, Math.round(p.ms * 10) / 10]));
  // Phases in `order`, then the rules' others, then OTHER.
  assert.deepEqual(
    phases.map((p) => p.phase),
    ['http', 'auth', 'db', 'write', 'gc', OTHER],
  );
  // db: the SQL under the key lookup (4 + 1) and the COMMIT (5); the hash under keyAuth is auth.
  assert.equal(ms.db, 10);
  assert.equal(ms.auth, 2);
  // The write with no rule above it falls back; the one under commitWrite (no rule here) too.
  assert.equal(ms.write, 1 + 0.7);
  assert.equal(ms.http, 0.3);
  assert.equal(ms.gc, 0.8);
  // presenters, ids, (program): no rule anywhere on their stacks.
  assert.equal(ms[OTHER], 1 + 1.5 + 0.5 + 0.2);
  assert.equal(
    phases.reduce((a, p) => a + p.ms, 0),
    18,
  );
  // The db samples by the phase above them: the key lookup's 5 ms, the COMMIT's 5 with no caller.
  assert.deepEqual(
    split.map((p) => [p.phase, p.ms]),
    [
      ['auth', 5],
      ['no caller: server/src/store', 5],
    ],
  );
  assert.match(formatPhases(phases, 4), /^db\s+2\.500\s+55\.6%$/m);
  assert.match(formatPhases(phases, 4), /^phase\s+ms\/create\s+share$/m, 'a create by default');
  assert.match(formatPhases(phases, 4, 'phase', 1, 'read'), /^phase\s+ms\/read\s+share\s+≈ CPU ms\/read$/m, "hot-paths' reads");
});

test('the create phase table: where each sample of the synthetic create goes', () => {
  const { phases, split } = byPhase(profile(ROWS, SAMPLES), CREATE_PHASES, { splitPhase: SQL });
  const ms = Object.fromEntries(phases.map((p) => [p.phase, Math.round(p.ms * 10) / 10]));
  // The native call straight from store/apiKeys.ts is the key lookup's own (its rule names that file).
  assert.equal(ms[SQL], 4 + 5);
  assert.equal(ms[KEY], 2 + 1);
  assert.equal(ms[WRITE], 1 + 0.7);
  assert.equal(ms[EVENTS], 1);
  assert.equal(ms[STORED], 1.5);
  assert.equal(ms[PLAN], 0.5);
  assert.equal(ms[HTTP], 0.3);
  assert.equal(ms.GC, 0.8);
  assert.equal(ms[OTHER], 0.2);
  const bySplit = Object.fromEntries(split.map((p) => [p.phase, p.ms]));
  assert.deepEqual(bySplit, { [KEY]: 4, 'the group commit (BEGIN, SAVEPOINT, COMMIT)': 5 });
});

test('the split names a caller by strong rules only, else the module that matched', () => {
  const rows: Row[] = [
    [1, null, '(root)', '', -1],
    [2, 1, 'onStreamRead', 'node:internal/stream_base_commons', 167],
    [3, 2, 'handleData', pkg('pg/lib/client.js'), 200],
    [4, 1, 'createSignatureRequest', ours('server/src/services/signatureRequests.ts'), 86],
    [5, 4, 'query', pkg('pg/lib/client.js'), 500],
  ];
  // A driver's socket read under Node's stream code (a fallback rule: HTTP), and a query the plan sent.
  const { phases, split } = byPhase(
    profile(rows, [
      [3, 2_000],
      [5, 1_000],
    ]),
    CREATE_PHASES,
    { splitPhase: SQL, root: ROOT },
  );
  assert.equal(phases.find((p) => p.phase === SQL)!.ms, 3);
  assert.deepEqual(
    split.map((p) => [p.phase, p.ms]),
    [
      ['no caller: pg', 2],
      [PLAN, 1],
    ],
  );
});
