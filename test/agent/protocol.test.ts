/**
 * The agent end to end over its WebSocket, as a signing page talks to it: a real SoftHSM2 token, a
 * local "server" origin that publishes its Ed25519 ticket key and a page-1 preview, tickets minted
 * like the server mints them, CMS checked with `openssl cms -verify`. The user is scripted (consent
 * and PIN answers); the PIN never travels over the socket.
 */
import assert from 'node:assert/strict';
import { createHash, generateKeyPairSync } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { after, before, describe, test } from 'node:test';
import type { AgentResponse } from '@tawqi/shared';
import { startAgent, type RunningAgent } from '../../agent/src/core/agent.js';
import { createLogger } from '../../agent/src/core/log.js';
import { AgentServer } from '../../agent/src/core/server.js';
import type { AgentUi, ConsentRequest, PinRequest } from '../../agent/src/core/ui.js';
import { createSoftHsm, type SoftHsm } from '../support/softhsm.js';
import { opensslVerify, PageClient, PREVIEW_PNG, startFakeServer, type FakeServer } from './helpers.js';

type Answer<T> = T | 'hang';

class ScriptedUi implements AgentUi {
  consents: ConsentRequest[] = [];
  pins: PinRequest[] = [];
  consent: Answer<boolean> = true;
  pin: Answer<string | null> = null;
  aborted = 0;

  private hang<T>(signal: AbortSignal, value: T): Promise<T> {
    return new Promise((resolve) =>
      signal.addEventListener('abort', () => {
        this.aborted++;
        resolve(value);
      }),
    );
  }

  confirmSign(request: ConsentRequest, signal: AbortSignal): Promise<boolean> {
    this.consents.push(request);
    return this.consent === 'hang' ? this.hang(signal, false) : Promise.resolve(this.consent);
  }

  askPin(request: PinRequest, signal: AbortSignal): Promise<Uint8Array | null> {
    this.pins.push(request);
    if (this.pin === 'hang') return this.hang(signal, null);
    return Promise.resolve(this.pin === null ? null : new TextEncoder().encode(this.pin));
  }
}

let hsm: SoftHsm;
let server: FakeServer;
let agent: RunningAgent;
let dataDir: string;
const ui = new ScriptedUi();
const content = Buffer.from('%PDF-1.7 … the ByteRange bytes of the prepared document');
const digest = createHash('sha256').update(content).digest('hex');

before(async () => {
  hsm = createSoftHsm();
  server = await startFakeServer();
  dataDir = mkdtempSync(path.join(tmpdir(), 'tawqi-agent-data-'));
  agent = await startAgent({
    ui,
    dataDir,
    config: { modules: [hsm.module], known_modules: false, ports: [0], poll_interval_ms: 200 },
    log: createLogger('silent'),
  });
  agent.trust.add({ origin: server.origin, keyPem: server.publicKeyPem, fingerprint: server.fingerprint });
});
after(async () => {
  await agent?.close();
  await server?.close();
  hsm?.cleanup();
  if (dataDir) rmSync(dataDir, { recursive: true, force: true });
});

const page = async (): Promise<PageClient> => {
  const client = await PageClient.open(agent.port, server.origin);
  const hello = await client.hello();
  assert.equal(hello.type, 'hello', JSON.stringify(hello));
  return client;
};

const errorOf = (m: AgentResponse) => {
  assert.equal(m.type, 'error', JSON.stringify(m));
  return m as Extract<AgentResponse, { type: 'error' }>;
};

/** Sends a sign and returns every status and the final answer. */
async function signOnce(client: PageClient, ticket: string, certSha256: string) {
  const id = client.send({ type: 'sign', ticket, cert_sha256: certSha256 });
  const answer = await client.answer(id);
  return { id, answer };
}

describe('agent protocol', () => {
  test('binds 127.0.0.1 only; hello answers versions, agent and the pinned server key fingerprint', async () => {
    const address = (agent.server as unknown as { wss: { address(): { address: string } } }).wss.address();
    assert.equal(address.address, '127.0.0.1');
    const client = await PageClient.open(agent.port, server.origin);
    const hello = await client.hello();
    assert.equal(hello.type, 'hello');
    if (hello.type !== 'hello') return;
    assert.equal(hello.version, 1);
    assert.deepEqual(hello.versions, [1]);
    assert.equal(hello.agent.name, 'tawqi-agent');
    assert.equal(hello.origin, server.origin);
    assert.equal(hello.server_key_fingerprint, server.fingerprint);
    client.close();
  });

  test('a connection from an untrusted origin (or none) is refused', async () => {
    for (const origin of ['https://evil.example', null]) {
      const client = await PageClient.open(agent.port, origin);
      const refused = errorOf(await client.next());
      assert.equal(refused.code, 'origin_not_trusted');
      assert.equal(refused.id, null);
      assert.equal((await client.closed).code, 4403);
    }
  });

  test('a Host other than the loopback address is refused at the upgrade (DNS rebinding)', async () => {
    await assert.rejects(PageClient.open(agent.port, server.origin, `evil.example:${agent.port}`), /Unexpected server response: 401/);
  });

  test('hello first; an unknown version closes; malformed messages get bad_message', async () => {
    const client = await PageClient.open(agent.port, server.origin);
    assert.equal(errorOf(await client.answer(client.send({ type: 'list-certificates' }))).code, 'hello_required');
    client.ws.send('not json');
    assert.equal(errorOf(await client.next()).code, 'bad_message');
    assert.equal(errorOf(await client.answer(client.send({ type: 'sign', ticket: 'x' }))).code, 'bad_message');
    assert.equal(errorOf(await client.answer(client.send({ type: 'hello', versions: [99] }))).code, 'unsupported_version');
    assert.equal((await client.closed).code, 4426);
  });

  test('list-certificates offers only signing certificates valid today', async () => {
    const client = await page();
    const answer = await client.answer(client.send({ type: 'list-certificates' }));
    assert.equal(answer.type, 'certificates');
    if (answer.type !== 'certificates') return;
    assert.deepEqual(
      answer.certificates.map((c) => c.cert_sha256).sort(),
      [hsm.certs.rsa.sha256, hsm.certs.ec.sha256, hsm.certs.ec384.sha256].sort(),
    );
    assert.equal(
      answer.certificates.some((c) => c.cert_sha256 === hsm.certs.noUsage.sha256),
      false,
      'no signing usage: never offered',
    );
    assert.equal(
      answer.certificates.some((c) => c.cert_sha256 === hsm.certs.expired.sha256),
      false,
      'expired: never offered',
    );
    assert.equal(answer.tokens[0]?.label, hsm.tokenLabel);
    const rsa = answer.certificates.find((c) => c.cert_sha256 === hsm.certs.rsa.sha256);
    assert.equal(rsa?.certificate, hsm.certs.rsa.der.toString('base64'));
    assert.deepEqual(rsa?.chain, [hsm.certs.issuingCa.der.toString('base64')]);
    client.close();
  });

  for (const name of ['rsa', 'ec'] as const) {
    test(`sign with ${name}: consent shows the request and preview, PIN from the agent UI, CMS verifies`, async () => {
      ui.consent = true;
      ui.pin = hsm.pin;
      ui.consents = [];
      const client = await page();
      const cert = hsm.certs[name];
      const ticket = server.mint({ cert_sha256: cert.sha256, digest, title: `Lease ${name}` });
      const id = client.send({ type: 'sign', ticket, cert_sha256: cert.sha256 });
      const statuses: string[] = [];
      let answer: AgentResponse;
      for (;;) {
        answer = await client.next((m) => 'id' in m && m.id === id);
        if (answer.type !== 'sign-status') break;
        statuses.push(answer.status);
      }
      assert.deepEqual(statuses, ['awaiting_consent', 'awaiting_pin', 'signing']);
      assert.equal(answer.type, 'signature', JSON.stringify(answer));
      if (answer.type !== 'signature') return;
      assert.equal(answer.cert_sha256, cert.sha256);
      assert.equal(answer.request_id, 'sr_test');
      const verdict = opensslVerify(Buffer.from(answer.cms, 'base64'), content, hsm.rootPemFile);
      assert.ok(verdict.ok, verdict.output);

      const shown = ui.consents.at(-1);
      assert.equal(shown?.title, `Lease ${name}`);
      assert.equal(shown?.origin, server.origin);
      assert.equal(shown?.serverKeyFingerprint, server.fingerprint);
      assert.equal(shown?.digest, digest);
      assert.equal(shown?.certificate.cert_sha256, cert.sha256);
      assert.deepEqual(shown?.preview, { ok: true, contentType: 'image/png', bytes: new Uint8Array(PREVIEW_PNG) });
      assert.equal(server.previewAuth.at(-1), `Bearer ${ticket}`, 'preview fetched through the ticket');
      client.close();
    });
  }

  test('a replayed ticket is refused', async () => {
    ui.consent = true;
    ui.pin = hsm.pin;
    const client = await page();
    const ticket = server.mint({ cert_sha256: hsm.certs.ec.sha256, digest });
    assert.equal((await signOnce(client, ticket, hsm.certs.ec.sha256)).answer.type, 'signature');
    assert.equal(errorOf((await signOnce(client, ticket, hsm.certs.ec.sha256)).answer).code, 'ticket_replayed');
    client.close();
  });

  test('forged, expired and other-origin tickets are refused before the user is asked', async () => {
    ui.consents = [];
    const client = await page();
    const c = hsm.certs.ec.sha256;
    const forger = generateKeyPairSync('ed25519').privateKey;
    assert.equal(errorOf((await signOnce(client, server.mint({ cert_sha256: c }, forger), c)).answer).code, 'ticket_invalid');
    const past = Math.floor(Date.now() / 1000) - 1000;
    assert.equal(
      errorOf((await signOnce(client, server.mint({ cert_sha256: c, iat: past, exp: past + 300 }), c)).answer).code,
      'ticket_expired',
    );
    assert.equal(
      errorOf((await signOnce(client, server.mint({ cert_sha256: c, iss: 'https://other.example' }), c)).answer).code,
      'ticket_origin_mismatch',
    );
    assert.equal(ui.consents.length, 0);
    client.close();
  });

  test('a ticket for another certificate is refused; unusable and unknown certificates too', async () => {
    ui.consents = [];
    const client = await page();
    const forRsa = server.mint({ cert_sha256: hsm.certs.rsa.sha256 });
    assert.equal(errorOf((await signOnce(client, forRsa, hsm.certs.ec.sha256)).answer).code, 'certificate_mismatch');
    const noUsage = hsm.certs.noUsage.sha256;
    assert.equal(errorOf((await signOnce(client, server.mint({ cert_sha256: noUsage }), noUsage)).answer).code, 'certificate_not_usable');
    const expired = hsm.certs.expired.sha256;
    assert.equal(errorOf((await signOnce(client, server.mint({ cert_sha256: expired }), expired)).answer).code, 'certificate_not_usable');
    const unknown = 'e'.repeat(64);
    assert.equal(errorOf((await signOnce(client, server.mint({ cert_sha256: unknown }), unknown)).answer).code, 'certificate_not_found');
    assert.equal(ui.consents.length, 0, 'nothing shown for refused requests');
    client.close();
  });

  test('a wrong PIN is reported with the retry state, which the next PIN prompt shows first', async () => {
    ui.consent = true;
    ui.pin = '000000';
    ui.pins = [];
    const client = await page();
    const c = hsm.certs.ec.sha256;
    const wrong = errorOf((await signOnce(client, server.mint({ cert_sha256: c, digest }), c)).answer);
    assert.equal(wrong.code, 'pin_incorrect');
    assert.equal(wrong.pin?.count_low, true);
    assert.equal(wrong.pin?.retries, 'low');
    ui.pin = hsm.pin;
    assert.equal((await signOnce(client, server.mint({ cert_sha256: c, digest }), c)).answer.type, 'signature');
    assert.equal(ui.pins.at(-1)?.pin.retries, 'low', 'PIN state shown before the user typed');
    client.close();
  });

  test('declining consent or the PIN prompt: user_canceled, nothing signed', async () => {
    const client = await page();
    const c = hsm.certs.rsa.sha256;
    ui.consent = false;
    ui.pins = [];
    assert.equal(errorOf((await signOnce(client, server.mint({ cert_sha256: c }), c)).answer).code, 'user_canceled');
    assert.equal(ui.pins.length, 0, 'no PIN asked without consent');
    ui.consent = true;
    ui.pin = null;
    assert.equal(errorOf((await signOnce(client, server.mint({ cert_sha256: c }), c)).answer).code, 'user_canceled');
    client.close();
  });

  test('one request at a time (busy); the socket stays responsive; the page can withdraw; closing aborts', async () => {
    ui.consent = 'hang';
    const client = await page();
    const c = hsm.certs.ec.sha256;
    const first = client.send({ type: 'sign', ticket: server.mint({ cert_sha256: c }), cert_sha256: c });
    await client.next((m) => m.type === 'sign-status' && m.id === first && m.status === 'awaiting_consent');
    const other = await page();
    assert.equal(
      errorOf(await other.answer(other.send({ type: 'sign', ticket: server.mint({ cert_sha256: c }), cert_sha256: c }))).code,
      'busy',
    );
    assert.equal((await other.answer(other.send({ type: 'list-certificates' }))).type, 'certificates', 'answered while a sign waits');
    const abortedBefore = ui.aborted;
    client.send({ type: 'cancel', target: first });
    assert.equal(errorOf(await client.answer(first)).code, 'canceled');
    assert.equal(ui.aborted, abortedBefore + 1, 'the consent prompt was closed');

    const second = other.send({ type: 'sign', ticket: server.mint({ cert_sha256: c }), cert_sha256: c });
    await other.next((m) => m.type === 'sign-status' && m.id === second);
    other.close();
    await other.closed;
    for (let i = 0; i < 50 && ui.aborted < abortedBefore + 2; i++) await new Promise((r) => setTimeout(r, 20));
    assert.equal(ui.aborted, abortedBefore + 2, 'closing the page closes its prompt');
    ui.consent = true;
    client.close();
  });

  test('the PIN pad path is not used for SoftHSM; tokens-changed reaches pages after hello', async () => {
    const client = await page();
    const keepAlive = setInterval(() => {}, 1000);
    try {
      hsm.addToken('Plugged Token');
      const changed = await client.next((m) => m.type === 'tokens-changed' && m.tokens.some((t) => t.label === 'Plugged Token'));
      assert.equal(changed.type, 'tokens-changed');
      hsm.removeToken('Plugged Token');
      await client.next((m) => m.type === 'tokens-changed' && !m.tokens.some((t) => t.label === 'Plugged Token'));
    } finally {
      clearInterval(keepAlive);
      client.close();
    }
  });

  test('revoking trust takes effect for connected pages', async () => {
    const client = await page();
    assert.ok(agent.trust.remove(server.origin));
    try {
      assert.equal(errorOf(await client.answer(client.send({ type: 'list-certificates' }))).code, 'origin_not_trusted');
    } finally {
      agent.trust.add({ origin: server.origin, keyPem: server.publicKeyPem, fingerprint: server.fingerprint });
      client.close();
    }
  });

  test('port fallback: the next port of the list when the first is taken', async () => {
    const blocker = createServer();
    await new Promise<void>((resolve) => blocker.listen(0, '127.0.0.1', resolve));
    const taken = (blocker.address() as { port: number }).port;
    const probe = createServer();
    await new Promise<void>((resolve) => probe.listen(0, '127.0.0.1', resolve));
    const free = (probe.address() as { port: number }).port;
    await new Promise<void>((resolve) => probe.close(() => resolve()));
    const second = new AgentServer({
      tokens: agent.tokens,
      trust: agent.trust,
      ui,
      ports: [taken, free],
      agentVersion: 'test',
      log: createLogger('silent'),
    });
    try {
      assert.equal(await second.listen(), free);
    } finally {
      await second.close();
      await new Promise<void>((resolve) => blocker.close(() => resolve()));
    }
  });
});
