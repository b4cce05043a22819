/**
 * A link-channel session end to end in Chromium (spec 4.2): POST /sessions returns every signer's
 * link and no invitation is sent; the client hands the links out. In order, the second signer's
 * page refuses them until the first has signed; each signer asks for the one-time code, which goes
 * to their email (read from a real SMTP peer), draws and signs. Every page is watched for console
 * errors, uncaught errors and CSP violations.
 */
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import type { Page } from 'playwright-core';
import { createWorkflow } from '../../server/src/services/workflows.js';
import { updateAccount } from '../../server/src/store/accounts.js';
import { drawSignature, launchBrowser, screenshot, until, type PageWatch, type TestBrowser } from '../support/browser.js';
import { ensureSigningPage } from '../support/bundles.js';
import { PAGE_LABELS } from '../support/pageLabels.js';
import { startTestServer, type TestServer } from '../support/server.js';
import { startSmtpPeer, type CapturedMail, type SmtpPeer } from '../support/smtpPeer.js';

// eslint-disable-next-line @typescript-eslint/no-explicit-any
type Json = any;
const TEAM = ['owner@example.com', 'amira@example.com', 'bassem@example.com'] as const;

const L = PAGE_LABELS.en;

describe('link-channel session with two signers, in Chromium', { timeout: 300_000 }, () => {
  let s: TestServer;
  let peer: SmtpPeer;
  let browser: TestBrowser;

  before(async () => {
    ensureSigningPage();
    peer = await startSmtpPeer();
    s = await startTestServer({ TAWQI_SMTP_URL: `smtp://127.0.0.1:${peer.port}`, TAWQI_SMTP_FROM: 'Tawqi <no-reply@tawqi.test>' });
    browser = await launchBrowser();
  });
  after(async () => {
    const results = await Promise.allSettled([browser?.close(), s?.close(), peer?.close()]);
    for (const r of results) if (r.status === 'rejected') throw r.reason;
  });

  const mailsTo = (to: string) => peer.mails.filter((m) => m.envelopeTo.includes(to));

  /** Run due jobs (delivery), then wait for the next one-time code email to `to`. */
  async function codeFor(to: string, seen: number): Promise<string> {
    await s.jobs.runDue();
    const mail: CapturedMail = await until(`a code email to ${to}`, () => mailsTo(to)[seen]);
    assert.match(mail.subject, /^\[TEST\] Your code to sign: /);
    const m = /(?:^|\s)(\d{6})(?:\s|$)/m.exec(mail.text ?? '');
    assert.ok(m, 'a 6-digit code in the email');
    return m[1]!;
  }

  async function signAs(p: { page: Page; watch: PageWatch }, email: string, title: string): Promise<void> {
    const { page } = p;
    await page.getByRole('button', { name: L.sendCode, exact: true }).click();
    const input = page.getByLabel(L.codeLabel, { exact: true });
    await input.waitFor();
    await input.pressSequentially(await codeFor(email, 0));
    await page.getByRole('button', { name: L.verify, exact: true }).click();
    await page.getByRole('heading', { name: title, level: 1 }).waitFor();
    assert.match(
      await page.getByRole('article').innerText(),
      /Partnership between Amira Hassan and Bassem Ali/,
      'the contract with the session’s field values',
    );
    await drawSignature(page, page.getByRole('img', { name: L.pad }));
    await page.getByRole('checkbox', { name: L.consent }).check();
    await page.getByRole('button', { name: L.sign, exact: true }).click();
    await page.getByRole('heading', { name: L.signed }).waitFor();
  }

  test('all links at creation, no invitation; the second signer waits for the first; each code arrives by email; both sign', async () => {
    const acct = await s.account({ ownerEmail: TEAM[0], plan: 'enterprise' });
    await updateAccount(s.ctx.store.db, acct.id, { team_emails: [...TEAM] });
    const key = acct.keys.secret_test;
    const tpl = await s.call('POST', '/templates', {
      key,
      body: {
        title: 'Partnership agreement',
        language: 'en',
        body: 'Partnership between {{first}} and {{second}}.\n\n1. Both parties share the work.',
        fields: [
          { key: 'first', label: 'First', required: true },
          { key: 'second', label: 'Second', required: true },
        ],
      },
    });
    assert.equal(tpl.status, 201, tpl.text);
    const wf = await createWorkflow(
      s.ctx.store,
      s.clock,
      acct.id,
      'Partners',
      { document_mode: 'fixed', template_id: tpl.body.id, channel: 'link', ordered: true, language: 'en' },
      true,
    );
    const title = 'Partnership with Nile Co';
    const r = await s.call('POST', '/sessions', {
      key,
      body: {
        workflow_id: wf.workflow.id,
        title,
        vendor_data: 'deal-17',
        fields: { first: 'Amira Hassan', second: 'Bassem Ali' },
        signers: [
          { name: 'Amira Hassan', email: TEAM[1] },
          { name: 'Bassem Ali', email: TEAM[2] },
        ],
      },
    });
    assert.equal(r.status, 201, r.text);
    const sess: Json = r.body;
    assert.equal(sess.channel, 'link');
    assert.equal(sess.sign_url, null, 'two signers: the links are per signer');
    const [first, second] = sess.signers.map((x: Json) => x.sign_url as string);
    assert.ok(first && second, 'both links at creation');
    await s.jobs.runDue();
    assert.equal(peer.mails.length, 0, 'the link channel sends no invitation');

    const p2 = await browser.newPage();
    await p2.page.goto(second);
    await p2.page.getByRole('heading', { name: L.notYourTurn }).waitFor();
    assert.equal(await p2.page.getByRole('button', { name: L.sendCode }).count(), 0, 'no code before the first signer has signed');
    await screenshot(p2.page, 'link-session-not-your-turn');

    const p1 = await browser.newPage();
    await p1.page.goto(first);
    assert.match((await p1.page.locator('html').getAttribute('lang')) ?? '', /^en$/);
    await signAs(p1, TEAM[1], title);
    p1.watch.assertClean('first signer');
    await p1.page.close();

    const mid = (await s.call('GET', `/sessions/${sess.id}`, { key })).body;
    assert.equal(mid.status, 'partially_signed');
    assert.deepEqual(
      mid.signers.map((x: Json) => x.status),
      ['signed', 'sent'],
    );

    await p2.page.reload();
    await signAs(p2, TEAM[2], title);
    await screenshot(p2.page, 'link-session-signed');
    p2.watch.assertClean('second signer');
    await p2.page.close();

    const done = (await s.call('GET', `/sessions/${sess.id}`, { key })).body;
    assert.equal(done.status, 'completed');
    assert.deepEqual(
      done.signers.map((x: Json) => x.status),
      ['signed', 'signed'],
    );
    assert.equal(done.vendor_data, 'deal-17');
    await s.jobs.runDue();
    assert.ok(
      peer.mails.every((m) => /^\[TEST\] Your code to sign: /.test(m.subject)),
      'only one-time codes were emailed, never an invitation',
    );
    assert.deepEqual(
      peer.mails.map((m) => m.envelopeTo[0]),
      [TEAM[1], TEAM[2]],
    );
  });
});
