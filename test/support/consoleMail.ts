/**
 * The console's emails in tests: a server wired to a real SMTP peer (test/support/smtpPeer.ts),
 * the outbox run on demand, and the one-time link of a team invitation or password reset read
 * out of the mail as it arrived.
 */
import assert from 'node:assert/strict';
import type { CapturedMail, SmtpPeer } from './smtpPeer.js';
import type { TestServer } from './server.js';

export const CONSOLE_FROM = 'Tawqi <no-reply@tawqi.test>';

/** SMTP settings for a test server that sends through `peer` (plain, no AUTH: the relay itself is tested in email.test.ts). */
export function smtpEnvOf(peer: SmtpPeer): Record<string, string> {
  return { TAWQI_SMTP_HOST: '127.0.0.1', TAWQI_SMTP_PORT: String(peer.port), TAWQI_SMTP_FROM: CONSOLE_FROM };
}

/** Run the outbox and return the mails that arrived meanwhile (exactly `expected` more). */
export async function deliverMails(s: TestServer, peer: SmtpPeer, expected: number): Promise<CapturedMail[]> {
  const before = peer.mails.length;
  await s.jobs.runDue();
  if (expected > 0) await peer.waitFor(before + expected);
  const arrived = peer.mails.slice(before);
  assert.equal(arrived.length, expected, `mails: ${arrived.map((m) => `${m.envelopeTo.join(',')} ${m.subject}`).join('; ')}`);
  return arrived;
}

/** The token of the console link (`/console/invite` or `/console/reset`) a mail carries, the same in both parts. */
export function linkTokenOf(mail: CapturedMail, page: 'invite' | 'reset'): string {
  // In the fragment: a browser never sends it, so the token reaches no server or proxy log.
  const re = new RegExp(`/console/${page}#token=([0-9A-Za-z]+)`);
  const inText = re.exec(mail.text ?? '');
  assert.ok(inText, `a /console/${page} link in the text part: ${mail.text}`);
  assert.ok(mail.html?.includes(`/console/${page}#token=${inText[1]}`), 'the same link in the HTML part');
  return inText[1]!;
}
