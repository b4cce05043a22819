/**
 * Benchmark seal (not a test): from the commit that completes a request to its final PDF being
 * ready (pdf_status ready), per format, for a two-page contract with two drawn signatures.
 * See bench/seal/README.md.
 *
 *   node --conditions=tawqi-source --import tsx bench/seal/run.ts      (or: npm run bench -- seal)
 *
 * The real server runs in this process with jobs run by hand (manualJobs, as the tests do), so the
 * seal job of each completed request runs in a `runDue()` this driver times. Per format: warm-up
 * documents, then N documents one at a time (complete, then seal: the latency), then N more
 * completed first and sealed back to back by one `runDue()` (the throughput).
 * Output: one JSON line per format. Exit 1 when a document was not sealed correctly.
 *
 * Environment: BENCH_SEAL_N (documents measured per format, default 30), BENCH_SEAL_WARMUP
 * (default 3), BENCH_SEAL_FORMATS (comma list, default platform-evidence,pades-t,pades-lt),
 * BENCH_DATABASE (sqlite, the default, or postgres: a throwaway cluster for the run, see
 * bench/support/postgres.ts).
 */
import { createHash, randomUUID } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { cpus, loadavg, tmpdir } from 'node:os';
import path from 'node:path';
import { PDFDocument } from 'pdf-lib';
import { systemClock } from '../../server/src/clock.js';
import { loadConfig } from '../../server/src/config.js';
import { sealedPdfKey } from '../../server/src/domain/fileKeys.js';
import { startServer, type RunningServer } from '../../server/src/server.js';
import { createAccount } from '../../server/src/services/accounts.js';
import { applySignerMove, type ActionOrigin } from '../../server/src/services/signerActions.js';
import { validSignatureImage } from '../../server/src/services/signerJourney.js';
import { getEvidence, getSealedDocument } from '../../server/src/store/sealing.js';
import { updateSigner } from '../../server/src/store/signatureRequests.js';
import { BENCH_DATABASE, BENCH_PG_SETTINGS, postgresEnv, startBenchPostgres, type BenchPostgres } from '../support/postgres.js';
import { dataUrl, FIELD_VALUES, signaturePng, SIGNERS, TEMPLATE, templateWords } from './workload.js';

const N = Number(process.env.BENCH_SEAL_N ?? 30);
const WARMUP = Number(process.env.BENCH_SEAL_WARMUP ?? 3);

interface FormatCase {
  format: 'platform-evidence' | 'pades-t' | 'pades-lt';
  legal_level: 'ses' | 'aes';
  /** The target for the median, ms; null when it sets none. */
  target_ms: number | null;
}

const CASES: FormatCase[] = [
  { format: 'platform-evidence', legal_level: 'ses', target_ms: 150 },
  { format: 'pades-t', legal_level: 'aes', target_ms: null },
  { format: 'pades-lt', legal_level: 'aes', target_ms: 150 }, // B-LTA (issue 19)
];
const wanted = (process.env.BENCH_SEAL_FORMATS ?? CASES.map((c) => c.format).join(',')).split(',').map((f) => f.trim());
const unknown = wanted.filter((f) => !CASES.some((c) => c.format === f));
if (unknown.length > 0) throw new Error(`BENCH_SEAL_FORMATS: unknown format(s) ${unknown.join(', ')}`);

const ORIGIN: ActionOrigin = {
  ip: '198.51.100.23',
  user_agent: 'Mozilla/5.0 (X11; Linux x86_64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/126.0 Safari/537.36',
};
/** Two different signatures (600×200 RGBA PNG, ~18 KB each), drawn once. */
const SIGNATURES = SIGNERS.map((_, i) => dataUrl(signaturePng(i + 1)));
if (!SIGNATURES.every(validSignatureImage)) throw new Error('the drawn signatures would be refused by the signing page');

const out = (line: unknown) => console.log(JSON.stringify(line));
const note = (text: string) => console.error(`[seal] ${text}`);
const percentile = (sorted: number[], p: number) => sorted[Math.min(sorted.length - 1, Math.ceil((p / 100) * sorted.length) - 1)]!;
const round = (n: number, d = 1) => Math.round(n * 10 ** d) / 10 ** d;
/** CPU time (user + system) of this whole process, ms: the server, its jobs and its SQLite threads. */
const cpuMs = () => {
  const u = process.cpuUsage();
  return (u.user + u.system) / 1000;
};

class Bench {
  /** While a timed runDue() runs: the instants of its afterCommit() calls. */
  private commits: number[] | null = null;

  private constructor(
    private readonly running: RunningServer,
    private readonly key: string,
    private readonly templateId: string,
  ) {
    // With manualJobs afterCommit does nothing; the seal job calls it right after the transaction
    // that sets pdf_status ready. The first call of a timed runDue() is that one (the seal job is
    // the only job due until that commit queues the final-file notices, whose deliveries do not
    // call it), so it gives the instant the PDF became ready, apart from the deliveries; check()
    // then confirms the document is ready. Nothing is read here: no query inside the timed call.
    running.ctx.afterCommit = () => this.commits?.push(performance.now());
  }

  static async start(dataDir: string, databaseUrl: string | null): Promise<Bench> {
    const running = await startServer(
      loadConfig({
        ...(databaseUrl ? postgresEnv(databaseUrl) : {}),
        DATA_DIR: dataDir,
        PORT: '0',
        TAWQI_LOG_LEVEL: 'silent',
        TAWQI_RATE_LIMIT: '100000000',
        TAWQI_IP_RATE_LIMIT: '100000000',
      }),
      { manualJobs: true },
    );
    try {
      const { keys } = await createAccount(running.ctx.store, systemClock, {
        name: 'Seal Benchmark Co',
        plan: 'enterprise',
        planExpiresAt: Math.floor(Date.now() / 1000) + 365 * 86400,
        kyb: 'approved',
        balanceSends: 1_000_000,
        walletMinor: 100_000_000,
        currency: running.ctx.config.TAWQI_CURRENCY,
      });
      const template = await post(running.url, keys.secret_live, '/api/v1/templates', TEMPLATE);
      if (template.status !== 201) throw new Error(`POST /api/v1/templates: ${template.status} ${JSON.stringify(template.body)}`);
      return new Bench(running, keys.secret_live, String(template.body.id));
    } catch (err) {
      await running.close();
      throw err;
    }
  }

  close(): Promise<void> {
    return this.running.close();
  }

  /**
   * Create a live request and drive it to one signature short of completion: every signer views,
   * passes the OTP (and for aes the identity) step, every signer but the last signs with a drawn
   * image, and every job due so far runs (invitations), so the next runDue() after the last
   * signature is the seal's. Returns the completing move: the last signature, one transaction.
   */
  async prepare(c: FormatCase): Promise<{ id: string; complete: () => Promise<void> }> {
    const { ctx } = this.running;
    const created = await post(this.running.url, this.key, '/api/v1/signature_requests', {
      title: 'Master Services Agreement',
      legal_level: c.legal_level,
      format: c.format,
      source: { type: 'template', template_id: this.templateId },
      signers: SIGNERS.map((s, i) => ({ name: s.name, email: s.email, fields: i === 0 ? FIELD_VALUES : {} })),
    });
    if (created.status !== 201) throw new Error(`create (${c.format}): ${created.status} ${JSON.stringify(created.body)}`);
    const id = String(created.body.id);
    const signerIds = (created.body.signers as { id: string }[]).map((s) => s.id);
    for (const signerId of signerIds) {
      await ctx.store.tx((trx) => applySignerMove(ctx, trx, signerId, 'view', ORIGIN));
      await ctx.store.tx((trx) => applySignerMove(ctx, trx, signerId, 'otp_verified', ORIGIN));
      if (c.legal_level === 'aes')
        await ctx.store.tx((trx) =>
          applySignerMove(ctx, trx, signerId, 'identity_verified', ORIGIN, { identity: { provider: 'simulation' } }),
        );
    }
    const sign = (i: number) =>
      ctx.store.tx(async (trx) => {
        // As the signing page does (signOnPage in services/signerJourney.ts): the drawn image and the
        // signature in one transaction.
        await updateSigner(trx, signerIds[i]!, { signature_image: SIGNATURES[i]! });
        await applySignerMove(ctx, trx, signerIds[i]!, 'sign', ORIGIN);
      });
    for (let i = 0; i < signerIds.length - 1; i++) await sign(i);
    await this.running.jobs.runDue();
    return { id, complete: () => sign(signerIds.length - 1) };
  }

  /**
   * One document: complete it, then time the runDue() that seals it. `cpu`: this process's CPU ms;
   * `pgCpu`: the PostgreSQL cluster's (null on SQLite).
   */
  async one(c: FormatCase): Promise<{ id: string; ms: number; readyMs: number; cpu: number; pgCpu: number | null; jobs: number }> {
    const { id, complete } = await this.prepare(c);
    await complete(); // the completing commit: the request is completed and its seal job scheduled
    this.commits = [];
    const pg0 = postgres?.cpuMs() ?? null;
    const cpu0 = cpuMs();
    const t0 = performance.now();
    const jobs = await this.running.jobs.runDue();
    const t1 = performance.now();
    const cpu = cpuMs() - cpu0;
    const pg1 = postgres?.cpuMs() ?? null;
    const readyAt = this.commits[0];
    this.commits = null;
    if (readyAt === undefined) throw new Error(`${c.format} ${id}: the seal job committed nothing`);
    return { id, ms: t1 - t0, readyMs: readyAt - t0, cpu, pgCpu: pg0 === null || pg1 === null ? null : pg1 - pg0, jobs };
  }

  /** Many completed documents sealed back to back by one runDue(); returns the elapsed ms. */
  async batch(c: FormatCase, n: number): Promise<{ ids: string[]; ms: number }> {
    // Prepare every request first (prepare() runs the jobs due so far), then complete them all:
    // the seal jobs of all n are due together and nothing has sealed any of them yet.
    const prepared = [];
    for (let i = 0; i < n; i++) prepared.push(await this.prepare(c));
    for (const p of prepared) await p.complete();
    const ids = prepared.map((p) => p.id);
    const t0 = performance.now();
    await this.running.jobs.runDue();
    return { ids, ms: performance.now() - t0 };
  }

  /** The completion certificate alone (its pages are the final PDF's last pages). */
  async certificate(id: string): Promise<Uint8Array> {
    const res = await fetch(`${this.running.url}/api/v1/signature_requests/${id}/certificate`, {
      headers: { authorization: `Bearer ${this.key}` },
    });
    if (res.status !== 200) throw new Error(`GET certificate: ${res.status}`);
    return new Uint8Array(await res.arrayBuffer());
  }

  /** The document is sealed as the format says: ready, file hash, evidence record (live), PAdES structure. */
  async check(c: FormatCase, id: string): Promise<Uint8Array> {
    const db = this.running.ctx.store.db;
    const sealed = await getSealedDocument(db, id);
    if (sealed?.pdf_status !== 'ready') throw new Error(`${c.format} ${id}: pdf_status ${sealed?.pdf_status} (${sealed?.error ?? ''})`);
    const bytes = await this.running.ctx.files.get(sealedPdfKey(id));
    if (!bytes) throw new Error(`${c.format} ${id}: pdf_status ready but no file in ${this.running.ctx.files.description}`);
    if (createHash('sha256').update(bytes).digest('hex') !== sealed.pdf_sha256)
      throw new Error(`${c.format} ${id}: the file does not match pdf_sha256`);
    if (!(await getEvidence(db, id))) throw new Error(`${c.format} ${id}: no evidence record (live mode)`);
    const raw = bytes.toString('latin1');
    const signed = /\/ByteRange\s*\[/.test(raw);
    if (signed !== (c.format !== 'platform-evidence'))
      throw new Error(`${c.format} ${id}: ${signed ? 'unexpected' : 'no'} PAdES signature`);
    // pades-lt is B-LTA: a /DSS, then a document timestamp.
    for (const marker of ['/DSS', '/DocTimeStamp']) {
      if (raw.includes(marker) !== (c.format === 'pades-lt'))
        throw new Error(`${c.format} ${id}: ${marker} ${c.format === 'pades-lt' ? 'missing' : 'unexpected'}`);
    }
    return bytes;
  }
}

const pageCount = async (pdf: Uint8Array) => (await PDFDocument.load(pdf, { updateMetadata: false })).getPageCount();

async function post(base: string, key: string, p: string, body: unknown): Promise<{ status: number; body: Record<string, unknown> }> {
  const res = await fetch(base + p, {
    method: 'POST',
    headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json', 'idempotency-key': randomUUID() },
    body: JSON.stringify(body),
  });
  return { status: res.status, body: (await res.json()) as Record<string, unknown> };
}

async function benchFormat(bench: Bench, c: FormatCase): Promise<void> {
  const started = performance.now();
  for (let i = 0; i < WARMUP; i++) await bench.check(c, (await bench.one(c)).id);

  const runs: Awaited<ReturnType<Bench['one']>>[] = [];
  for (let i = 0; i < N; i++) {
    const run = await bench.one(c);
    await bench.check(c, run.id);
    runs.push(run);
  }
  const throughput = await bench.batch(c, N);
  for (const id of throughput.ids) await bench.check(c, id);

  const ms = runs.map((r) => r.ms).sort((a, b) => a - b);
  const ready = runs.map((r) => r.readyMs).sort((a, b) => a - b);
  const median = percentile(ms, 50);
  const sample = await bench.check(c, runs[0]!.id);
  const pages = await pageCount(sample);
  const contractPages = pages - (await pageCount(await bench.certificate(runs[0]!.id)));
  if (contractPages !== 2)
    note(`${c.format}: the contract takes ${contractPages} pages, not 2: the workload no longer matches the benchmark's description`);
  note(
    `${c.format}: ${WARMUP} warm-up + ${N} timed + ${N} back to back in ${round((performance.now() - started) / 1000)} s; ` +
      `PDF ${pages} pages (contract ${contractPages}, certificate ${pages - contractPages}), ${Math.round(sample.length / 1024)} KB; ` +
      `jobs per timed runDue() ${Math.min(...runs.map((r) => r.jobs))}-${Math.max(...runs.map((r) => r.jobs))}; ` +
      `ready (seal committed) median ${round(percentile(ready, 50))} ms, p95 ${round(percentile(ready, 95))} ms`,
  );
  out({
    bench: 'seal',
    format: c.format,
    n: N,
    median_ms: round(median),
    p95_ms: round(percentile(ms, 95)),
    docs_per_s: round((N * 1000) / throughput.ms),
    cpu_ms_per_doc: round(runs.reduce((sum, r) => sum + r.cpu, 0) / N),
    ...(postgres
      ? {
          database: 'postgres',
          synchronous_commit: BENCH_PG_SETTINGS.synchronous_commit,
          postgres_cpu_ms_per_doc: runs.some((r) => r.pgCpu === null) ? null : round(runs.reduce((sum, r) => sum + r.pgCpu!, 0) / N),
        }
      : {}),
    target_ms: c.target_ms,
    met: c.target_ms === null ? null : median < c.target_ms,
    loadavg_1m: round(loadavg()[0]!, 2),
  });
}

const load1 = loadavg()[0]!;
if (load1 > cpus().length * 0.5)
  note(`the 1-minute load average is ${load1.toFixed(2)} on ${cpus().length} cores: other work will skew the figures`);
note(
  `template: ${templateWords()} words; signatures: 600×200 RGBA PNG, ${SIGNATURES.map((s) => Math.round((s.length * 3) / 4 / 1024)).join(' and ')} KB`,
);

const dataDir = mkdtempSync(path.join(tmpdir(), 'tawqi-bench-seal-'));
let postgres: BenchPostgres | null = null;
let bench: Bench | null = null;
try {
  postgres = BENCH_DATABASE === 'postgres' ? await startBenchPostgres() : null;
  bench = await Bench.start(dataDir, postgres ? await postgres.createDatabase() : null);
  for (const c of CASES) if (wanted.includes(c.format)) await benchFormat(bench, c);
} catch (err) {
  note(`failed: ${err instanceof Error ? err.message : String(err)}`);
  process.exitCode = 1;
} finally {
  await bench?.close();
  postgres?.stop();
  rmSync(dataDir, { recursive: true, force: true });
}
