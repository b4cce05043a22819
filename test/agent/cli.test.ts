/**
 * The CLI shell (`tawqi-agent`, run from source): trust add / list / remove with the fingerprint
 * shown and a confirmation, `tokens`, and `serve` signing with the terminal consent and the test-only
 * PIN source (TAWQI_AGENT_TEST_PIN / TAWQI_AGENT_TEST_CONSENT).
 */
import assert from 'node:assert/strict';
import type { ChildProcess } from 'node:child_process';
import { createHash } from 'node:crypto';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { after, before, describe, test } from 'node:test';
import { formatFingerprint } from '../../agent/src/core/trust.js';
import { createSoftHsm, type SoftHsm } from '../support/softhsm.js';
import {
  AGENT_CHILD_DEADLINE_MS,
  listeningPort,
  opensslVerify,
  PageClient,
  spawnAgentCli,
  startFakeServer,
  type FakeServer,
} from './helpers.js';

const ROOT = fileURLToPath(new URL('../../', import.meta.url));

let hsm: SoftHsm;
let server: FakeServer;
let home: string;

before(async () => {
  hsm = createSoftHsm({}, false);
  server = await startFakeServer();
  home = mkdtempSync(path.join(tmpdir(), 'tawqi-agent-cli-'));
  writeFileSync(
    path.join(home, 'config.json'),
    JSON.stringify({ modules: [hsm.module], known_modules: false, ports: [0], log_level: 'warn' }),
  );
});
after(async () => {
  await server?.close();
  hsm?.cleanup();
  if (home) rmSync(home, { recursive: true, force: true });
});

function start(args: string[], env: NodeJS.ProcessEnv = {}): ChildProcess {
  return spawnAgentCli(args, {
    ...hsm.env,
    TAWQI_AGENT_HOME: home,
    TAWQI_AGENT_TEST_PIN: undefined,
    TAWQI_AGENT_TEST_CONSENT: undefined,
    ...env,
  });
}

async function cli(
  args: string[],
  stdin = '',
  env: NodeJS.ProcessEnv = {},
): Promise<{ code: number | null; stdout: string; stderr: string }> {
  const child = start(args, env);
  let stdout = '';
  let stderr = '';
  child.stdout?.on('data', (d: Buffer) => (stdout += d.toString()));
  child.stderr?.on('data', (d: Buffer) => (stderr += d.toString()));
  child.stdin?.end(stdin);
  const deadline = setTimeout(() => {
    stderr += `\n[test] tawqi-agent ${args.join(' ')}: killed after ${AGENT_CHILD_DEADLINE_MS} ms`;
    child.kill('SIGKILL');
  }, AGENT_CHILD_DEADLINE_MS);
  const code = await new Promise<number | null>((resolve) => child.on('exit', resolve));
  clearTimeout(deadline);
  return { code, stdout, stderr };
}

describe('tawqi-agent CLI', () => {
  test('trust add shows the origin and fingerprint and needs a yes; list; remove', async () => {
    const declined = await cli(['trust', 'add', server.origin], 'no\n');
    assert.equal(declined.code, 1);
    assert.match(declined.stdout, new RegExp(formatFingerprint(server.fingerprint)));
    assert.match(declined.stderr, /Not trusted/);

    const wrong = await cli(['trust', 'add', server.origin, '--fingerprint', 'ab'.repeat(32)]);
    assert.equal(wrong.code, 1);

    const added = await cli(['trust', 'add', `${server.origin}/some/page`], 'yes\n');
    assert.equal(added.code, 0, added.stderr);
    assert.match(added.stdout, new RegExp(`Server: +${server.origin}\\n`));
    assert.match(added.stdout, /Trusted/);

    const listed = await cli(['trust', 'list', '--json']);
    assert.deepEqual(
      (JSON.parse(listed.stdout) as { origin: string; fingerprint: string }[]).map((s) => [s.origin, s.fingerprint]),
      [[server.origin, server.fingerprint]],
    );
    assert.doesNotMatch(listed.stdout, /BEGIN PUBLIC KEY/);
    const stored = JSON.parse(readFileSync(path.join(home, 'trusted-servers.json'), 'utf8')) as { servers: { key_pem: string }[] };
    assert.equal(stored.servers[0]?.key_pem.trim(), server.publicKeyPem.trim(), 'the key is pinned at trust time');

    assert.equal((await cli(['trust', 'remove', server.origin])).code, 0);
    assert.equal((await cli(['trust', 'remove', server.origin])).code, 1);
    assert.equal((await cli(['trust', 'add', server.origin, '--fingerprint', formatFingerprint(server.fingerprint)])).code, 0);
  });

  test('tokens lists the token, its PIN state and why certificates are not offered', async () => {
    const { code, stdout, stderr } = await cli(['tokens', '--json']);
    assert.equal(code, 0, stderr);
    const report = JSON.parse(stdout) as {
      modules: { id: string; loaded: boolean }[];
      tokens: { label: string; pin: { retries: string } }[];
      certificates: { cert_sha256: string; offered: boolean; reasons: string[] }[];
    };
    assert.deepEqual(
      report.modules.map((m) => [m.id, m.loaded]),
      [['softhsm2', true]],
    );
    assert.equal(report.tokens[0]?.label, hsm.tokenLabel);
    assert.equal(report.tokens[0]?.pin.retries, 'ok');
    const byHash = new Map(report.certificates.map((c) => [c.cert_sha256, c]));
    assert.equal(byHash.get(hsm.certs.rsa.sha256)?.offered, true);
    assert.deepEqual(byHash.get(hsm.certs.noUsage.sha256)?.reasons, ['no_signing_key_usage']);
    const human = await cli(['tokens']);
    assert.match(human.stdout, /Test Signer EC .*\n.*offered for signing/);
    assert.match(human.stdout, /not offered: expired/);
  });

  test('serve: terminal consent shows the request; the test PIN signs; the CMS verifies', async () => {
    const child = start(['serve'], { TAWQI_AGENT_TEST_PIN: hsm.pin, TAWQI_AGENT_TEST_CONSENT: 'yes' });
    let stdout = '';
    let stderr = '';
    child.stdout?.on('data', (d: Buffer) => (stdout += d.toString()));
    child.stderr?.on('data', (d: Buffer) => (stderr += d.toString()));
    try {
      const port = await listeningPort(child);
      const client = await PageClient.open(port, server.origin);
      assert.equal((await client.hello()).type, 'hello');
      const content = Buffer.from('the document');
      const digest = createHash('sha256').update(content).digest('hex');
      const id = client.send({
        type: 'sign',
        ticket: server.mint({ cert_sha256: hsm.certs.rsa.sha256, digest, title: 'CLI contract' }),
        cert_sha256: hsm.certs.rsa.sha256,
      });
      const answer = await client.answer(id);
      assert.equal(answer.type, 'signature', JSON.stringify(answer));
      if (answer.type === 'signature') assert.ok(opensslVerify(Buffer.from(answer.cms, 'base64'), content, hsm.rootPemFile).ok);
      assert.match(stderr, /WARNING: test mode/);
      assert.match(stderr, /Document: +“CLI contract” \(2 pages\)/);
      assert.match(stderr, new RegExp(`Digest: +SHA-256 ${digest}`));
      assert.match(stderr, /Preview: +first page saved to .*\.png/);
      assert.match(stderr, /Certificate: +Test Signer RSA/);
      assert.doesNotMatch(stderr + stdout, new RegExp(hsm.pin), 'the PIN is never printed');
      client.close();
    } finally {
      child.kill('SIGTERM');
      await new Promise((resolve) => child.on('exit', resolve));
    }
  });

  test('serve: a refusal in the terminal is user_canceled', async () => {
    const child = start(['serve'], { TAWQI_AGENT_TEST_PIN: hsm.pin, TAWQI_AGENT_TEST_CONSENT: 'no' });
    try {
      const port = await listeningPort(child);
      const client = await PageClient.open(port, server.origin);
      await client.hello();
      const id = client.send({ type: 'sign', ticket: server.mint({ cert_sha256: hsm.certs.ec.sha256 }), cert_sha256: hsm.certs.ec.sha256 });
      const answer = await client.answer(id);
      assert.equal(answer.type === 'error' && answer.code, 'user_canceled');
      client.close();
    } finally {
      child.kill('SIGTERM');
      await new Promise((resolve) => child.on('exit', resolve));
    }
  });

  test('the package declares the tawqi-agent bin', () => {
    const pkg = JSON.parse(readFileSync(path.join(ROOT, 'agent/package.json'), 'utf8')) as { bin: Record<string, string> };
    assert.equal(pkg.bin['tawqi-agent'], './bin/tawqi-agent.js');
    assert.match(readFileSync(path.join(ROOT, 'agent/bin/tawqi-agent.js'), 'utf8'), /^#!\/usr\/bin\/env node/);
  });
});
