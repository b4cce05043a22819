/**
 * Qualified signatures with a token in real Chromium (playwright-core + Debian chromium).
 *
 * Part 1 — the signing page's token panel against a STAND-IN agent: a WebSocket server in this test
 * speaking shared/src/agentProtocol.ts on 127.0.0.1:38611, whose "token" is a software key
 * (test/support/qesSoftSigner.ts). It drives every state the page must explain, in Arabic and
 * English: agent not running (with the download link), site not trusted, no token, a certificate the
 * server refuses, canceled in the agent, the page's own Cancel, PIN locked, and a signature.
 *
 * Part 2 — end to end: signing page in Chromium → the agent's CLI shell (`tawqi-agent serve`; consent
 * and PIN from its TAWQI_AGENT_TEST_* variables) → SoftHSM2 (test/support/softhsm.ts) → server →
 * final PDF, checked by pdfsig (NSS database trusting the test root), `openssl cms -verify` on each
 * CMS and `openssl ts -verify` on each signature timestamp; two signers, RSA and EC.
 */
import assert from 'node:assert/strict';
import { execFile, execFileSync, spawn, type ChildProcess } from 'node:child_process';
import { X509Certificate } from 'node:crypto';
import { existsSync, mkdtempSync, readdirSync, rmSync, statSync, writeFileSync } from 'node:fs';
import type { IncomingMessage } from 'node:http';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { after, before, describe, test } from 'node:test';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import type { Page } from 'playwright-core';
import { WebSocketServer, type WebSocket } from 'ws';
import {
  AGENT_DEFAULT_PORT,
  splitSignTicket,
  type CertificateInfo,
  type SignTicketPayload,
  type TokenInfo,
} from '../../shared/src/agentProtocol.js';
import { applySignerMove } from '../../server/src/services/signerActions.js';
import { updateAccount } from '../../server/src/store/accounts.js';
import { launchBrowser, screenshot, until, type PageWatch, type TestBrowser } from '../support/browser.js';
import { createPkiFixture, type PkiFixture } from '../support/pkiFixture.js';
import {
  agentCms,
  b64,
  issueLeaf,
  sha256,
  signaturesOf,
  SIGNING_EXT,
  timestampOf,
  untrustedRoot,
  type TokenKey,
} from '../support/qesSoftSigner.js';
import { ensureSigningPage } from '../support/bundles.js';
import { documentTimestampsOf, verifyDocumentTimestamp } from '../support/documentTimestamps.js';
import { startTestServer, type TestServer } from '../support/server.js';
import { createSoftHsm, type SoftHsm } from '../support/softhsm.js';
import { NDA_FIELDS } from '../support/ndaFields.js';

/** How long the page may take to show that a token signature went through (see its use). */
const SIGNED_WAIT_MS = 60_000;

// eslint-disable-next-line @typescript-eslint/no-explicit-any
type Json = any;
type Lang = 'ar' | 'en';

const TEAM = ['owner@example.com', 'rana@example.com', 'karim@example.com', 'mona@example.com', 'sami@example.com'];
const DOWNLOAD_URL = 'https://downloads.example.com/tawqi-agent';
/** Chromium logs a refused WebSocket connection as a console error: expected while no agent runs. */
const WS_REFUSED = /WebSocket connection to 'ws:\/\/127\.0\.0\.1:3861\d\/' failed/;

/** The page's token texts the tests look for (signing-page/src/i18n.ts). */
const L = {
  en: {
    unavailable: 'The signing agent is not running',
    download: 'Download the signing agent',
    retry: 'Try again',
    notTrusted: 'The signing agent does not trust this site yet',
    noToken: 'No token found',
    sign: 'Sign with my token',
    cancel: 'Cancel',
    awaitingPin: 'Type your PIN in the signing agent window.',
    canceled: 'The signature was canceled. Nothing was signed.',
    pinLocked: /Too many wrong PINs were entered/,
    pinLockedTag: 'PIN locked',
    noneAccepted: 'None of your certificates can be used here',
    refusedUntrusted: /Cannot be used here: This certificate was not issued by a trusted certification authority\./,
    refusedNotSigning: /Cannot be used here: This certificate is not meant for signing/,
    signed: 'You signed the document',
  },
  ar: {
    unavailable: 'برنامج التوقيع لا يعمل',
    download: 'تنزيل برنامج التوقيع',
    retry: 'حاول مرة أخرى',
    notTrusted: 'برنامج التوقيع لا يثق بهذا الموقع بعد',
    noToken: 'لم يُعثر على مفتاح توقيع',
    sign: 'التوقيع بالمفتاح',
    cancel: 'إلغاء',
    awaitingPin: 'اكتب رمز PIN في نافذة برنامج التوقيع.',
    canceled: 'أُلغي التوقيع، ولم يُوقَّع شيء.',
    pinLocked: /أُدخل رمز PIN خاطئ مرات كثيرة/,
    pinLockedTag: 'رمز PIN مقفل',
    noneAccepted: 'لا يمكن استخدام أي من شهاداتك هنا',
    refusedUntrusted: /لا يمكن استخدامها هنا: هذه الشهادة غير صادرة عن جهة تصديق موثوقة\./,
    refusedNotSigning: /لا يمكن استخدامها هنا: هذه الشهادة غير مخصصة للتوقيع/,
    signed: 'وقّعت المستند',
  },
} as const;

const execFileAsync = promisify(execFile);
const ROOT = fileURLToPath(new URL('../../', import.meta.url));

/** Newest modification time of the files under `dir`. */
const newest = (dir: string): number =>
  Math.max(
    0,
    ...readdirSync(dir, { withFileTypes: true }).map((e) =>
      e.isDirectory() ? newest(path.join(dir, e.name)) : statSync(path.join(dir, e.name)).mtimeMs,
    ),
  );

// ---------------------------------------------------------------------------------------------
// The stand-in agent

type SignBehaviour =
  | { kind: 'sign' }
  | { kind: 'error'; code: 'user_canceled' | 'pin_locked' | 'pin_incorrect'; pinLocked?: boolean }
  /** Report awaiting_pin and wait for the page's cancel, then answer `canceled`. */
  | { kind: 'wait_for_cancel' };

interface StandInToken {
  info: TokenInfo;
  keys: TokenKey[];
}

function tokenInfo(label: string, locked = false): TokenInfo {
  return {
    slot: `softkey:${label}`,
    module: 'stand-in',
    label,
    manufacturer: 'Tawqi Tests',
    model: 'Software key',
    serial: label,
    pin: { count_low: locked, final_try: false, locked, pin_pad: false, retries: locked ? 'locked' : 'ok' },
  };
}

function certificateInfo(key: TokenKey, token: TokenInfo): CertificateInfo {
  const x = new X509Certificate(Buffer.from(key.der));
  const cn = (subject: string) => /(?:^|\n)CN=([^\n]+)/.exec(subject)?.[1] ?? subject;
  const details = x.publicKey.asymmetricKeyDetails;
  return {
    cert_sha256: sha256(key.der).toString('hex'),
    certificate: b64(key.der),
    chain: key.chain.map(b64),
    subject: x.subject.replace(/\n/g, ', '),
    name: cn(x.subject),
    issuer: cn(x.issuer),
    serial: x.serialNumber,
    not_before: Math.floor(Date.parse(x.validFrom) / 1000),
    not_after: Math.floor(Date.parse(x.validTo) / 1000),
    key_type: key.rsa ? 'rsa' : 'ec',
    key_bits: key.rsa ? (details?.modulusLength ?? 2048) : 256,
    ...(key.rsa ? {} : { curve: 'P-256' }),
    key_usage: ['digitalSignature', 'nonRepudiation'],
    token,
  };
}

/** A WebSocket server speaking the agent protocol on 127.0.0.1, with software keys as its tokens. */
class StandInAgent {
  tokens: StandInToken[] = [];
  trusted = new Set<string>();
  behaviour: SignBehaviour = { kind: 'sign' };
  readonly signRequests: { ticket: SignTicketPayload; cert_sha256: string }[] = [];
  private readonly sockets = new Set<WebSocket>();

  private constructor(private readonly wss: WebSocketServer) {
    wss.on('connection', (ws, req) => this.accept(ws, req));
  }

  static start(port = AGENT_DEFAULT_PORT): Promise<StandInAgent> {
    return new Promise((resolve, reject) => {
      const wss = new WebSocketServer({ host: '127.0.0.1', port });
      wss.once('listening', () => resolve(new StandInAgent(wss)));
      wss.once('error', (err) =>
        reject(new Error(`the stand-in agent cannot listen on 127.0.0.1:${port} (is a real agent running?): ${err.message}`)),
      );
    });
  }

  /** Replace the plugged-in tokens and tell every page (tokens-changed). */
  plug(tokens: StandInToken[]): void {
    this.tokens = tokens;
    for (const ws of this.sockets) ws.send(JSON.stringify({ type: 'tokens-changed', tokens: tokens.map((t) => t.info) }));
  }

  close(): Promise<void> {
    for (const ws of this.sockets) ws.terminate();
    return new Promise((resolve) => this.wss.close(() => resolve()));
  }

  private accept(ws: WebSocket, req: IncomingMessage): void {
    const origin = String(req.headers.origin ?? '');
    if (!this.trusted.has(origin)) {
      ws.send(JSON.stringify({ type: 'error', id: null, code: 'origin_not_trusted', message: 'origin not trusted' }));
      ws.close(4403);
      return;
    }
    this.sockets.add(ws);
    ws.on('close', () => this.sockets.delete(ws));
    const pendingCancels = new Map<string, () => void>();
    ws.on('message', (data) => {
      const m = JSON.parse(String(data)) as Json;
      const send = (msg: Json) => ws.send(JSON.stringify(msg));
      switch (m.type) {
        case 'hello':
          send({
            type: 'hello',
            id: m.id,
            version: 1,
            versions: [1],
            agent: { name: 'stand-in', version: '0.0.0' },
            origin,
            server_key_fingerprint: '0'.repeat(64),
          });
          return;
        case 'list-certificates': {
          const certificates = this.tokens.flatMap((t) => t.keys.map((k) => certificateInfo(k, t.info)));
          send({ type: 'certificates', id: m.id, tokens: this.tokens.map((t) => t.info), certificates });
          return;
        }
        case 'cancel':
          pendingCancels.get(m.target)?.();
          return;
        case 'sign': {
          const ticket = splitSignTicket(m.ticket).payload as SignTicketPayload;
          this.signRequests.push({ ticket, cert_sha256: m.cert_sha256 });
          const key = this.tokens.flatMap((t) => t.keys).find((k) => sha256(k.der).toString('hex') === m.cert_sha256);
          const behaviour = this.behaviour;
          if (!key || ticket.cert_sha256 !== m.cert_sha256) {
            send({ type: 'error', id: m.id, code: 'certificate_not_found', message: 'no such certificate' });
            return;
          }
          send({ type: 'sign-status', id: m.id, status: 'awaiting_consent' });
          if (behaviour.kind === 'wait_for_cancel') {
            send({ type: 'sign-status', id: m.id, status: 'awaiting_pin' });
            pendingCancels.set(m.id, () => send({ type: 'error', id: m.id, code: 'canceled', message: 'the page withdrew the request' }));
            return;
          }
          if (behaviour.kind === 'error') {
            const locked = behaviour.code === 'pin_locked';
            send({
              type: 'error',
              id: m.id,
              code: behaviour.code,
              message: behaviour.code,
              ...(behaviour.code === 'user_canceled'
                ? {}
                : { pin: { count_low: true, final_try: false, locked, pin_pad: false, retries: locked ? 'locked' : 'low' } }),
            });
            return;
          }
          send({ type: 'sign-status', id: m.id, status: 'awaiting_pin' });
          send({ type: 'sign-status', id: m.id, status: 'signing' });
          const cms = agentCms(key, Buffer.from(ticket.digest, 'hex'));
          send({
            type: 'signature',
            id: m.id,
            cms: b64(cms),
            cert_sha256: m.cert_sha256,
            request_id: ticket.request_id,
            signer_id: ticket.signer_id,
            jti: ticket.jti,
          });
          return;
        }
        default:
          send({ type: 'error', id: m.id ?? null, code: 'bad_message', message: 'unknown message' });
      }
    });
  }
}

// ---------------------------------------------------------------------------------------------

describe('qes signing page in Chromium, with a stand-in agent', { timeout: 180_000 }, () => {
  let s: TestServer;
  let browser: TestBrowser;
  let pki: PkiFixture;
  let key: string;
  let templates: Record<Lang, string>;
  let origin: string;
  let ecKey: TokenKey;
  let rsaKey: TokenKey;
  let encryptOnly: TokenKey;
  let foreign: TokenKey;

  before(async () => {
    ensureSigningPage();
    pki = createPkiFixture('rsa');
    const issuing = { pem: pki.issuingCa.pemFile, key: pki.issuingCa.keyFile };
    const chain = [pki.issuingCa.der, pki.root.der];
    ecKey = issueLeaf(pki.dir, 'Rana Token EC', 'ec', SIGNING_EXT, issuing, chain);
    rsaKey = issueLeaf(pki.dir, 'Rana Token RSA', 'rsa', SIGNING_EXT, issuing, chain);
    encryptOnly = issueLeaf(
      pki.dir,
      'Rana Encryption',
      'ec',
      'basicConstraints = critical, CA:FALSE\nkeyUsage = critical, keyEncipherment, keyAgreement',
      issuing,
      chain,
    );
    // A CA this server does not trust: a self-signed root and a signing certificate under it.
    const stranger = untrustedRoot(pki.dir);
    foreign = issueLeaf(pki.dir, 'Rana Foreign CA', 'ec', SIGNING_EXT, stranger, [stranger.der]);
    s = await startTestServer({ TAWQI_QES_TRUSTED_ROOTS: pki.caFile, TAWQI_AGENT_DOWNLOAD_URL: DOWNLOAD_URL });
    s.clock.set(Date.now());
    origin = new URL(s.url).origin;
    const acct = await s.account({ ownerEmail: TEAM[0], plan: 'enterprise', walletMinor: 100_000 });
    await updateAccount(s.ctx.store.db, acct.id, { team_emails: TEAM });
    key = acct.keys.secret_test;
    templates = {} as Record<Lang, string>;
    for (const lang of ['ar', 'en'] as const) {
      const r = await s.call('POST', '/templates', {
        key,
        body: {
          title: `Token agreement ${lang}`,
          language: lang,
          body: lang === 'ar' ? 'اتفاقية مع {{client}}.' : 'Agreement with {{client}}.',
          fields: [{ key: 'client', label: 'Client', required: true }],
        },
      });
      assert.equal(r.status, 201, r.text);
      templates[lang] = r.body.id;
    }
    browser = await launchBrowser();
  });

  after(async () => {
    const results = await Promise.allSettled([browser?.close(), s?.close()]);
    pki?.close();
    for (const r of results) if (r.status === 'rejected') throw r.reason;
  });

  /** A qes test request in `lang` with one token signer, already past the one-time code: its link. */
  async function tokenSignerAtReview(lang: Lang, title: string): Promise<{ id: string; url: string }> {
    const r = await s.call('POST', '/signature_requests', {
      key,
      body: {
        title,
        legal_level: 'qes',
        source: { type: 'template', template_id: templates[lang] },
        signers: [{ name: 'Rana Adel', email: TEAM[1], fields: { client: 'Acme' } }],
      },
    });
    assert.equal(r.status, 201, r.text);
    const signer = r.body.signers[0];
    const origin = { ip: '127.0.0.1', user_agent: 'qes-e2e' };
    await s.ctx.store.tx(async (trx) => {
      await applySignerMove(s.ctx, trx, signer.id, 'view', origin);
      await applySignerMove(s.ctx, trx, signer.id, 'otp_verified', origin);
    });
    return { id: r.body.id, url: signer.signing_url };
  }

  const panel = (page: Page) => page.locator('.token-body');
  const panelState = (page: Page) => panel(page).getAttribute('data-token-state');
  const waitState = (page: Page, state: string) => until(`token panel state ${state}`, async () => (await panelState(page)) === state);

  async function finish(p: { page: Page; watch: PageWatch }, label: string): Promise<void> {
    p.watch.assertClean(label);
    await p.page.close();
  }

  test('English: agent not running (download link, Try again) → the stand-in agent starts → choose the certificate → signed', async () => {
    const title = 'Token agreement (English)';
    const req = await tokenSignerAtReview('en', title);
    const p = await browser.newPage();
    const { page, watch } = p;
    watch.expect(WS_REFUSED);
    await page.goto(req.url);
    await panel(page).getByText(L.en.unavailable).waitFor();
    const link = page.getByRole('link', { name: L.en.download });
    assert.equal(await link.getAttribute('href'), DOWNLOAD_URL);
    await screenshot(page, 'qes-agent-not-running-en');

    const agent = await StandInAgent.start();
    try {
      agent.trusted.add(origin);
      agent.tokens = [{ info: tokenInfo('SoftToken A'), keys: [ecKey] }];
      await page.getByRole('button', { name: L.en.retry, exact: true }).click();
      const radio = page.getByRole('radio', { name: /Rana Token EC/ });
      await radio.waitFor();
      assert.equal(await radio.isChecked(), true, 'the only usable certificate is chosen');
      assert.match(await panel(page).innerText(), /Issued by Tawqi Test Issuing CA/);
      await screenshot(page, 'qes-choose-certificate-en');
      await page.getByRole('button', { name: L.en.sign, exact: true }).click();
      // The first token signature of the run (CMS checked, chain and OCSP built, one transaction) can take
      // longer than the page default on a loaded machine: a generous bound, not a timing assertion.
      await page.getByRole('heading', { name: L.en.signed }).waitFor({ timeout: SIGNED_WAIT_MS });
      assert.equal(agent.signRequests.length, 1);
      assert.equal(agent.signRequests[0]!.ticket.request_id, req.id);
      assert.equal(agent.signRequests[0]!.ticket.iss, origin);
      await screenshot(page, 'qes-signed-en');
    } finally {
      await agent.close();
    }
    await finish(p, 'token signer (en)');
    const r = await s.call('GET', `/signature_requests/${req.id}`, { key });
    assert.equal(r.body.signers[0].status, 'signed');
    assert.equal(r.body.status, 'completed');
  });

  test('Arabic: no token → plugged in (the page notices) → a certificate the server refuses → canceled in the agent → the page’s Cancel → PIN locked → signed', async () => {
    const title = 'اتفاقية بالمفتاح';
    const req = await tokenSignerAtReview('ar', title);
    const agent = await StandInAgent.start();
    const p = await browser.newPage({ width: 390, height: 844 });
    const { page } = p;
    try {
      agent.trusted.add(origin);
      await page.goto(req.url);
      assert.equal(await page.locator('html').getAttribute('dir'), 'rtl');
      await panel(page).getByText(L.ar.noToken).waitFor();
      await screenshot(page, 'qes-no-token-ar');

      // Plugging in a token: the agent says tokens-changed, the page lists the certificates by itself.
      agent.plug([
        { info: tokenInfo('SoftToken B'), keys: [encryptOnly, rsaKey] },
        { info: tokenInfo('Locked token', true), keys: [ecKey] },
      ]);
      const encrypt = page.getByRole('radio', { name: /Rana Encryption/ });
      await encrypt.waitFor();
      const locked = page.getByRole('radio', { name: /Rana Token EC/ });
      assert.equal(await locked.isDisabled(), true, 'a certificate on a PIN-locked token cannot be chosen');
      assert.match(await panel(page).innerText(), new RegExp(L.ar.pinLockedTag));

      // The agent offered a certificate without a signing key usage: the server's check refuses it
      // before any choice — listed first, yet disabled with the reason, and the next one pre-selected.
      assert.equal(await encrypt.isDisabled(), true, 'a certificate the server refuses cannot be chosen');
      assert.equal(await encrypt.isChecked(), false);
      assert.match(await page.locator('.cert-option', { has: encrypt }).innerText(), L.ar.refusedNotSigning);
      assert.equal(
        await page.getByRole('radio', { name: /Rana Token RSA/ }).isChecked(),
        true,
        'only an acceptable certificate is pre-selected',
      );
      await screenshot(page, 'qes-refused-certificate-ar');

      // Canceled in the agent's window.
      await page.getByRole('radio', { name: /Rana Token RSA/ }).check();
      agent.behaviour = { kind: 'error', code: 'user_canceled' };
      await page.getByRole('button', { name: L.ar.sign, exact: true }).click();
      await panel(page).getByText(L.ar.canceled).waitFor();

      // Canceled on the page while the agent waits for the PIN.
      agent.behaviour = { kind: 'wait_for_cancel' };
      await page.getByRole('button', { name: L.ar.sign, exact: true }).click();
      await panel(page).getByText(L.ar.awaitingPin).waitFor();
      await screenshot(page, 'qes-awaiting-pin-ar');
      await page.getByRole('button', { name: L.ar.cancel, exact: true }).click();
      await panel(page).getByText(L.ar.canceled).waitFor();

      // The PIN gets locked in the agent.
      agent.behaviour = { kind: 'error', code: 'pin_locked' };
      await page.getByRole('button', { name: L.ar.sign, exact: true }).click();
      await panel(page).getByText(L.ar.pinLocked).first().waitFor();
      await screenshot(page, 'qes-pin-locked-ar');

      // And finally a signature.
      agent.behaviour = { kind: 'sign' };
      await page.getByRole('radio', { name: /Rana Token RSA/ }).check();
      await page.getByRole('button', { name: L.ar.sign, exact: true }).click();
      await page.getByRole('heading', { name: L.ar.signed }).waitFor({ timeout: SIGNED_WAIT_MS });
      await screenshot(page, 'qes-signed-ar');
    } finally {
      await agent.close();
    }
    await finish(p, 'token signer (ar)');
    const r = await s.call('GET', `/signature_requests/${req.id}`, { key });
    assert.equal(r.body.signers[0].status, 'signed');
  });

  test('English: every certificate on the token refused by the server (wrong CA, not for signing): listed disabled with the reasons, none selected, no signature possible', async () => {
    const req = await tokenSignerAtReview('en', 'Refused certificates');
    const agent = await StandInAgent.start();
    const p = await browser.newPage();
    const { page } = p;
    const checks: string[] = [];
    page.on('request', (r) => {
      if (r.url().includes('/sign/api/token/')) checks.push(new URL(r.url()).pathname);
    });
    try {
      agent.trusted.add(origin);
      agent.tokens = [{ info: tokenInfo('SoftToken C'), keys: [foreign, encryptOnly] }];
      await page.goto(req.url);
      await panel(page).getByText(L.en.noneAccepted).waitFor();
      const wrongCa = page.getByRole('radio', { name: /Rana Foreign CA/ });
      const encrypt = page.getByRole('radio', { name: /Rana Encryption/ });
      for (const radio of [wrongCa, encrypt]) {
        assert.equal(await radio.isDisabled(), true);
        assert.equal(await radio.isChecked(), false);
      }
      assert.match(await page.locator('.cert-option', { has: wrongCa }).innerText(), L.en.refusedUntrusted);
      assert.match(await page.locator('.cert-option', { has: encrypt }).innerText(), L.en.refusedNotSigning);
      assert.equal(await page.getByRole('button', { name: L.en.sign, exact: true }).isDisabled(), true);
      await screenshot(page, 'qes-refused-certificates-en');
      // The page asked the server's check and never prepared: no ticket was issued, the agent was asked for nothing.
      assert.deepEqual(checks, ['/sign/api/token/check']);
      assert.equal(agent.signRequests.length, 0);
      assert.equal(
        await s.ctx.store.db
          .selectFrom('qes_prepared')
          .selectAll()
          .where('signature_request_id', '=', req.id)
          .execute()
          .then((r) => r.length),
        0,
      );
    } finally {
      await agent.close();
    }
    await finish(p, 'refused certificates (en)');
  });

  test('English: an agent that does not trust this site says so; the CSP allows only the agent ports', async () => {
    const req = await tokenSignerAtReview('en', 'Untrusted site');
    const agent = await StandInAgent.start();
    const p = await browser.newPage();
    try {
      const res = await p.page.goto(req.url);
      assert.match(
        (await res!.allHeaders())['content-security-policy'] ?? '',
        /connect-src 'self' ws:\/\/127\.0\.0\.1:38611 ws:\/\/127\.0\.0\.1:38612 ws:\/\/127\.0\.0\.1:38613 ws:\/\/127\.0\.0\.1:38614;/,
      );
      await panel(p.page).getByText(L.en.notTrusted).waitFor();
      assert.match(await panel(p.page).innerText(), new RegExp(origin.replace(/[.:/]/g, '\\$&')));
      await waitState(p.page, 'not_trusted');
      await screenshot(p.page, 'qes-not-trusted-en');
    } finally {
      await agent.close();
    }
    await finish(p, 'untrusted site (en)');
  });
});

// ---------------------------------------------------------------------------------------------
// Part 2: the real agent (CLI shell) and SoftHSM2

/**
 * How to run the agent's CLI shell: `agent/bin/tawqi-agent.js` (what `npx tawqi-agent` runs) when the
 * build is newer than the sources (CI builds first), else the same CLI from its sources.
 */
function agentCommand(): string[] {
  const agentDir = path.join(ROOT, 'agent');
  const built = path.join(agentDir, 'dist', 'cli', 'main.js');
  if (existsSync(built) && statSync(built).mtimeMs >= newest(path.join(agentDir, 'src')))
    return [path.join(agentDir, 'bin', 'tawqi-agent.js')];
  return ['--conditions=tawqi-source', '--import', 'tsx', path.join(agentDir, 'src', 'cli', 'main.ts')];
}

interface RunningAgent {
  port: number;
  output: () => string;
  stop(): Promise<void>;
}

/** `tawqi-agent serve` on 127.0.0.1 with SoftHSM2 as its only module; consent and PIN from the test variables. */
async function startAgentCli(hsm: SoftHsm, dataDir: string): Promise<RunningAgent> {
  const child: ChildProcess = spawn(
    process.execPath,
    [...agentCommand(), 'serve', '--data-dir', dataDir, '--module', hsm.module, '--no-known-modules'],
    {
      cwd: ROOT,
      env: { ...hsm.env, TAWQI_AGENT_TEST_CONSENT: 'yes', TAWQI_AGENT_TEST_PIN: hsm.pin },
      stdio: ['pipe', 'pipe', 'pipe'],
    },
  );
  let out = '';
  child.stdout!.on('data', (d: Buffer) => (out += d.toString()));
  child.stderr!.on('data', (d: Buffer) => (out += d.toString()));
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
  const port = await until(
    'the agent listening',
    () => Number(/listening on ws:\/\/127\.0\.0\.1:(\d+)/.exec(out)?.[1] ?? 0) || (child.exitCode !== null ? -1 : 0),
    60_000,
  );
  assert.ok(port > 0, `the agent did not start:\n${out}`);
  return {
    port,
    output: () => out,
    stop: async () => {
      if (child.exitCode === null) child.kill('SIGTERM');
      await exited;
    },
  };
}

describe('qes end to end: Chromium → agent CLI shell → SoftHSM2 → server → final PDF', { timeout: 300_000 }, () => {
  let s: TestServer;
  let browser: TestBrowser;
  let hsm: SoftHsm;
  let agent: RunningAgent;
  let work: string;
  let nssDir: string;
  let liveKey: string;

  before(async () => {
    ensureSigningPage();
    work = mkdtempSync(path.join(tmpdir(), 'tawqi-qes-e2e-'));
    // The token also holds a signing certificate from a CA this server does not trust.
    hsm = createSoftHsm({ strangerCa: true }, false);
    s = await startTestServer({ TAWQI_QES_TRUSTED_ROOTS: hsm.rootPemFile });
    // NSS checks OCSP freshness against the real time: run the injected clock at the real time.
    s.clock.set(Date.now());
    const acct = await s.account({ ownerEmail: TEAM[0], plan: 'enterprise', balanceSends: 100, walletMinor: 100_000 });
    await updateAccount(s.ctx.store.db, acct.id, { team_emails: TEAM });
    liveKey = acct.keys.secret_live;

    // The agent trusts this server (its key fingerprint, as an operator would publish it).
    const dataDir = path.join(work, 'agent');
    await execFileAsync(
      process.execPath,
      [...agentCommand(), 'trust', 'add', new URL(s.url).origin, '--fingerprint', s.ctx.pki.evidence.keyId, '--data-dir', dataDir],
      { cwd: ROOT, env: hsm.env },
    );
    agent = await startAgentCli(hsm, dataDir);

    nssDir = path.join(work, 'nss');
    execFileSync('mkdir', ['-p', nssDir]);
    execFileSync('certutil', ['-N', '-d', `sql:${nssDir}`, '--empty-password']);
    execFileSync('certutil', ['-A', '-d', `sql:${nssDir}`, '-n', 'tawqi-test-token-root', '-t', 'CT,C,C', '-i', hsm.rootPemFile]);
    writeFileSync(path.join(work, 'tawqi-ca.pem'), s.ctx.pki.ca.pem);
    writeFileSync(
      path.join(work, 'tawqi-tsa.pem'),
      `-----BEGIN CERTIFICATE-----\n${b64(s.ctx.pki.tsa.certificate).replace(/.{64}/g, '$&\n')}\n-----END CERTIFICATE-----\n`,
    );
    browser = await launchBrowser();
  });

  after(async () => {
    const results = await Promise.allSettled([browser?.close(), agent?.stop(), s?.close()]);
    hsm?.cleanup();
    if (work) rmSync(work, { recursive: true, force: true });
    for (const r of results) if (r.status === 'rejected') throw r.reason;
  });

  /** Open the signer's page (past the one-time code), pick the certificate, sign; the page shows signed. */
  async function signInBrowser(signerId: string, url: string, certificate: RegExp, lang: Lang, shot: string): Promise<void> {
    const origin = { ip: '127.0.0.1', user_agent: 'qes-e2e' };
    await s.ctx.store.tx(async (trx) => {
      await applySignerMove(s.ctx, trx, signerId, 'view', origin);
      await applySignerMove(s.ctx, trx, signerId, 'otp_verified', origin);
    });
    const p = await browser.newPage();
    await p.page.goto(url);
    const radio = p.page.getByRole('radio', { name: certificate });
    await radio.waitFor({ timeout: 30_000 });
    // The agent offers the stranger CA's certificate; the server's check refuses it before any choice.
    const stranger = p.page.getByRole('radio', { name: /Test Signer Stranger CA/ });
    assert.equal(await stranger.isDisabled(), true, 'a certificate the server refuses cannot be chosen');
    assert.match(await p.page.locator('.cert-option', { has: stranger }).innerText(), L[lang].refusedUntrusted);
    await radio.check();
    // Certificates the agent does not offer (no signing usage, expired) are not listed.
    assert.equal(await p.page.getByRole('radio', { name: /Test Encryption|Test Signer Expired/ }).count(), 0);
    await screenshot(p.page, `${shot}-choose`);
    await p.page.getByRole('button', { name: L[lang].sign, exact: true }).click();
    await p.page.getByRole('heading', { name: L[lang].signed }).waitFor({ timeout: 60_000 });
    await screenshot(p.page, `${shot}-signed`);
    p.watch.assertClean(shot);
    await p.page.close();
  }

  test('two token signers, RSA then EC, in real Chromium through the agent: every signature in the final PDF is valid', async () => {
    const r = await s.call('POST', '/signature_requests', {
      key: liveKey,
      body: {
        title: 'اتفاقية عدم إفصاح (رمز أمان)',
        legal_level: 'qes',
        ordered: true,
        source: { type: 'template', template_id: 'tpl_nda_ar' },
        signers: [
          { name: 'رنا عادل', email: TEAM[1], fields: NDA_FIELDS },
          { name: 'Karim Nabil', email: TEAM[2] },
        ],
      },
    });
    assert.equal(r.status, 201, r.text);
    assert.equal(r.body.format, 'pades-lt');
    const [first, second] = r.body.signers as { id: string; signing_url: string | null }[];

    await signInBrowser(first!.id, first!.signing_url!, /Test Signer RSA/, 'ar', 'qes-e2e-signer1-rsa');
    const mid = (await s.call('GET', `/signature_requests/${r.body.id}`, { key: liveKey })).body;
    assert.equal(mid.status, 'partially_signed');
    await signInBrowser(second!.id, mid.signers[1].signing_url, /Test Signer EC/, 'ar', 'qes-e2e-signer2-ec');

    const done = (await s.call('GET', `/signature_requests/${r.body.id}`, { key: liveKey })).body;
    assert.equal(done.status, 'completed');
    await s.jobs.runDue();
    const download = await s.call('GET', `/signature_requests/${r.body.id}/download`, { key: liveKey });
    assert.equal(download.body.pdf_status, 'ready', JSON.stringify(download.body));
    const res = await fetch(`${s.url}/api/v1/signature_requests/${r.body.id}/download/pdf`, {
      headers: { authorization: `Bearer ${liveKey}` },
    });
    assert.equal(res.status, 200);
    const pdf = new Uint8Array(await res.arrayBuffer());
    const file = path.join(work, 'final.pdf');
    writeFileSync(file, pdf);

    // pdfsig (it may ask this server for OCSP: asynchronous).
    const out = await execFileAsync('pdfsig', ['-nssdir', `sql:${nssDir}`, file], { encoding: 'utf8' }).then(
      (x) => x.stdout,
      (e: { stdout?: string; stderr?: string }) => `${e.stdout ?? ''}${e.stderr ?? ''}`,
    );
    assert.equal(out.match(/Signature Validation: Signature is Valid\./g)?.length, 2, out);
    assert.equal(out.match(/Certificate Validation: Certificate is Trusted\./g)?.length, 2, out);
    assert.match(out, /Test Signer RSA/);
    assert.match(out, /Test Signer EC/);

    // pades-lt is B-LTA: the two token signatures, then (after the /DSS) one document timestamp
    // over the whole file, which openssl ts verifies over its byte range.
    const all = signaturesOf(pdf);
    assert.equal(all.length, 3);
    const [stamp, ...moreStamps] = documentTimestampsOf(pdf);
    assert.ok(stamp && moreStamps.length === 0, 'one document timestamp');
    assert.deepEqual(stamp.byteRange, all[2]!.byteRange);
    assert.equal(stamp.byteRange[2] + stamp.byteRange[3], pdf.byteLength);
    const stampCheck = verifyDocumentTimestamp(stamp, { caFile: path.join(work, 'tawqi-ca.pem') });
    assert.ok(stampCheck.ok, stampCheck.output);
    const sigs = all.slice(0, 2);
    for (const [i, sig] of sigs.entries()) {
      writeFileSync(path.join(work, `sig${i}.der`), sig.cms);
      writeFileSync(path.join(work, `signed${i}.bin`), sig.signedBytes);
      const cms = await execFileAsync(
        'openssl',
        [
          'cms',
          '-verify',
          '-binary',
          '-inform',
          'DER',
          '-in',
          path.join(work, `sig${i}.der`),
          '-content',
          path.join(work, `signed${i}.bin`),
          '-CAfile',
          hsm.rootPemFile,
          '-purpose',
          'any',
          '-out',
          '/dev/null',
        ],
        { encoding: 'utf8' },
      );
      assert.match(cms.stderr, /Verification successful/, cms.stderr);
      const { token, signatureValue } = timestampOf(sig.cms);
      writeFileSync(path.join(work, `ts${i}.tst`), token);
      const ts = await execFileAsync(
        'openssl',
        [
          'ts',
          '-verify',
          '-token_in',
          '-in',
          path.join(work, `ts${i}.tst`),
          '-digest',
          sha256(signatureValue).toString('hex'),
          '-CAfile',
          path.join(work, 'tawqi-ca.pem'),
          '-untrusted',
          path.join(work, 'tawqi-tsa.pem'),
        ],
        { encoding: 'utf8' },
      ).then(
        (x) => x.stdout + x.stderr,
        (e: { stdout?: string; stderr?: string }) => `${e.stdout}${e.stderr}`,
      );
      assert.match(ts, /Verification: OK/, ts);
    }
    assert.match(agent.output(), /listening/);
  });
});
