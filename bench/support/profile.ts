/**
 * Reading a V8 CPU profile (a .cpuprofile: what `node --cpu-prof` or the inspector's Profiler.stop
 * writes) for the benchmarks: the functions with the most self time, grouped by module, and the
 * samples attributed to phases by a table of rules.
 *
 * A profile is a call tree (`nodes`, each a call frame and its children) and a list of samples: the
 * tree node running at each tick (`samples`) and the microseconds since the tick before
 * (`timeDeltas`). A sample lasts until the next one (the last until `endTime`), as DevTools counts
 * it. A sample is taken on the main thread whether it is computing or blocked in a system call (a
 * synchronous fsync counts as time of the function that called it); only time spent waiting in the
 * event loop is `(idle)`, which no total here includes.
 */
import path from 'node:path';
import { fileURLToPath } from 'node:url';

export interface CallFrame {
  functionName: string;
  url: string;
  /** 0-based, as V8 writes it. */
  lineNumber: number;
  columnNumber?: number;
  scriptId?: string;
}

export interface ProfileNode {
  id: number;
  callFrame: CallFrame;
  children?: number[];
  hitCount?: number;
}

export interface CpuProfile {
  nodes: ProfileNode[];
  /** Microseconds (a monotonic clock). */
  startTime: number;
  endTime: number;
  samples: number[];
  timeDeltas: number[];
}

/** The frames V8 adds that are not functions of a script. */
export const IDLE = '(idle)';
export const GC = '(garbage collector)';
export const PROGRAM = '(program)';
const ROOT = '(root)';
const SPECIAL = new Set([IDLE, GC, PROGRAM, ROOT]);

/** The repository this file is in: modules of our code are named by their folder relative to it. */
export const REPO_ROOT = fileURLToPath(new URL('../..', import.meta.url));

/**
 * One rule of a phase table: a frame matches when its URL matches `url` and its function name
 * matches `fn` (either may be left out, not both). `fallback` rules count only when no other rule
 * matches any frame of the sample (for code that runs under everything, like Node's stream
 * internals, which should be named by the code that called it when there is any).
 */
export interface PhaseRule {
  phase: string;
  url?: RegExp;
  fn?: RegExp;
  fallback?: boolean;
  /** For the split phase (PhaseOptions): what its samples matched by this rule are told as. */
  splitAs?: string;
}

/** Where a sample is when no rule matches any of its frames. */
export const OTHER = 'other';

const isSpecial = (frame: CallFrame): boolean => frame.url === '' && SPECIAL.has(frame.functionName);

/**
 * The module a frame belongs to: the package for code under node_modules (`express`, `@scope/name`),
 * `node` for Node's own modules, the repo-relative folder for our code (`server/src/http/middleware`),
 * `(native)` for a native function or builtin with no script, the special frame itself for
 * `(garbage collector)`, `(program)` and `(idle)`.
 */
export function moduleOf(frame: CallFrame, root = REPO_ROOT): string {
  if (isSpecial(frame)) return frame.functionName;
  const { url } = frame;
  if (url === '') return '(native)';
  if (url.startsWith('node:')) return 'node';
  const file = url.startsWith('file://') ? fileURLToPath(url) : url;
  const inModules = file.lastIndexOf('/node_modules/');
  if (inModules >= 0) {
    const parts = file.slice(inModules + '/node_modules/'.length).split('/');
    return parts[0]!.startsWith('@') ? `${parts[0]}/${parts[1]}` : parts[0]!;
  }
  const relative = path.relative(root, file);
  return relative.startsWith('..') ? path.dirname(file) : path.dirname(relative);
}

/** A frame's file as shown: repo-relative for our code, from the package for node_modules, the URL otherwise. */
export function fileOf(frame: CallFrame, root = REPO_ROOT): string {
  const { url } = frame;
  if (url === '' || url.startsWith('node:')) return url || '(native)';
  const file = url.startsWith('file://') ? fileURLToPath(url) : url;
  const inModules = file.lastIndexOf('/node_modules/');
  if (inModules >= 0) return file.slice(inModules + '/node_modules/'.length);
  const relative = path.relative(root, file);
  return relative.startsWith('..') ? file : relative;
}

/** How long each sample lasted (ms): until the next sample, the last one until the profile's end. */
export function sampleDurations(profile: CpuProfile): number[] {
  const { samples, timeDeltas } = profile;
  const times: number[] = [];
  let t = profile.startTime;
  for (let i = 0; i < samples.length; i++) times.push((t += timeDeltas[i] ?? 0));
  return times.map((start, i) => Math.max(0, (i + 1 < times.length ? times[i + 1]! : Math.max(profile.endTime, start)) - start) / 1000);
}

/** Each node's parent (the root has none). */
function parents(profile: CpuProfile): Map<number, ProfileNode> {
  const parent = new Map<number, ProfileNode>();
  for (const n of profile.nodes) for (const c of n.children ?? []) parent.set(c, n);
  return parent;
}

/** Milliseconds of samples per node (self time), and the idle and total time. */
function selfTimes(profile: CpuProfile): { self: Map<number, number>; idleMs: number; spanMs: number } {
  const durations = sampleDurations(profile);
  const byId = new Map(profile.nodes.map((n) => [n.id, n]));
  const self = new Map<number, number>();
  let idleMs = 0;
  profile.samples.forEach((id, i) => {
    const ms = durations[i]!;
    const frame = byId.get(id)?.callFrame;
    if (frame?.functionName === IDLE && frame.url === '') idleMs += ms;
    else self.set(id, (self.get(id) ?? 0) + ms);
  });
  return { self, idleMs, spanMs: (profile.endTime - profile.startTime) / 1000 };
}

export interface FunctionTime {
  function: string;
  module: string;
  /** file:line (1-based), as fileOf shows the file. */
  location: string;
  selfMs: number;
}

export interface ProfileSummary {
  /** From the profile's start to its end. */
  spanMs: number;
  /** Samples in the event loop's wait: left out of `busyMs` and every share. */
  idleMs: number;
  /** Every other sample: JS, native code, `(program)` and `(garbage collector)`. */
  busyMs: number;
  /** Every function (one per name and location) by self time, most first. */
  functions: FunctionTime[];
  /** Self time per module, most first. */
  modules: { module: string; selfMs: number }[];
}

/**
 * Self time per function (frames of one name at one place are one function) and per module. A
 * native function (a binding's method, like better-sqlite3's `run`, or Node's `writev`) has no
 * place of its own: it is told apart by the function that called it (`run ← #commitGroup`, at the
 * caller's place), so the same native method called for different work is not one entry.
 */
export function summarise(profile: CpuProfile, root = REPO_ROOT): ProfileSummary {
  const { self, idleMs, spanMs } = selfTimes(profile);
  const parent = parents(profile);
  const byKey = new Map<string, FunctionTime>();
  const modules = new Map<string, number>();
  for (const node of profile.nodes) {
    const ms = self.get(node.id);
    if (ms === undefined) continue;
    const { function: name, location } = describe(node, parent, root);
    const key = `${name}\u0000${location}`;
    const entry = byKey.get(key) ?? { function: name, module: moduleOf(node.callFrame, root), location, selfMs: 0 };
    entry.selfMs += ms;
    byKey.set(key, entry);
    modules.set(entry.module, (modules.get(entry.module) ?? 0) + ms);
  }
  const busyMs = [...self.values()].reduce((a, b) => a + b, 0);
  return {
    spanMs,
    idleMs,
    busyMs,
    functions: [...byKey.values()].sort((a, b) => b.selfMs - a.selfMs),
    modules: [...modules].map(([module, selfMs]) => ({ module, selfMs })).sort((a, b) => b.selfMs - a.selfMs),
  };
}

const nameOf = (frame: CallFrame): string => frame.functionName || '(anonymous)';
const placeOf = (frame: CallFrame, root: string): string => `${fileOf(frame, root)}:${frame.lineNumber + 1}`;

/** A function's name and place as listed; a native one by its caller's (the first caller with a script). */
function describe(node: ProfileNode, parent: Map<number, ProfileNode>, root: string): { function: string; location: string } {
  const frame = node.callFrame;
  if (isSpecial(frame)) return { function: frame.functionName, location: '' };
  if (frame.url !== '') return { function: nameOf(frame), location: placeOf(frame, root) };
  let caller = parent.get(node.id);
  while (caller && caller.callFrame.url === '' && !isSpecial(caller.callFrame)) caller = parent.get(caller.id);
  if (!caller || isSpecial(caller.callFrame)) return { function: `${nameOf(frame)} (native)`, location: '' };
  return { function: `${nameOf(frame)} (native) ← ${nameOf(caller.callFrame)}`, location: placeOf(caller.callFrame, root) };
}

/** The rule a frame matches first (among strong rules, or among fallback ones), or undefined. */
function frameRule(frame: CallFrame, rules: readonly PhaseRule[], fallback: boolean): PhaseRule | undefined {
  for (const r of rules) {
    if (Boolean(r.fallback) !== fallback) continue;
    if (r.url && !r.url.test(frame.url)) continue;
    if (r.fn && !r.fn.test(frame.functionName)) continue;
    if (r.url || r.fn) return r;
  }
  return undefined;
}

export interface PhaseTime {
  phase: string;
  /** Samples whose first matching frame, from the leaf up, is this phase's. */
  ms: number;
}

export interface PhaseOptions {
  /** The phases in the order to report them; a phase of the rules not listed comes after them. */
  order?: readonly string[];
  /** A phase whose samples are also told by the phase that called into it (`split`). */
  splitPhase?: string;
  /** The repository, for the modules named in the split (moduleOf). */
  root?: string;
}

export interface Phases {
  phases: PhaseTime[];
  /**
   * With `splitPhase` (e.g. the SQL statements): its samples again, by the code that ran them: the
   * rule's `splitAs` when the frame that matched has one, else the next phase a (non-fallback)
   * rule finds further up the stack, else `no caller: <module>` with the module of the frame that matched (no phase's code
   * left on the stack: an async function resumed after an await, a driver's deferred socket write).
   */
  split: PhaseTime[];
}

/**
 * Attribute every sample but the idle ones to one phase: walk its stack from the leaf to the root
 * and take the first frame a (non-fallback) rule matches; if none does, the first a fallback rule
 * matches; else OTHER. Returns every phase of `order`, of the rules and OTHER, in that order, and
 * the split of `splitPhase` by caller (most first).
 */
export function byPhase(profile: CpuProfile, rules: readonly PhaseRule[], options: PhaseOptions = {}): Phases {
  const { self } = selfTimes(profile);
  const parent = parents(profile);
  const byId = new Map(profile.nodes.map((n) => [n.id, n]));
  const names = [...new Set([...(options.order ?? []), ...rules.map((r) => r.phase), OTHER])];
  const times = new Map(names.map((phase) => [phase, 0]));
  const split = new Map<string, number>();
  for (const [id, ms] of self) {
    const found = attribute(byId.get(id)!, parent, rules, options.splitPhase, options.root ?? REPO_ROOT);
    times.set(found.phase, times.get(found.phase)! + ms);
    if (found.caller !== undefined) split.set(found.caller, (split.get(found.caller) ?? 0) + ms);
  }
  return {
    phases: [...times].map(([phase, ms]) => ({ phase, ms })),
    split: [...split].map(([phase, ms]) => ({ phase, ms })).sort((a, b) => b.ms - a.ms),
  };
}

/** One stack's phase (leaf to root, strong rules before fallback ones) and, for the split phase, its caller. */
function attribute(
  leaf: ProfileNode,
  parent: Map<number, ProfileNode>,
  rules: readonly PhaseRule[],
  splitPhase: string | undefined,
  root: string,
): { phase: string; caller?: string } {
  const stack: CallFrame[] = [];
  for (let n: ProfileNode | undefined = leaf; n; n = parent.get(n.id)) stack.push(n.callFrame);
  for (const fallback of [false, true]) {
    const matched = stack.map((f) => frameRule(f, rules, fallback));
    const at = matched.findIndex((r) => r !== undefined);
    if (at < 0) continue;
    const rule = matched[at]!;
    if (rule.phase !== splitPhase) return { phase: rule.phase };
    if (rule.splitAs) return { phase: rule.phase, caller: rule.splitAs };
    // Only strong rules name a caller: Node's stream internals above a driver's code are its socket, not HTTP.
    const above = stack.slice(at + 1).map((f) => frameRule(f, rules, false)?.phase);
    const caller = above.find((p) => p !== undefined && p !== splitPhase);
    return { phase: rule.phase, caller: caller ?? `no caller: ${moduleOf(stack[at]!, root)}` };
  }
  return { phase: OTHER };
}

const ms1 = (x: number): string => x.toFixed(1).padStart(8);
const pct = (x: number, total: number): string => `${((100 * x) / (total || 1)).toFixed(1).padStart(5)}%`;

/**
 * The `top` functions with most self time as text, under their modules (a module's line gives its
 * whole self time, its functions those of the top list), then the idle time, which no share counts.
 */
export function formatTopFunctions(summary: ProfileSummary, top = 20): string {
  const chosen = summary.functions.slice(0, top);
  const moduleTime = new Map(summary.modules.map((m) => [m.module, m.selfMs]));
  const order = [...new Set(chosen.map((f) => f.module))].sort((a, b) => moduleTime.get(b)! - moduleTime.get(a)!);
  const lines = [`top ${chosen.length} functions by self time (of ${summary.busyMs.toFixed(0)} ms busy), by module:`];
  for (const module of order) {
    lines.push(`${ms1(moduleTime.get(module)!)} ms ${pct(moduleTime.get(module)!, summary.busyMs)}  ${module} (whole module)`);
    for (const f of chosen.filter((c) => c.module === module))
      lines.push(`${ms1(f.selfMs)} ms ${pct(f.selfMs, summary.busyMs)}      ${f.function}${f.location ? `  ${f.location}` : ''}`);
  }
  lines.push(`(idle ${summary.idleMs.toFixed(0)} ms of ${summary.spanMs.toFixed(0)} ms, not counted)`);
  return lines.join('\n');
}

/**
 * The phase table as text: ms per unit of work (`count` of them, e.g. creates) and share of the
 * total; with `cpuPerCount` (the run's measured CPU per unit) also that CPU shared out by the phases'
 * shares (`≈ CPU`).
 */
export function formatPhases(
  phases: readonly PhaseTime[],
  count: number,
  title = 'phase',
  cpuPerCount: number | null = null,
  unit = 'create',
): string {
  const total = phases.reduce((a, p) => a + p.ms, 0);
  const per = (ms: number): string => (ms / Math.max(1, count)).toFixed(3).padStart(9);
  const cpu = (ms: number): string => (cpuPerCount === null ? '' : `  ${((cpuPerCount * ms) / (total || 1)).toFixed(3).padStart(9)}`);
  const width = Math.max(...phases.map((p) => p.phase.length), title.length, 5);
  const rows = phases.map((p) => `${p.phase.padEnd(width)}  ${per(p.ms)}  ${pct(p.ms, total)}${cpu(p.ms)}`);
  const head = `${title.padEnd(width)}  ms/${unit}   share${cpuPerCount === null ? '' : `  ≈ CPU ms/${unit}`}`;
  return [head, ...rows, `${'total'.padEnd(width)}  ${per(total)}  100.0%${cpu(total)}`].join('\n');
}
