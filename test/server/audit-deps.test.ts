/**
 * Issue 17 point 6: scripts/audit-deps.ts end to end — the real `npm audit --omit=dev` of this
 * repository's lockfile, pointed (npm_config_registry) at a local peer of the bulk advisory service
 * that reports advisories for production packages the lockfile really has. A finding not allowlisted
 * fails, an allowlisted one passes, a stale or overdue entry fails, and a service that refuses (405,
 * as this machine's registry does) or cannot be reached is reported as NOT CHECKED (exit 3), never a pass.
 */
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { after, before, describe, it } from 'node:test';
import { startNpmAdvisoryPeer, type NpmAdvisoryPeer, type PeerAdvisory } from '../support/npmAdvisoryPeer.js';

const ROOT = path.resolve(import.meta.dirname, '../..');
const LOCK = JSON.parse(readFileSync(path.join(ROOT, 'package-lock.json'), 'utf8')) as {
  packages: Record<string, { version: string; dev?: boolean }>;
};
/** Two production dependencies of the server, at the versions the lockfile holds. */
const EXPRESS = LOCK.packages['node_modules/express']!;
const ZOD = LOCK.packages['node_modules/zod']!;
const TODAY = '2026-11-28';

const advisory = (id: number, pkg: string, severity: PeerAdvisory['severity']): PeerAdvisory => ({
  id,
  url: `https://github.com/advisories/GHSA-test-${id}-peer`,
  title: `Test advisory ${id} for ${pkg}`,
  severity,
  vulnerable_versions: '>=0.0.0',
  cwe: ['CWE-400'],
});

describe('npm run audit:deps', () => {
  let peer: NpmAdvisoryPeer;
  let dir: string;

  before(async () => {
    assert.ok(!EXPRESS.dev && !ZOD.dev, 'express and zod are production dependencies');
    peer = await startNpmAdvisoryPeer();
    dir = mkdtempSync(path.join(tmpdir(), 'tawqi-audit-'));
  });
  after(async () => {
    await peer?.close();
    rmSync(dir, { recursive: true, force: true });
  });

  // A fresh npm cache per run: npm caches advisories it has worked out, which would hide the peer's changed answers.
  let runs = 0;
  /** The script as CI runs it, on this repository, against `registry`, with `entries` as its allowlist. */
  function audit(entries: unknown[], registry = peer.registry, today = TODAY): Promise<{ code: number; out: string }> {
    const allowlist = path.join(dir, 'allowlist.json');
    writeFileSync(allowlist, JSON.stringify({ accepted: entries }));
    const env = {
      ...process.env,
      npm_config_registry: registry,
      npm_config_cache: path.join(dir, `npm-cache-${++runs}`),
      npm_config_audit: 'true',
    };
    const child = spawn(process.execPath, ['--import', 'tsx', 'scripts/audit-deps.ts', '--allowlist', allowlist, '--today', today], {
      cwd: ROOT,
      env,
    });
    let out = '';
    child.stdout.on('data', (c) => (out += c));
    child.stderr.on('data', (c) => (out += c));
    return new Promise((resolve) => child.on('close', (code) => resolve({ code: code ?? -1, out })));
  }

  const entry = (a: PeerAdvisory, pkg: string, overrides: Record<string, string> = {}) => ({
    advisory: a.url,
    package: pkg,
    severity: a.severity,
    reason: 'Test: the vulnerable code path is not used.',
    reviewed_on: '2026-11-01',
    review_by: '2027-02-01',
    ...overrides,
  });

  it('a clean answer passes; a finding not allowlisted fails and is named', async () => {
    peer.advisories = {};
    const clean = await audit([]);
    assert.equal(clean.code, 0, clean.out);
    assert.match(clean.out, /0 finding\(s\)/);
    assert.equal(peer.lastQuestion?.express?.[0], EXPRESS.version, 'npm asked about the lockfile’s express');
    assert.ok(!('typescript' in (peer.lastQuestion ?? {})), 'dev dependencies are left out (--omit=dev)');

    const a = advisory(1100001, 'express', 'high');
    peer.advisories = { express: [a] };
    const found = await audit([]);
    assert.equal(found.code, 1, found.out);
    assert.match(found.out, new RegExp(`FAIL express: high ${a.url}`));
  });

  it('allowlisted findings pass; an entry that matches nothing or another severity fails', async () => {
    const a = advisory(1100002, 'express', 'moderate');
    const b = advisory(1100003, 'zod', 'low');
    peer.advisories = { express: [a], zod: [b] };
    const ok = await audit([entry(a, 'express'), entry(b, 'zod')]);
    assert.equal(ok.code, 0, ok.out);
    assert.match(ok.out, /2 finding\(s\), all allowlisted/);

    peer.advisories = { express: [a] };
    const stale = await audit([entry(a, 'express'), entry(b, 'zod')]);
    assert.equal(stale.code, 1, stale.out);
    assert.match(stale.out, new RegExp(`FAIL zod ${b.url} \\(low\\) .* matches no finding`));

    peer.advisories = { express: [{ ...a, severity: 'critical' }] };
    const raised = await audit([entry(a, 'express')]);
    assert.equal(raised.code, 1, raised.out);
    assert.match(raised.out, /FAIL express: critical/);
  });

  it('an entry past its review_by date, or reviewed for longer than the rule, fails', async () => {
    const a = advisory(1100004, 'express', 'moderate');
    peer.advisories = { express: [a] };
    const overdue = await audit([entry(a, 'express')], peer.registry, '2027-02-02');
    assert.equal(overdue.code, 1, overdue.out);
    assert.match(overdue.out, /review_by 2027-02-01 has passed/);
    const tooLong = await audit([entry(a, 'express', { review_by: '2027-11-01' })]);
    assert.equal(tooLong.code, 1, tooLong.out);
    assert.match(tooLong.out, /more than 183 days/);
  });

  it('a service that refuses (405) or is not there is NOT CHECKED (exit 3), never a pass', async () => {
    peer.refuse = true;
    const refused = await audit([]);
    peer.refuse = false;
    assert.equal(refused.code, 3, refused.out);
    assert.match(refused.out, /^AUDIT NOT CHECKED: .*405 Method Not Allowed.*This is not a pass\.$/m);
    assert.doesNotMatch(refused.out, /all allowlisted/);

    const closed = await startNpmAdvisoryPeer();
    const nowhere = closed.registry;
    await closed.close();
    const unreachable = await audit([], nowhere);
    assert.equal(unreachable.code, 3, unreachable.out);
    assert.match(unreachable.out, /^AUDIT NOT CHECKED: .*ECONNREFUSED/m);
    // An overdue entry still fails: the review rule needs no service.
    const a = advisory(1100005, 'express', 'low');
    const overdue = await audit([entry(a, 'express', { review_by: '2026-11-27' })], nowhere);
    assert.equal(overdue.code, 1, overdue.out);
  });
});
