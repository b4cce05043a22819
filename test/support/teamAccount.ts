import assert from 'node:assert/strict';
import { updateAccount } from '../../server/src/store/accounts.js';
import type { TestServer } from './server.js';

/** An account whose owner and team members may receive test invitations, with one custom template. */
export interface TeamAccount {
  id: string;
  keys: Awaited<ReturnType<TestServer['account']>>['keys'];
  owner: string;
  /** The owner first, then the members. */
  team: string[];
  templateId: string;
}

let serial = 0;

export async function teamAccount(
  s: TestServer,
  template: Record<string, unknown>,
  options: { members?: number; overrides?: Parameters<TestServer['account']>[0] } = {},
): Promise<TeamAccount> {
  const n = ++serial;
  const owner = `owner${n}@acme.test`;
  const acct = await s.account({ ownerEmail: owner, ...options.overrides });
  const team = [owner, ...Array.from({ length: options.members ?? 4 }, (_, i) => `member${i + 1}.${n}@acme.test`)];
  await updateAccount(s.ctx.store.db, acct.id, { team_emails: team });
  const tpl = await s.call('POST', '/templates', { key: acct.keys.secret_test, body: template });
  assert.equal(tpl.status, 201, tpl.text);
  return { ...acct, owner, team, templateId: tpl.body.id };
}
