/**
 * Unit tests of the agent's pure parts: PKCS#11 constants, PIN flags, mechanism choice, DigestInfo,
 * ECDSA r‖s → DER, module discovery, ticket checks, trust store, config, the shared ticket helpers.
 */
import assert from 'node:assert/strict';
import { constants, createHash, createPublicKey, generateKeyPairSync, publicDecrypt, randomBytes, sign, verify } from 'node:crypto';
import { mkdtempSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { describe, test } from 'node:test';
import pkcs11js from 'pkcs11js';
import {
  AGENT_PORTS,
  AgentRequestSchema,
  SignTicketPayloadSchema,
  encodeSignTicketPayload,
  joinSignTicket,
  splitSignTicket,
  type SignTicketPayload,
} from '@tawqi/shared';
import { ecdsaRawToDer } from '@tawqi/shared/cms';
import * as C from '../../agent/src/core/pkcs11/constants.js';
import { pinStateFromFlags } from '../../agent/src/core/pkcs11/flags.js';
import { chooseMechanism, sha256DigestInfo } from '../../agent/src/core/pkcs11/mechanisms.js';
import { discoverModules, expandPath, KNOWN_MODULES } from '../../agent/src/core/pkcs11/modules.js';
import { JtiRegistry, verifyTicket } from '../../agent/src/core/ticket.js';
import { formatFingerprint, keyFingerprint, normalizeOrigin, TrustStore } from '../../agent/src/core/trust.js';
import { agentDataDir, loadConfig, socketLimits } from '../../agent/src/core/config.js';
import { DEFAULT_SOCKET_LIMITS } from '../../agent/src/core/socketLimits.js';
import { printable } from '../../agent/src/cli/printable.js';
import { createLogger } from '../../agent/src/core/log.js';

describe('PKCS#11 constants', () => {
  test('match pkcs11js', () => {
    const lib = pkcs11js as unknown as Record<string, number>;
    for (const [name, value] of Object.entries(C)) assert.equal(value, lib[name], name);
  });
});

describe('PIN state from token flags', () => {
  test('each flag is read before the user types', () => {
    assert.deepEqual(pinStateFromFlags(C.CKF_LOGIN_REQUIRED), {
      count_low: false,
      final_try: false,
      locked: false,
      pin_pad: false,
      retries: 'ok',
    });
    assert.equal(pinStateFromFlags(C.CKF_USER_PIN_COUNT_LOW).retries, 'low');
    assert.equal(pinStateFromFlags(C.CKF_USER_PIN_COUNT_LOW | C.CKF_USER_PIN_FINAL_TRY).retries, 'final_try');
    assert.equal(pinStateFromFlags(C.CKF_USER_PIN_FINAL_TRY | C.CKF_USER_PIN_LOCKED).retries, 'locked');
    assert.equal(pinStateFromFlags(C.CKF_PROTECTED_AUTHENTICATION_PATH).pin_pad, true);
  });
});

describe('mechanisms', () => {
  test('RSA prefers CKM_SHA256_RSA_PKCS, falls back to CKM_RSA_PKCS over a DigestInfo', () => {
    assert.equal(chooseMechanism('rsa', [C.CKM_RSA_PKCS, C.CKM_SHA256_RSA_PKCS])?.name, 'CKM_SHA256_RSA_PKCS');
    assert.deepEqual(chooseMechanism('rsa', [C.CKM_RSA_PKCS]), { mechanism: C.CKM_RSA_PKCS, name: 'CKM_RSA_PKCS', input: 'digest-info' });
    assert.equal(chooseMechanism('rsa', [C.CKM_ECDSA]), null);
    assert.equal(chooseMechanism('rsa', null)?.name, 'CKM_RSA_PKCS');
  });

  test('EC prefers CKM_ECDSA over the SHA-256 digest, then CKM_ECDSA_SHA256', () => {
    assert.deepEqual(chooseMechanism('ec', [C.CKM_ECDSA, C.CKM_ECDSA_SHA256]), {
      mechanism: C.CKM_ECDSA,
      name: 'CKM_ECDSA',
      input: 'digest',
    });
    assert.equal(chooseMechanism('ec', [C.CKM_ECDSA_SHA256])?.input, 'message');
    assert.equal(chooseMechanism('ec', [C.CKM_RSA_PKCS]), null);
    assert.equal(chooseMechanism('ec', null)?.name, 'CKM_ECDSA');
  });

  test('the DigestInfo is what an RSA PKCS#1 v1.5 SHA-256 signature carries', () => {
    const { privateKey, publicKey } = generateKeyPairSync('rsa', { modulusLength: 2048 });
    const data = randomBytes(100);
    const signature = sign('sha256', data, privateKey);
    const recovered = publicDecrypt({ key: publicKey, padding: constants.RSA_PKCS1_PADDING }, signature);
    assert.deepEqual(new Uint8Array(recovered), sha256DigestInfo(createHash('sha256').update(data).digest()));
    assert.throws(() => sha256DigestInfo(new Uint8Array(20)));
  });

  test('raw r‖s → DER ECDSA-Sig-Value that verifies (P-256, P-384), many random signatures', () => {
    for (const namedCurve of ['P-256', 'P-384']) {
      const { privateKey, publicKey } = generateKeyPairSync('ec', { namedCurve });
      for (let i = 0; i < 40; i++) {
        const data = randomBytes(32);
        const raw = sign('sha256', data, { key: privateKey, dsaEncoding: 'ieee-p1363' });
        const der = ecdsaRawToDer(raw);
        assert.ok(verify('sha256', data, { key: publicKey, dsaEncoding: 'der' }, der), `${namedCurve} #${i}`);
      }
    }
  });

  test('DER conversion: high bit gets 0x00, leading zeros are dropped, long lengths use 0x81', () => {
    const r = Buffer.alloc(32, 0);
    r[31] = 1;
    const s = Buffer.alloc(32, 0xff);
    assert.equal(Buffer.from(ecdsaRawToDer(Buffer.concat([r, s]))).toString('hex'), '3026' + '020101' + '022100' + 'ff'.repeat(32));
    const big = ecdsaRawToDer(Buffer.alloc(132, 0x80)); // P-521 sized
    assert.equal(big[0], 0x30);
    assert.equal(big[1], 0x81);
    assert.equal(big[2], 2 * (2 + 67));
    assert.throws(() => ecdsaRawToDer(new Uint8Array(63)));
  });
});

describe('PKCS#11 module discovery', () => {
  test('configured modules first, then the known vendor modules that exist on this OS', () => {
    const present = new Set([
      '/opt/vendor/libcustom.so',
      '/usr/lib/libeTPkcs11.so',
      '/usr/lib/x86_64-linux-gnu/opensc-pkcs11.so',
      '/usr/lib/softhsm/libsofthsm2.so',
    ]);
    const result = discoverModules({
      configured: ['/opt/vendor/libcustom.so', { path: '/nope/libmissing.so' }],
      platform: 'linux',
      exists: (p) => present.has(p),
      realpath: (p) => p,
    });
    assert.deepEqual(
      result.modules.map((m) => [m.id, m.path, m.source, m.rescan]),
      [
        ['custom', '/opt/vendor/libcustom.so', 'config', 'slot-list'],
        ['safenet', '/usr/lib/libeTPkcs11.so', 'known', 'slot-list'],
        ['opensc', '/usr/lib/x86_64-linux-gnu/opensc-pkcs11.so', 'known', 'slot-list'],
        ['softhsm2', '/usr/lib/softhsm/libsofthsm2.so', 'known', 'reinitialize'],
      ],
    );
    assert.deepEqual(result.missing, ['/nope/libmissing.so']);
  });

  test('a configured known path keeps its vendor id; duplicates (same real file) load once', () => {
    const result = discoverModules({
      configured: ['/usr/lib/softhsm/libsofthsm2.so', '/usr/lib/x86_64-linux-gnu/softhsm/libsofthsm2.so'],
      platform: 'linux',
      exists: () => true,
      realpath: (p) => (p.includes('softhsm') ? '/real/libsofthsm2.so' : p),
      known: false,
    });
    assert.deepEqual(
      result.modules.map((m) => [m.id, m.source]),
      [['softhsm2', 'config']],
    );
  });

  test('each OS has paths for every vendor of the market; Windows paths expand %SystemRoot%', () => {
    for (const id of ['safenet', 'idprime', 'epass2003', 'bit4id', 'opensc', 'softhsm2']) {
      const known = KNOWN_MODULES.find((k) => k.id === id);
      assert.ok(known, id);
      for (const os of ['linux', 'darwin', 'win32'] as const) assert.ok(known.paths[os].length > 0, `${id} on ${os}`);
    }
    assert.equal(
      expandPath('%SystemRoot%\\System32\\eTPKCS11.dll', { SYSTEMROOT: 'D:\\Win' }, 'C:\\Users\\u'),
      'D:\\Win\\System32\\eTPKCS11.dll',
    );
    assert.equal(expandPath('~/lib/x.so', {}, '/home/u'), '/home/u/lib/x.so');
    const win = discoverModules({
      configured: [],
      platform: 'win32',
      env: {},
      exists: (p) => p === 'C:\\Windows\\System32\\bit4xpki.dll',
      realpath: (p) => p,
    });
    assert.deepEqual(
      win.modules.map((m) => m.id),
      ['bit4id'],
    );
    const mac = discoverModules({
      configured: [],
      platform: 'darwin',
      exists: (p) => p === '/Library/OpenSC/lib/opensc-pkcs11.so',
      realpath: (p) => p,
    });
    assert.deepEqual(
      mac.modules.map((m) => m.id),
      ['opensc'],
    );
    assert.deepEqual(discoverModules({ configured: [], platform: 'linux', known: false, exists: () => true }).modules, []);
  });
});

describe('sign tickets', () => {
  const { privateKey, publicKey } = generateKeyPairSync('ed25519');
  const origin = 'https://sign.example.com';
  const now = 1_800_000_000;
  const payload = (over: Partial<SignTicketPayload> = {}): SignTicketPayload => ({
    v: 1,
    typ: 'tawqi-sign-ticket',
    iss: origin,
    request_id: 'sr_1',
    signer_id: 'sgr_1',
    title: 'عقد إيجار',
    pages: 3,
    digest_alg: 'sha-256',
    digest: 'a'.repeat(64),
    cert_sha256: 'b'.repeat(64),
    preview_url: `${origin}/preview.png`,
    iat: now,
    exp: now + 300,
    jti: 'jti-0123456789abcdef',
    ...over,
  });
  const mint = (p: unknown, key = privateKey): string => {
    const part = Buffer.from(JSON.stringify(p)).toString('base64url');
    return `${part}.${sign(null, Buffer.from(part, 'ascii'), key).toString('base64url')}`;
  };
  const check = (ticket: string, jtis = new JtiRegistry(), at = now + 10, from = origin) =>
    verifyTicket({ ticket, origin: from, serverKey: publicKey, nowS: at, jtis });

  test('the shared helpers encode and split a ticket (UTF-8 title kept)', () => {
    const p = payload();
    const part = encodeSignTicketPayload(p);
    assert.equal(part, Buffer.from(JSON.stringify(p)).toString('base64url'));
    const ticket = joinSignTicket(part, sign(null, Buffer.from(part, 'ascii'), privateKey));
    const split = splitSignTicket(ticket);
    assert.equal(split.signedPart, part);
    assert.deepEqual(split.payload, p);
    assert.equal(split.signature.byteLength, 64);
    assert.throws(() => splitSignTicket('no-dot'));
  });

  test('a good ticket passes once; the same jti is refused as replayed', () => {
    const jtis = new JtiRegistry();
    const ticket = mint(payload());
    const first = check(ticket, jtis);
    assert.ok(first.ok);
    assert.equal(first.ok && first.payload.title, 'عقد إيجار');
    assert.deepEqual(check(ticket, jtis), { ok: false, code: 'ticket_replayed', reason: 'jti already used' });
  });

  test('used ticket ids survive a restart when kept in a file', () => {
    const dir = mkdtempSync(path.join(tmpdir(), 'tawqi-jti-'));
    try {
      const file = path.join(dir, 'used-tickets.json');
      const ticket = mint(payload({ jti: 'persisted-jti-0123456789' }));
      assert.ok(check(ticket, new JtiRegistry(file)).ok);
      assert.equal((check(ticket, new JtiRegistry(file)) as { code: string }).code, 'ticket_replayed');
      assert.equal(statSync(file).mode & 0o777, 0o600);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });

  test('forged, tampered, expired, future, too long-lived, foreign and malformed tickets are refused', () => {
    const other = generateKeyPairSync('ed25519').privateKey;
    assert.equal((check(mint(payload(), other)) as { code: string }).code, 'ticket_invalid');
    const good = mint(payload());
    const tampered = `${Buffer.from(JSON.stringify(payload({ digest: 'c'.repeat(64) }))).toString('base64url')}.${good.split('.')[1]}`;
    assert.equal((check(tampered) as { code: string }).code, 'ticket_invalid');
    assert.equal((check(mint(payload()), new JtiRegistry(), now + 300 + 61) as { code: string }).code, 'ticket_expired');
    assert.equal(
      (check(mint(payload({ iat: now + 200, exp: now + 400 })), new JtiRegistry(), now) as { code: string }).code,
      'ticket_invalid',
    );
    assert.equal((check(mint(payload({ exp: now + 301 }))) as { code: string }).code, 'ticket_invalid');
    assert.equal(
      (check(mint(payload()), new JtiRegistry(), now, 'https://evil.example') as { code: string }).code,
      'ticket_origin_mismatch',
    );
    assert.equal((check('abc.def') as { code: string }).code, 'ticket_invalid');
    assert.equal((check(mint({ ...payload(), typ: 'other' })) as { code: string }).code, 'ticket_invalid');
  });

  test('the schema rejects an origin with a path and a non-hex digest', () => {
    assert.equal(SignTicketPayloadSchema.safeParse(payload({ iss: 'https://sign.example.com/' })).success, false);
    assert.equal(SignTicketPayloadSchema.safeParse(payload({ digest: 'Z'.repeat(64) })).success, false);
  });

  test('a sign message carries no PIN: unknown fields are dropped by the schema', () => {
    const parsed = AgentRequestSchema.parse({ type: 'sign', id: '1', ticket: 'a.b', cert_sha256: 'b'.repeat(64), pin: '1234' });
    assert.equal('pin' in parsed, false);
  });
});

describe('trust store and config', () => {
  test('origins: https, or http on loopback only; fingerprints are SHA-256 of the SPKI DER', () => {
    assert.equal(normalizeOrigin('https://Sign.Example.com/path?x'), 'https://sign.example.com');
    assert.equal(normalizeOrigin('http://127.0.0.1:8080'), 'http://127.0.0.1:8080');
    assert.equal(normalizeOrigin('http://localhost:3000/'), 'http://localhost:3000');
    assert.throws(() => normalizeOrigin('http://sign.example.com'), /https/);
    assert.throws(() => normalizeOrigin('ftp://x'), /https/);
    const { publicKey } = generateKeyPairSync('ed25519');
    const pem = publicKey.export({ type: 'spki', format: 'pem' }).toString();
    assert.equal(
      keyFingerprint(pem),
      createHash('sha256')
        .update(createPublicKey(pem).export({ type: 'spki', format: 'der' }))
        .digest('hex'),
    );
    assert.throws(() =>
      keyFingerprint(generateKeyPairSync('ec', { namedCurve: 'P-256' }).publicKey.export({ type: 'spki', format: 'pem' }).toString()),
    );
    assert.match(formatFingerprint('ab'.repeat(32)), /^abab abab/);
  });

  test('trusting is remembered per server and revocable', () => {
    const dir = mkdtempSync(path.join(tmpdir(), 'tawqi-trust-'));
    try {
      const pem = generateKeyPairSync('ed25519').publicKey.export({ type: 'spki', format: 'pem' }).toString();
      const store = new TrustStore(dir);
      assert.deepEqual(store.list(), []);
      store.add({ origin: 'https://a.example', keyPem: pem, fingerprint: keyFingerprint(pem) });
      assert.throws(() => store.add({ origin: 'https://b.example', keyPem: pem, fingerprint: 'f'.repeat(64) }), /fingerprint/);
      const again = new TrustStore(dir);
      assert.equal(again.get('https://a.example')?.fingerprint, keyFingerprint(pem));
      assert.equal(again.get('https://b.example'), null);
      assert.equal(again.get(undefined), null);
      assert.equal(statSync(path.join(dir, 'trusted-servers.json')).mode & 0o777, 0o600);
      assert.equal(again.remove('https://a.example/'), true);
      assert.equal(again.remove('https://a.example'), false);
      store.reload();
      assert.equal(store.get('https://a.example'), null);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });

  test('the trust file is read again only when it changed (another process, e.g. the CLI, wrote it); a broken file fails every time', () => {
    const dir = mkdtempSync(path.join(tmpdir(), 'tawqi-trust-'));
    try {
      const pem = generateKeyPairSync('ed25519').publicKey.export({ type: 'spki', format: 'pem' }).toString();
      const agent = new TrustStore(dir);
      const cli = new TrustStore(dir);
      agent.reloadIfChanged();
      assert.equal(agent.get('https://a.example'), null, 'no file: no server');
      cli.add({ origin: 'https://a.example', keyPem: pem, fingerprint: keyFingerprint(pem) });
      agent.reloadIfChanged();
      assert.equal(agent.get('https://a.example')?.fingerprint, keyFingerprint(pem), 'the other writer is seen at the next check');
      cli.remove('https://a.example');
      agent.reloadIfChanged();
      assert.equal(agent.get('https://a.example'), null, 'and so is a removal');
      writeFileSync(path.join(dir, 'trusted-servers.json'), '{"version":1,"servers":"nope"}');
      assert.throws(() => agent.reloadIfChanged(), /not a valid trust store/);
      assert.throws(() => agent.reloadIfChanged(), /not a valid trust store/, 'a broken file is not remembered');
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });

  test('config: defaults, documented ports, a bad setting is named; data dir per OS', () => {
    const dir = mkdtempSync(path.join(tmpdir(), 'tawqi-config-'));
    try {
      assert.deepEqual(loadConfig(dir).ports, [...AGENT_PORTS]);
      assert.deepEqual([...AGENT_PORTS], [38611, 38612, 38613, 38614]);
      writeFileSync(path.join(dir, 'config.json'), JSON.stringify({ modules: ['/x.so'], poll_interval_ms: 'fast' }));
      assert.throws(() => loadConfig(dir), /poll_interval_ms/);
      writeFileSync(path.join(dir, 'config.json'), JSON.stringify({ modules: [{ path: '/x.so', rescan: 'reinitialize' }] }));
      assert.deepEqual(loadConfig(dir).modules, [{ path: '/x.so', rescan: 'reinitialize' }]);
      assert.deepEqual(socketLimits(loadConfig(dir)), DEFAULT_SOCKET_LIMITS);
      writeFileSync(path.join(dir, 'config.json'), JSON.stringify({ max_connections: 0 }));
      assert.throws(() => loadConfig(dir), /max_connections/);
      writeFileSync(
        path.join(dir, 'config.json'),
        JSON.stringify({ handshake_timeout_ms: 500, heartbeat_interval_ms: 250, max_connections: 4 }),
      );
      assert.deepEqual(socketLimits(loadConfig(dir)), { maxConnections: 4, handshakeTimeoutMs: 500, heartbeatIntervalMs: 250 });
      assert.ok(readFileSync(path.join(dir, 'config.json')).length > 0);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
    assert.equal(agentDataDir({ TAWQI_AGENT_HOME: '/tmp/x' }, 'linux', '/home/u'), '/tmp/x');
    assert.equal(agentDataDir({}, 'linux', '/home/u'), '/home/u/.config/tawqi-agent');
    assert.equal(agentDataDir({ APPDATA: 'C:\\AppData' }, 'win32', 'C:\\u'), path.join('C:\\AppData', 'Tawqi Agent'));
    assert.equal(agentDataDir({}, 'darwin', '/Users/u'), '/Users/u/Library/Application Support/Tawqi Agent');
  });
});

describe('terminal text', () => {
  test('controls, separators, bidi overrides and lone surrogates are escaped; letters and marks of every script are not', () => {
    assert.equal(printable('a\nServer: x'), 'a\\u{000A}Server: x');
    assert.equal(printable('\u001b[2J\u009b\u007f\t'), '\\u{001B}[2J\\u{009B}\\u{007F}\\u{0009}');
    assert.equal(printable('\u202eabc\u2066\u2028'), '\\u{202E}abc\\u{2066}\\u{2028}');
    assert.equal(printable('x\ud800y\udfff'), 'x\\u{D800}y\\u{DFFF}');
    for (const kept of ['عقد إيجار', 'e\u0301', '👩🏽‍💻', '\u200fعقد\u200e', 'Straße №5']) assert.equal(printable(kept), kept);
  });

  test('log lines escape what JSON.stringify leaves raw (C1 controls, separators, bidi overrides) and stay JSON', () => {
    const lines: string[] = [];
    const origin = '\u009b2J\u202eevil\u001b\u2028é';
    createLogger('info', (line) => lines.push(line)).warn('connection refused', { origin });
    assert.doesNotMatch(lines[0] ?? '', /[\u007f-\u009f\u2028\u202e]/);
    assert.equal((JSON.parse(lines[0] ?? '') as { origin: string }).origin, origin);
  });
});
