/**
 * The console's Identity review screen in real Chromium against a real server (issue 15 points 5
 * and 7, "approve a held name match and see the signer sign"): the queue shows a signer held on a
 * name mismatch (both names, document type, last four digits) and a check in review; approving by
 * keyboard through the confirm dialog goes through the public API with the console credential,
 * the signer then signs and the request completes with signer.identity_match_hold,
 * signer.identity_match_decided and signer.signed in its timeline; rejecting stops that signer's
 * signing; an API refusal shows in the page language; a viewer sees the queue without buttons;
 * the other mode's queue is empty. axe-core clean and screenshotted in Arabic and English.
 */
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import type { Page } from 'playwright-core';
import { ensureConsole } from '../support/bundles.js';
import { isFocused, launchBrowser, tabTo, type PageWatch, type TestBrowser } from '../support/browser.js';
import { assertAccessible, consoleScreenshot } from '../support/console.js';
import { CONSOLE_TEST_ENV, ConsoleClient, consoleUser, TEST_PASSWORD } from '../support/consoleClient.js';
import { setMode, signInPage, visitConsole } from '../support/consolePage.js';
import { aesRequest, holdOnNameMatch, putInReview } from '../support/identityReview.js';
import { startTestServer, type TestServer } from '../support/server.js';

describe('the console Identity review screen, in Chromium', { timeout: 300_000 }, () => {
  let s: TestServer;
  let key: string;
  let browser: TestBrowser;
  let tab: { page: Page; watch: PageWatch };
  const owner = 'owner.idr@acme.test';
  const viewer = 'viewer.idr@acme.test';
  const held = { approve: { id: '', signerId: '' }, reject: { id: '', signerId: '' }, stale: { id: '', signerId: '' } };
  const QUEUE = '/console/identity-review';

  const visit = (lang: 'ar' | 'en') => visitConsole(browser, tab.page, s.url, QUEUE, lang, '.idr-list, .empty, .notice');
  const itemOf = (signerId: string) => tab.page.locator(`.idr-item[data-signer="${signerId}"]`);
  const signerOf = async (requestId: string) =>
    (await s.call('GET', `/signature_requests/${requestId}`, { key })).body.signers[0] as {
      status: string;
      identity: { status: string };
    };

  before(async () => {
    ensureConsole();
    s = await startTestServer(CONSOLE_TEST_ENV);
    const a = await s.account({ name: 'Acme', ownerEmail: owner });
    key = a.keys.secret_test;
    await consoleUser(s, a.id, owner, 'owner');
    await consoleUser(s, a.id, viewer, 'viewer');
    held.approve = await aesRequest(s, key, 'Supply contract', { name: 'أميرة صالح', email: owner });
    held.reject = await aesRequest(s, key, 'Lease renewal', { name: 'Omar Farouk', email: owner });
    held.stale = await aesRequest(s, key, 'Office rent', { name: 'Nadia Kamel', email: owner });
    const reviewed = await aesRequest(s, key, 'Consulting', { name: 'Karim Adel', email: owner });
    await holdOnNameMatch(s, held.approve.signerId, 'Amira Saleh');
    await holdOnNameMatch(s, held.reject.signerId, 'Omar Farouq');
    await holdOnNameMatch(s, held.stale.signerId, 'Nadia Kamal');
    await putInReview(s, reviewed.signerId);
    browser = await launchBrowser();
    tab = await browser.newPage();
  });
  after(async () => {
    await browser?.close();
    await s?.close();
  });

  test('the queue: held name mismatches side by side with the document type and last four, and a check in review', async () => {
    const { page } = tab;
    await signInPage(browser, page, s.url, owner);
    for (const lang of ['en', 'ar'] as const) {
      await visit(lang);
      assert.equal(await page.locator('.idr-item').count(), 4);
      const item = itemOf(held.approve.signerId);
      assert.equal(await item.locator('.idr-names dd').nth(0).textContent(), 'أميرة صالح');
      assert.equal(await item.locator('.idr-names dd').nth(1).textContent(), 'Amira Saleh');
      assert.equal(await item.locator('.idr-facts code').textContent(), '0000');
      assert.equal(await item.getByRole('link', { name: 'Supply contract' }).getAttribute('href'), `/console/requests/${held.approve.id}`);
      await assertAccessible(page, `identity review (${lang})`);
      await consoleScreenshot(page, `identity-review-queue-${lang}`);
    }
    await visit('en');
    const item = itemOf(held.approve.signerId);
    assert.match((await item.textContent()) ?? '', /Name mismatch.*Simulated document \(test mode\)/s);
    const review = page.locator('.idr-item').filter({ hasText: 'Karim Adel' });
    assert.match((await review.textContent()) ?? '', /Identity check in review/);
    assert.equal(await review.getByRole('button').count(), 0, 'a check in review is the provider’s to decide');
  });

  test('approve by keyboard: the dialog says what follows, the item leaves the queue, the signer signs and the request completes', async () => {
    const { page } = tab;
    await visit('en');
    const approve = itemOf(held.approve.signerId).getByRole('button', { name: 'Approve the name' });
    await page.getByRole('heading', { level: 1 }).focus();
    await tabTo(page, approve, { max: 40 });
    await page.keyboard.press('Enter');
    const dialog = page.getByRole('dialog', { name: 'Approve the name for أميرة صالح?' });
    await dialog.waitFor();
    assert.match((await dialog.textContent()) ?? '', /can go on signing.*signer\.identity_match_decided.*approved/s);
    assert.ok(await isFocused(dialog.getByRole('button', { name: 'Decide later' })), 'the safe answer has the focus');
    await assertAccessible(page, 'approve dialog');
    await consoleScreenshot(page, 'identity-review-approve-dialog-en');
    // Escape decides nothing and gives the focus back.
    await page.keyboard.press('Escape');
    await dialog.waitFor({ state: 'detached' });
    assert.ok(await isFocused(approve));
    assert.equal((await signerOf(held.approve.id)).identity.status, 'match_hold');
    await page.keyboard.press('Enter');
    await dialog.waitFor();
    await page.keyboard.press('Tab');
    assert.ok(await isFocused(dialog.getByRole('button', { name: 'Approve the name' })));
    await page.keyboard.press('Enter');
    await page.getByRole('status').filter({ hasText: 'Approved: أميرة صالح can go on signing “Supply contract”.' }).first().waitFor();
    await itemOf(held.approve.signerId).waitFor({ state: 'detached' });
    assert.equal(await page.locator('.idr-item').count(), 3);
    assert.ok(await page.evaluate('document.activeElement?.tagName === "H2"'), 'the focus moves to the next item');

    const signer = await signerOf(held.approve.id);
    assert.equal(signer.status, 'identity_verified');
    assert.equal(signer.identity.status, 'approved');
    // The signer signs (as the signing page does, through the test helper of the public API).
    const signed = await s.call('POST', `/test_helpers/signers/${held.approve.signerId}/sign`, { key });
    assert.equal(signed.status, 200, signed.text);
    await s.jobs.runDue();
    assert.equal((await s.call('GET', `/signature_requests/${held.approve.id}`, { key })).body.status, 'completed');

    // The request's page shows the decision and the signature in its timeline.
    await visitConsole(browser, page, s.url, `/console/requests/${held.approve.id}`, 'en', '.timeline');
    const types = await page.locator('.timeline .event-type').allTextContents();
    const order = ['signer.identity_match_hold', 'signer.identity_match_decided', 'signer.signed', 'signature_request.completed'];
    assert.deepEqual(
      types.filter((t) => order.includes(t)),
      order,
    );
    const decided = await s.call('GET', `/events?signature_request=${held.approve.id}&type=signer.identity_match_decided`, { key });
    assert.equal(decided.body.data[0].data.object.identity_match.decision, 'approved');
  });

  test('reject with the mouse: signing stops for that signer, the request stays open', async () => {
    const { page } = tab;
    await visit('en');
    await itemOf(held.reject.signerId).getByRole('button', { name: 'Reject and stop signing' }).click();
    const dialog = page.getByRole('dialog', { name: 'Reject and stop signing for Omar Farouk?' });
    await dialog.waitFor();
    assert.match((await dialog.textContent()) ?? '', /Signing stops for Omar Farouk.*rejected.*stays open/s);
    await dialog.getByRole('button', { name: 'Reject and stop signing' }).click();
    await page.getByRole('status').filter({ hasText: 'Rejected: signing stopped for Omar Farouk' }).first().waitFor();
    await itemOf(held.reject.signerId).waitFor({ state: 'detached' });
    const signer = await signerOf(held.reject.id);
    assert.equal(signer.identity.status, 'match_rejected');
    const refused = await s.call('POST', `/test_helpers/signers/${held.reject.signerId}/sign`, { key });
    assert.notEqual(refused.status, 200, refused.text);
    const request = (await s.call('GET', `/signature_requests/${held.reject.id}`, { key })).body;
    assert.notEqual(request.status, 'completed');
    const decided = await s.call('GET', `/events?signature_request=${held.reject.id}&type=signer.identity_match_decided`, { key });
    assert.equal(decided.body.data[0].data.object.identity_match.decision, 'rejected');
  });

  test('an API refusal (decided elsewhere meanwhile) is shown in the page language', async () => {
    const { page } = tab;
    await visit('ar');
    // Decided through the API behind the page's back: the page still offers the buttons.
    const meanwhile = await s.call('POST', `/signers/${held.stale.signerId}/identity_match`, { key, body: { decision: 'approve' } });
    assert.equal(meanwhile.status, 200, meanwhile.text);
    const again = await s.call('POST', `/signers/${held.stale.signerId}/identity_match`, { key, body: { decision: 'approve' } });
    assert.equal(again.status, 409, again.text);
    const item = itemOf(held.stale.signerId);
    await item.getByRole('button', { name: 'اعتماد الاسم' }).click();
    await page.getByRole('dialog').getByRole('button', { name: 'اعتماد الاسم' }).click();
    const alert = item.getByRole('alert');
    await alert.waitFor();
    assert.equal(await alert.textContent(), again.body.error.message, 'the envelope’s Arabic message');
    await assertAccessible(page, 'refusal (ar)');
    await consoleScreenshot(page, 'identity-review-refused-ar');
  });

  test('the other mode’s queue is empty: an empty state in both languages', async () => {
    const { page } = tab;
    await setMode(page, 'live');
    for (const lang of ['en', 'ar'] as const) {
      await visit(lang);
      await page.locator('.empty').waitFor();
      assert.equal(await page.locator('.idr-item').count(), 0);
      await assertAccessible(page, `empty queue (${lang})`);
      await consoleScreenshot(page, `identity-review-empty-${lang}`);
    }
    await setMode(page, 'test');
  });

  test('a viewer sees the queue without buttons, and the API refuses the viewer’s credential a decision', async () => {
    const { page } = tab;
    await browser.context.clearCookies();
    await signInPage(browser, page, s.url, viewer);
    await visit('en');
    assert.ok((await page.locator('.idr-item').count()) >= 1);
    assert.equal(await page.locator('.idr-item').getByRole('button').count(), 0);
    await assertAccessible(page, 'queue as viewer');
    const c = new ConsoleClient(s.url, 'en');
    assert.equal((await c.signIn(viewer, TEST_PASSWORD)).status, 200);
    const cred = await c.call('POST', '/credentials', { body: { livemode: false } });
    const write = await s.call('POST', `/signers/${held.reject.signerId}/identity_match`, {
      key: cred.body.token,
      body: { decision: 'approve' },
    });
    assert.equal(write.status, 403, write.text);
  });
});
