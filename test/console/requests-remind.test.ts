/**
 * The Remind button of the console's request page in real Chromium (issue 15 point 3): pressing it
 * on a sent request sends a reminder through the public API that arrives at a real SMTP peer and
 * shows a confirmation; pressing it again within the hour gets the API's refusal (429
 * reminder_too_soon), shown in the page's language. axe-core clean with the messages shown.
 */
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import type { Page } from 'playwright-core';
import { ensureConsole } from '../support/bundles.js';
import { launchBrowser, tabTo, type PageWatch, type TestBrowser } from '../support/browser.js';
import { assertAccessible, consoleScreenshot } from '../support/console.js';
import { CONSOLE_TEST_ENV, consoleUser } from '../support/consoleClient.js';
import { deliverMails, smtpEnvOf } from '../support/consoleMail.js';
import { signInPage, visitConsole } from '../support/consolePage.js';
import { startTestServer, type TestServer } from '../support/server.js';
import { startSmtpPeer, type SmtpPeer } from '../support/smtpPeer.js';
import { teamAccount, type TeamAccount } from '../support/teamAccount.js';

const TEMPLATE = {
  title: 'Consulting',
  language: 'en',
  body: 'Consulting for {{client_name}}.',
  fields: [{ key: 'client_name', label: 'Client', type: 'text', required: true }],
};

describe('the Remind button of a request, in Chromium', { timeout: 300_000 }, () => {
  let peer: SmtpPeer;
  let s: TestServer;
  let a: TeamAccount;
  let browser: TestBrowser;
  let tab: { page: Page; watch: PageWatch };
  let requestId = '';
  const owner = 'owner.remind@acme.test';

  before(async () => {
    ensureConsole();
    peer = await startSmtpPeer();
    s = await startTestServer({ ...CONSOLE_TEST_ENV, ...smtpEnvOf(peer) });
    a = await teamAccount(s, TEMPLATE);
    await consoleUser(s, a.id, owner, 'owner');
    const r = await s.call('POST', '/signature_requests', {
      key: a.keys.secret_test,
      body: {
        title: 'Lease Alpha',
        source: { type: 'template', template_id: a.templateId },
        signers: [{ name: 'Member One', email: a.team[1], fields: { client_name: 'Nile Trading' } }],
      },
    });
    assert.equal(r.status, 201, r.text);
    requestId = r.body.id;
    // The invitation goes out first.
    const [invitation] = await deliverMails(s, peer, 1);
    assert.deepEqual(invitation!.envelopeTo, [a.team[1]]);
    browser = await launchBrowser();
    tab = await browser.newPage();
  });
  after(async () => {
    await browser?.close();
    await s?.close();
    await peer?.close();
  });

  test('Remind (by keyboard) sends a reminder that arrives by SMTP, with a confirmation on the page', async () => {
    const { page } = tab;
    await signInPage(browser, page, s.url, owner);
    await visitConsole(browser, page, s.url, `/console/requests/${requestId}`, 'en', '.timeline');
    await page.getByRole('heading', { level: 1 }).focus();
    await tabTo(page, page.getByRole('button', { name: 'Send a reminder' }), { max: 40 });
    await page.keyboard.press('Enter');
    await page.getByRole('status').filter({ hasText: 'A reminder was sent to the signers who have not signed.' }).first().waitFor();
    const [reminder] = await deliverMails(s, peer, 1);
    assert.deepEqual(reminder!.envelopeTo, [a.team[1]]);
    assert.match(reminder!.subject ?? '', /Lease Alpha|remind/i);
    await assertAccessible(page, 'reminded');
    await consoleScreenshot(page, 'requests-reminded-en');
  });

  test('a second reminder within the hour: the API’s refusal is shown in the page’s language, and nothing is sent', async () => {
    const { page } = tab;
    for (const lang of ['en', 'ar'] as const) {
      await visitConsole(browser, page, s.url, `/console/requests/${requestId}`, lang, '.timeline');
      const expected = await s.call('POST', `/signature_requests/${requestId}/reminders`, {
        key: a.keys.secret_test,
        headers: { 'accept-language': lang },
      });
      assert.equal(expected.status, 429, expected.text);
      assert.equal(expected.body.error.code, 'reminder_too_soon');
      await page.getByRole('button', { name: lang === 'en' ? 'Send a reminder' : 'إرسال تذكير' }).click();
      const alert = page.locator('.detail-flash[role="alert"]');
      await alert.waitFor();
      assert.equal(await alert.textContent(), expected.body.error.message);
      await assertAccessible(page, `reminder refused (${lang})`);
      await consoleScreenshot(page, `requests-remind-refused-${lang}`);
    }
    await deliverMails(s, peer, 0);
  });
});
