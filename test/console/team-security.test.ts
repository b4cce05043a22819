/**
 * The console's Team and Security screens in real Chromium against a real server (issue 15 point 7,
 * "invite a teammate and sign in with two-factor"): the owner invites a teammate by keyboard; the
 * invitation arrives at a real SMTP peer; the teammate opens its link in a browser of their own,
 * chooses a name and a password and lands signed in; enrols two-step verification on the Security
 * screen (the QR code shown under the console's CSP, the code computed from the key on the page with
 * otpauth at the server's clock), saves the recovery codes (copy and download), signs out and signs
 * in again with the password and a code. Then the role rules as the page shows them, a role change
 * and a removal (the removed user's session ends), resending and canceling an invitation, a password
 * change with the server's refusals on the fields, and signing out everywhere. Each screen and state
 * is axe-core clean and screenshotted in Arabic and English (test-artifacts/console/).
 */
import assert from 'node:assert/strict';
import { readFile } from 'node:fs/promises';
import { after, before, describe, test } from 'node:test';
import { Secret, TOTP } from 'otpauth';
import type { Page } from 'playwright-core';
import { mayManage, ROLE_PERMISSIONS as SERVER_ROLE_PERMISSIONS, CONSOLE_ROLES } from '../../server/src/domain/consoleRoles.js';
import { grantableRoles, manageBlock, ROLE_PERMISSIONS, ROLES } from '../../console/src/team/roles.js';
import { updateConsoleUser } from '../../server/src/store/consoleUsers.js';
import { ensureConsole } from '../support/bundles.js';
import { isFocused, launchBrowser, tabTo, until, type PageWatch, type TestBrowser } from '../support/browser.js';
import { assertAccessible, consoleScreenshot, useConsoleLanguage } from '../support/console.js';
import { CONSOLE_TEST_ENV, ConsoleClient, consoleUser, TEST_PASSWORD } from '../support/consoleClient.js';
import { deliverMails, smtpEnvOf } from '../support/consoleMail.js';
import { loaded } from '../support/consolePage.js';
import { startTestServer, type TestServer } from '../support/server.js';
import { startSmtpPeer, type SmtpPeer } from '../support/smtpPeer.js';

const OWNER = 'layla.team@nile.example';
const TEAMMATE = 'dina.team@nile.example';
const TEAMMATE_PASSWORD = 'a long teammate passphrase';
const NEW_OWNER_PASSWORD = 'another long owner passphrase';

type Tab = { page: Page; watch: PageWatch };

describe('the console Team and Security screens, in Chromium', { timeout: 600_000 }, () => {
  let s: TestServer;
  let peer: SmtpPeer;
  let ownerBrowser: TestBrowser;
  let mateBrowser: TestBrowser;
  let owner: Tab;
  let mate: Tab;
  let mateSecret = '';

  before(async () => {
    ensureConsole();
    peer = await startSmtpPeer();
    // Many sign-ins from one address in this file: the throttles are tested in auth.test.ts.
    s = await startTestServer({
      ...CONSOLE_TEST_ENV,
      ...smtpEnvOf(peer),
      TAWQI_CONSOLE_SIGN_IN_IP_LIMIT: '1000',
      TAWQI_CONSOLE_SIGN_IN_EMAIL_LIMIT: '1000',
    });
    // Real time on the server's clock (cookies and the browser's own time agree); moved by hand below.
    s.clock.set(Date.now());
    const accountId = (await s.account({ name: 'Nile Trading' })).id;
    const u = await consoleUser(s, accountId, OWNER, 'owner');
    await updateConsoleUser(s.ctx.store.db, u.id, { name: 'Layla Hassan' });
    ownerBrowser = await launchBrowser();
    mateBrowser = await launchBrowser();
    await mateBrowser.context.grantPermissions(['clipboard-read', 'clipboard-write'], { origin: s.url });
    owner = await ownerBrowser.newPage();
    mate = await mateBrowser.newPage();
  });
  after(async () => {
    await ownerBrowser?.close();
    await mateBrowser?.close();
    await s?.close();
    await peer?.close();
  });

  /** What an authenticator app shows now for a base32 key, by the server's clock. */
  const appCode = (secret: string) => new TOTP({ secret: Secret.fromBase32(secret) }).generate({ timestamp: s.clock.nowMs() });

  async function visit(t: Tab, browser: TestBrowser, path: string, lang: 'ar' | 'en', ready: string) {
    await useConsoleLanguage(browser, s.url, lang);
    await t.page.goto(`${s.url}${path}`);
    await t.page.locator(ready).first().waitFor();
    await loaded(t.page);
  }

  async function check(page: Page, name: string, lang: 'ar' | 'en') {
    assert.equal(await page.evaluate('document.documentElement.dir'), lang === 'ar' ? 'rtl' : 'ltr');
    await assertAccessible(page, `${name} (${lang})`);
    await consoleScreenshot(page, `${name}-${lang}`);
  }

  /** The sign-in form by keyboard. */
  async function signIn(page: Page, email: string, password: string) {
    await page.goto(`${s.url}/console/sign-in`);
    await tabTo(page, page.locator('input[name=email]'));
    await page.keyboard.type(email);
    await page.keyboard.press('Tab');
    await page.keyboard.type(password);
    await page.keyboard.press('Enter');
  }

  const notice = (page: Page) => page.locator('.page-messages .notice');
  const noticeSays = (page: Page, text: string) => until(`the notice “${text}”`, async () => (await notice(page).textContent()) === text);
  const row = (page: Page, email: string) => page.locator(`tr[data-member="${email}"]`);

  test('the page’s copy of the role table and rule agrees with the server’s (domain/consoleRoles.ts)', () => {
    assert.deepEqual(ROLES, CONSOLE_ROLES);
    assert.deepEqual(ROLE_PERMISSIONS, SERVER_ROLE_PERMISSIONS);
    for (const actor of CONSOLE_ROLES)
      for (const target of CONSOLE_ROLES) {
        const permissions = SERVER_ROLE_PERMISSIONS[actor];
        for (const to of CONSOLE_ROLES) {
          const offered =
            manageBlock({ id: 'a', role: actor }, permissions, { id: 'b', role: target }) === null &&
            grantableRoles({ role: actor }).includes(to);
          assert.equal(offered, mayManage({ id: 'a', role: actor }, { id: 'b', role: target }, to), `${actor} → ${target} as ${to}`);
        }
        assert.notEqual(manageBlock({ id: 'a', role: actor }, permissions, { id: 'a', role: actor }), null, 'nobody manages themselves');
      }
  });

  test('the owner invites a teammate by keyboard; the invitation email carries the link', async () => {
    await signIn(owner.page, OWNER, TEST_PASSWORD);
    await owner.page.waitForURL(`${s.url}/console`);
    for (const lang of ['ar', 'en'] as const) {
      await visit(owner, ownerBrowser, '/console/team', lang, '.team-table');
      await check(owner.page, 'team-owner', lang);
    }
    const { page } = owner;
    // The owner's own row offers nothing, with the reason.
    assert.equal(
      await row(page, OWNER).locator('.member-actions').textContent(),
      'This is you: nobody changes their own role or removes themselves.',
    );
    await tabTo(page, page.getByLabel('Email address'));
    await page.keyboard.type(TEAMMATE);
    await page.keyboard.press('Tab');
    assert.ok(await isFocused(page.getByRole('radio', { name: 'Developer' })), 'the chosen role takes the focus in the group');
    await page.keyboard.press('ArrowUp');
    assert.equal(await page.getByRole('radio', { name: 'Administrator' }).isChecked(), true);
    await tabTo(page, page.getByRole('button', { name: 'Send the invitation' }));
    await page.keyboard.press('Enter');
    await noticeSays(page, `An invitation was sent to ${TEAMMATE}.`);
    await until('the invited row', async () => (await row(page, TEAMMATE).locator('.pill').first().textContent()) === 'Invited');
    assert.equal(await page.getByLabel('Email address').inputValue(), '');
    await check(page, 'team-invited', 'en');

    const [mail] = await deliverMails(s, peer, 1);
    assert.deepEqual(mail!.envelopeTo, [TEAMMATE]);
    inviteLink = linkOf(mail!.text ?? '');
    owner.watch.assertClean();
  });

  let inviteLink = '';
  /** The invitation link as the mail carries it (whatever way it carries its token). */
  const linkOf = (text: string) => {
    const m = /(https?:\/\/\S+\/console\/invite\S*)/.exec(text);
    assert.ok(m, `an invitation link in ${text}`);
    return m[1]!;
  };

  test('the teammate opens the link in a browser of their own, chooses a name and a password, and lands signed in', async () => {
    const { page } = mate;
    await useConsoleLanguage(mateBrowser, s.url, 'en');
    await page.goto(inviteLink);
    await page.getByLabel('Your name').fill('Dina Farouk');
    await page.getByLabel('New password').fill(TEAMMATE_PASSWORD);
    await page.getByLabel('Confirm the password').fill(TEAMMATE_PASSWORD);
    await page.keyboard.press('Enter');
    await page.waitForURL(`${s.url}/console`);
    await until('home', async () => (await page.locator('h1').textContent()) === 'Welcome, Dina Farouk');
    // An administrator: the owner's row and their own row offer nothing, each with its reason; no owner to invite.
    await visit(mate, mateBrowser, '/console/team', 'en', '.team-table');
    assert.equal(await row(page, OWNER).locator('.member-actions').textContent(), 'Only an owner can change or remove an owner.');
    assert.match((await row(page, TEAMMATE).locator('.member-actions').textContent())!, /^This is you/);
    assert.equal(await page.getByRole('radio', { name: 'Owner' }).count(), 0);
    assert.match((await page.locator('.team-invite').textContent())!, /Only an owner can make someone an owner\./);
    await check(page, 'team-admin', 'en');
  });

  /** Start enrolment on the Security screen; returns the key shown as text (the QR code checked as drawn). */
  async function startEnrolment(lang: 'ar' | 'en'): Promise<string> {
    const { page } = mate;
    await visit(mate, mateBrowser, '/console/security', lang, '.tf-body .step-title');
    await page.getByRole('button', { name: lang === 'ar' ? 'تفعيل التحقق بخطوتين' : 'Turn on two-step verification' }).click();
    const qr = page.locator('img.qr-code');
    await qr.waitFor();
    // Drawn: the SVG decoded as an image under the page's CSP (img-src data:), 200 px wide.
    await until('the QR code drawn', () =>
      qr.evaluate(
        (img) =>
          (img as unknown as { complete: boolean; naturalWidth: number }).complete &&
          (img as unknown as { naturalWidth: number }).naturalWidth > 0,
      ),
    );
    assert.ok(await isFocused(page.locator('.step-title')), 'the step’s heading takes the focus');
    const key = (await page.locator('.secret-text').textContent())!.replace(/\s/g, '');
    assert.match(key, /^[A-Z2-7]{32}$/);
    return key;
  }

  async function typeCode(page: Page, code: string) {
    await tabTo(page, page.locator('input[name=code]'));
    await page.keyboard.type(code);
    await page.keyboard.press('Enter');
    await page.locator('.recovery-codes').waitFor();
  }

  test('two-step verification: the QR step, the recovery codes shown once, turned off with the password (Arabic)', async () => {
    const { page } = mate;
    for (const lang of ['ar', 'en'] as const) {
      await visit(mate, mateBrowser, '/console/security', lang, '.tf-body .step-title');
      await check(page, 'security-off', lang);
    }
    const key = await startEnrolment('ar');
    await check(page, 'security-qr', 'ar');
    await typeCode(page, appCode(key));
    await check(page, 'security-codes', 'ar');
    await page.getByRole('button', { name: 'حفظتُها' }).click();
    await until('on', async () => (await page.locator('.tf-body .step-title').textContent()) === 'التحقق بخطوتين مفعّل');
    await check(page, 'security-on', 'ar');
    // Off again: a wrong password is refused on its field, in Arabic; the right one turns it off.
    mate.watch.expect(/status of 400/);
    await page.locator('.tf-body input[name=password]').fill('not my password at all');
    await page.getByRole('button', { name: 'إيقاف' }).click();
    await until(
      'the refusal on the field',
      async () => (await page.locator('input[name=password]').getAttribute('aria-invalid')) === 'true',
    );
    await page.locator('.tf-body input[name=password]').fill(TEAMMATE_PASSWORD);
    await page.getByRole('button', { name: 'إيقاف' }).click();
    await noticeSays(page, 'أُوقف التحقق بخطوتين.');
    await until('off', async () => (await page.locator('.tf-body .step-title').textContent()) === 'التحقق بخطوتين غير مفعّل');
    // The security notice the server sends when it is turned off.
    const [securityMail] = await deliverMails(s, peer, 1);
    assert.deepEqual(securityMail!.envelopeTo, [TEAMMATE]);
  });

  test('two-step verification in English: enrol, copy and download the recovery codes, sign out, sign in with the password and a code', async () => {
    const { page } = mate;
    const key = await startEnrolment('en');
    await check(page, 'security-qr', 'en');
    await typeCode(page, appCode(key));
    mateSecret = key;
    const codes = await page.locator('.recovery-codes li').allTextContents();
    assert.equal(codes.length, 10);
    await check(page, 'security-codes', 'en');
    await page.getByRole('button', { name: 'Copy the codes' }).click();
    await until('copied', async () => (await page.evaluate('navigator.clipboard.readText()')) === codes.join('\n'));
    const [download] = await Promise.all([
      page.waitForEvent('download'),
      page.getByRole('button', { name: 'Download as a text file' }).click(),
    ]);
    assert.equal(download.suggestedFilename(), 'tawqi-recovery-codes.txt');
    const saved = await readFile((await download.path())!, 'utf8');
    for (const c of codes) assert.ok(saved.includes(c), `${c} in the file`);
    await page.getByRole('button', { name: 'I have saved them' }).click();
    await until('on', async () => (await page.locator('.tf-body .step-title').textContent()) === 'Two-step verification is on');
    assert.match((await page.locator('.tf-body').textContent())!, /Recovery codes left: 10\./);
    await check(page, 'security-on', 'en');

    // Out through the user menu, then in again: the password, then a code of the next 30-second step.
    await page.locator('.user-button').click();
    await page.getByRole('button', { name: 'Sign out', exact: true }).click();
    await page.waitForURL(`${s.url}/console/sign-in`);
    await signIn(page, TEAMMATE, TEAMMATE_PASSWORD);
    await page.waitForURL(/\/console\/sign-in\/two-factor/);
    s.clock.advanceSeconds(30);
    await tabTo(page, page.locator('input[name=code]'));
    await page.keyboard.type(appCode(mateSecret));
    await page.keyboard.press('Enter');
    await page.waitForURL(`${s.url}/console`);
    await until('home', async () => (await page.locator('h1').textContent()) === 'Welcome, Dina Farouk');
    mate.watch.assertClean();
  });

  test('the owner changes the teammate’s role by keyboard; the teammate (a developer now) sees the team read-only and the API refuses a change', async () => {
    const { page } = owner;
    await visit(owner, ownerBrowser, '/console/team', 'en', '.team-table');
    const change = page.getByRole('button', { name: 'Change role of Dina Farouk' });
    await tabTo(page, change, { max: 40 });
    await page.keyboard.press('Enter');
    const dialog = page.getByRole('dialog', { name: 'The role of Dina Farouk' });
    await dialog.waitFor();
    assert.ok(await isFocused(dialog.getByRole('radio', { name: 'Administrator' })), 'the current role takes the focus');
    await check(page, 'team-role-dialog', 'en');
    await page.keyboard.press('ArrowDown');
    await page.keyboard.press('Tab');
    await page.keyboard.press('Tab');
    assert.ok(await isFocused(dialog.getByRole('button', { name: 'Save the role' })));
    await page.keyboard.press('Enter');
    await noticeSays(page, 'Dina Farouk is now Developer.');
    await until('the new role', async () => (await row(page, TEAMMATE).locator('td').first().textContent()) === 'Developer');

    // The developer: the list only, no invitation form, no actions column; the server refuses a write anyway.
    const mp = mate.page;
    for (const lang of ['ar', 'en'] as const) {
      await visit(mate, mateBrowser, '/console/team', lang, '.team-table');
      await check(mp, 'team-read-only', lang);
    }
    assert.equal(await mp.locator('.team-invite').count(), 0);
    assert.equal(await mp.locator('.member-actions').count(), 0);
    assert.equal(
      await mp
        .getByRole('button')
        .filter({ hasText: /Remove|Change role|Resend/ })
        .count(),
      0,
    );
    const refused = (await mp.evaluate(async () => {
      const session = (await (await fetch('/console/api/session')).json()) as { csrf_token: string };
      const r = await fetch('/console/api/users/invitations', {
        method: 'POST',
        headers: { 'content-type': 'application/json', 'x-csrf-token': session.csrf_token, 'accept-language': 'en' },
        body: JSON.stringify({ email: 'sneaky@nile.example', role: 'viewer' }),
      });
      return { status: r.status, body: await r.json() };
    })) as { status: number; body: { error: { code: string } } };
    assert.equal(refused.status, 403);
    assert.equal(refused.body.error.code, 'forbidden');
  });

  test('an invitation is resent (a new mail) and canceled after a confirm dialog; inviting a member again is refused in the page’s language', async () => {
    const { page } = owner;
    const sam = 'sam.team@nile.example';
    await visit(owner, ownerBrowser, '/console/team', 'en', '.team-table');
    await page.getByLabel('Email address').fill(sam);
    await page.getByRole('radio', { name: 'Viewer' }).check();
    await page.getByRole('button', { name: 'Send the invitation' }).click();
    await noticeSays(page, `An invitation was sent to ${sam}.`);
    await deliverMails(s, peer, 1);
    await page.getByRole('button', { name: `Resend the invitation to ${sam}` }).click();
    await noticeSays(page, `A new invitation was sent to ${sam}; the earlier link no longer works.`);
    const [again] = await deliverMails(s, peer, 1);
    assert.deepEqual(again!.envelopeTo, [sam]);

    await page.getByRole('button', { name: `Cancel the invitation of ${sam}` }).click();
    const dialog = page.getByRole('dialog', { name: `Cancel the invitation of ${sam}?` });
    await dialog.waitFor();
    await check(page, 'team-cancel-invite', 'en');
    await dialog.getByRole('button', { name: 'Cancel the invitation' }).click();
    await noticeSays(page, `The invitation of ${sam} was canceled.`);
    await until('the row gone', async () => (await row(page, sam).count()) === 0);

    // An address that already belongs to a member: the API's refusal on the field, in Arabic.
    owner.watch.expect(/status of 409/);
    await visit(owner, ownerBrowser, '/console/team', 'ar', '.team-table');
    await page.locator('.team-invite input[name=email]').fill(TEAMMATE);
    await page.locator('.team-invite button[type=submit]').click();
    await until('the refusal', async () => (await page.locator('.team-invite input[name=email]').getAttribute('aria-invalid')) === 'true');
    const message = await page.locator('.team-invite .field-message').first().textContent();
    assert.match(message!, /[\u0600-\u06FF]/, `an Arabic message: ${message}`);
    await check(page, 'team-invite-refused', 'ar');
  });

  test('the owner removes the teammate after a dialog naming them; the teammate’s session stops working', async () => {
    const { page } = owner;
    await visit(owner, ownerBrowser, '/console/team', 'ar', '.team-table');
    await page.getByRole('button', { name: 'إزالة Dina Farouk' }).click();
    const arDialog = page.getByRole('dialog', { name: 'أتريد إزالة Dina Farouk من الفريق؟' });
    await arDialog.waitFor();
    await check(page, 'team-remove-dialog', 'ar');
    await page.keyboard.press('Escape');
    await until('closed', async () => (await arDialog.count()) === 0);

    await visit(owner, ownerBrowser, '/console/team', 'en', '.team-table');
    const remove = page.getByRole('button', { name: 'Remove Dina Farouk' });
    await remove.click();
    const dialog = page.getByRole('dialog', { name: 'Remove Dina Farouk from the team?' });
    assert.match(
      (await dialog.textContent())!,
      new RegExp(`Dina Farouk \\(${TEAMMATE.replace(/\./g, '\\.')}\\) will be signed out at once`),
    );
    assert.ok(await isFocused(dialog.getByRole('button', { name: 'Keep the member' })), 'the safe answer has the focus');
    await check(page, 'team-remove-dialog', 'en');
    await dialog.getByRole('button', { name: 'Remove' }).click();
    await noticeSays(page, 'Dina Farouk was removed from the team.');
    await until('the row gone', async () => (await row(page, TEAMMATE).count()) === 0);

    // The teammate's open page: the next call finds no session, and the console goes to sign-in.
    const mp = mate.page;
    const status = await mp.evaluate(async () => (await fetch('/console/api/session')).status);
    assert.equal(status, 401);
    mate.watch.expect(/401/);
    await mp.goto(`${s.url}/console/team`);
    await mp.waitForURL(/\/console\/sign-in\?next=/);
    owner.watch.assertClean();
  });

  test('the password change: refusals on their fields, then changed, and the other sessions end', async () => {
    const { page } = owner;
    const elsewhere = new ConsoleClient(s.url);
    assert.equal((await elsewhere.signIn(OWNER, TEST_PASSWORD)).status, 200);
    await visit(owner, ownerBrowser, '/console/security', 'en', '.tf-body .step-title');
    const form = page.locator('#sec-password').locator('xpath=..').locator('form');
    await form.getByLabel('Current password').fill('not the password');
    await form.getByLabel('New password').fill(NEW_OWNER_PASSWORD);
    await form.getByLabel('Confirm the password').fill(NEW_OWNER_PASSWORD);
    await form.getByRole('button', { name: 'Change the password' }).click();
    await until(
      'refused on the current password',
      async () => (await form.locator('input[name=current_password]').getAttribute('aria-invalid')) === 'true',
    );
    assert.ok(await isFocused(form.locator('input[name=current_password]')));
    await check(page, 'security-password-refused', 'en');
    const withEmail = `${OWNER} is mine`;
    await form.getByLabel('Current password').fill(TEST_PASSWORD);
    await form.getByLabel('New password').fill(withEmail);
    await form.getByLabel('Confirm the password').fill(withEmail);
    await form.getByRole('button', { name: 'Change the password' }).click();
    await until(
      'refused on the new password',
      async () => (await form.locator('input[name=new_password]').getAttribute('aria-invalid')) === 'true',
    );
    assert.equal(await form.locator('.field-message.is-error').textContent(), 'The password must not contain your email address.');
    await form.getByLabel('New password').fill(NEW_OWNER_PASSWORD);
    await form.getByLabel('Confirm the password').fill(NEW_OWNER_PASSWORD);
    await form.getByRole('button', { name: 'Change the password' }).click();
    await noticeSays(page, 'Your password was changed. Your other sessions were signed out.');
    assert.equal((await elsewhere.call('GET', '/session')).status, 401, 'the other session ended');
    assert.equal((await page.evaluate(async () => (await fetch('/console/api/session')).status)) as number, 200, 'this one goes on');
  });

  test('sign out everywhere: a confirm dialog, then every session ends and the sign-in screen says so', async () => {
    const { page } = owner;
    const elsewhere = new ConsoleClient(s.url);
    assert.equal((await elsewhere.signIn(OWNER, NEW_OWNER_PASSWORD)).status, 200);
    await visit(owner, ownerBrowser, '/console/security', 'ar', '.tf-body .step-title');
    await page.getByRole('button', { name: 'تسجيل الخروج من كل الأجهزة' }).click();
    await page.getByRole('dialog', { name: 'أتريد تسجيل الخروج من كل الأجهزة؟' }).waitFor();
    await check(page, 'security-everywhere-dialog', 'ar');
    await page.keyboard.press('Escape');
    await visit(owner, ownerBrowser, '/console/security', 'en', '.tf-body .step-title');
    const button = page.getByRole('button', { name: 'Sign out everywhere' });
    await tabTo(page, button, { max: 60 });
    await page.keyboard.press('Enter');
    const dialog = page.getByRole('dialog', { name: 'Sign out of every device?' });
    await dialog.waitFor();
    await dialog.getByRole('button', { name: 'Sign out everywhere' }).click();
    await page.waitForURL(`${s.url}/console/sign-in`);
    await until('the flash', async () => (await page.locator('.flash').textContent()) === 'You were signed out on every device.');
    await check(page, 'security-signed-out-everywhere', 'en');
    assert.equal((await elsewhere.call('GET', '/session')).status, 401);
    assert.equal((await page.evaluate(async () => (await fetch('/console/api/session')).status)) as number, 401);
  });
});
