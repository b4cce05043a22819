/**
 * agent-sign: the round trip of a signature through the local agent, from the page sending `sign`
 * over the WebSocket to the finished CMS arriving back, with SoftHSM2 and a preset PIN.
 *
 *   node --conditions=tawqi-source --import tsx bench/agent-sign/run.ts      (or: npm run bench -- agent-sign)
 *
 * Two processes besides this driver's own helpers: the agent (`tawqi-agent serve` from source, with
 * TAWQI_AGENT_TEST_CONSENT=yes and TAWQI_AGENT_TEST_PIN so no human is in the loop) and, in this
 * process, a small "server" origin that publishes the Ed25519 ticket key and serves the page-1
 * preview. Each round trip includes everything the agent does for a real request: ticket check,
 * token scan, preview fetch through the ticket, the terminal consent, login, signing on the token,
 * logout, CMS assembly. See README.md beside this file.
 */
import { spawn } from 'node:child_process';
import { createHash } from 'node:crypto';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { loadavg, tmpdir } from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { createSoftHsm } from '../../test/support/softhsm.js';
import { opensslVerify, PageClient, startFakeServer } from '../../test/agent/helpers.js';

const ROOT = fileURLToPath(new URL('../../', import.meta.url));
const CLI = path.join(ROOT, 'agent/src/cli/main.ts');
const SIGNS = Number(process.env.BENCH_SIGNS ?? 200);
const WARMUP = Number(process.env.BENCH_WARMUP ?? 20);
const TARGET_MEDIAN_MS = 100;

const out = (line: unknown) => console.log(JSON.stringify(line));
const round = (n: number, d = 2) => Math.round(n * 10 ** d) / 10 ** d;
const quantile = (sorted: number[], q: number) => sorted[Math.min(sorted.length - 1, Math.ceil(q * sorted.length) - 1)] ?? NaN;

if (loadavg()[0]! > 1) console.error(`warning: load average ${loadavg()[0]} at start: figures will be skewed`);

const hsm = createSoftHsm({}, false);
const server = await startFakeServer();
const home = mkdtempSync(path.join(tmpdir(), 'tawqi-bench-agent-'));
writeFileSync(
  path.join(home, 'config.json'),
  JSON.stringify({ modules: [hsm.module], known_modules: false, ports: [0], log_level: 'warn' }),
);
writeFileSync(
  path.join(home, 'trusted-servers.json'),
  JSON.stringify({
    version: 1,
    servers: [{ origin: server.origin, key_pem: server.publicKeyPem, fingerprint: server.fingerprint, added_at: 0 }],
  }),
);

const agent = spawn(process.execPath, ['--conditions=tawqi-source', '--import', 'tsx', CLI, 'serve'], {
  cwd: ROOT,
  env: { ...hsm.env, TAWQI_AGENT_HOME: home, TAWQI_AGENT_TEST_PIN: hsm.pin, TAWQI_AGENT_TEST_CONSENT: 'yes' },
  stdio: ['pipe', 'pipe', 'pipe'],
});
agent.stderr?.resume(); // the terminal consent text of every request
let failed = 0;
try {
  const port = await new Promise<number>((resolve, reject) => {
    let text = '';
    agent.stdout?.on('data', (d: Buffer) => {
      text += d.toString();
      const m = /listening on ws:\/\/127\.0\.0\.1:(\d+)/.exec(text);
      if (m) resolve(Number(m[1]));
    });
    agent.once('exit', (code) => reject(new Error(`the agent exited (${code})`)));
  });
  const page = await PageClient.open(port, server.origin);
  await page.hello();

  for (const [name, cert] of [
    ['rsa-2048', hsm.certs.rsa],
    ['ec-p256', hsm.certs.ec],
  ] as const) {
    const content = Buffer.from(`document for ${name}`);
    const digest = createHash('sha256').update(content).digest('hex');
    const times: number[] = [];
    let errors = 0;
    let verified: boolean | null = null;
    for (let i = 0; i < WARMUP + SIGNS; i++) {
      const ticket = server.mint({ cert_sha256: cert.sha256, digest });
      const t0 = performance.now();
      const id = page.send({ type: 'sign', ticket, cert_sha256: cert.sha256 });
      const answer = await page.answer(id, 30_000);
      const ms = performance.now() - t0;
      if (answer.type !== 'signature') {
        errors++;
        continue;
      }
      if (verified === null) verified = opensslVerify(Buffer.from(answer.cms, 'base64'), content, hsm.rootPemFile).ok;
      if (i >= WARMUP) times.push(ms);
    }
    times.sort((a, b) => a - b);
    const median = quantile(times, 0.5);
    out({
      bench: 'agent-sign',
      key: name,
      signs: times.length,
      median_ms: round(median),
      p95_ms: round(quantile(times, 0.95)),
      min_ms: round(times[0] ?? NaN),
      max_ms: round(times.at(-1) ?? NaN),
      errors,
      cms_verified: verified,
      target_median_ms: TARGET_MEDIAN_MS,
      targets_met: median < TARGET_MEDIAN_MS,
      loadavg_1m: round(loadavg()[0]!, 2),
    });
    if (errors > 0 || verified !== true) failed++;
  }
  page.close();
} catch (error) {
  console.error(error);
  failed++;
} finally {
  agent.kill('SIGTERM');
  await new Promise((resolve) => agent.once('exit', resolve));
  await server.close();
  hsm.cleanup();
  rmSync(home, { recursive: true, force: true });
}
process.exitCode = failed > 0 ? 1 : 0;
