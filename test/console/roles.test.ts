/** The README's console permission table is the data of domain/consoleRoles.ts, and the admin rule holds. */
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { test } from 'node:test';
import { fileURLToPath } from 'node:url';
import { CONSOLE_PERMISSIONS, CONSOLE_ROLES, mayManage, PERMISSION_SCOPE, ROLE_PERMISSIONS } from '../../server/src/domain/consoleRoles.js';

const README = readFileSync(fileURLToPath(new URL('../../README.md', import.meta.url)), 'utf8');

test('the README permission table says what ROLE_PERMISSIONS says, row by row', () => {
  const header = `| permission | ${CONSOLE_ROLES.join(' | ')} |`;
  const start = README.indexOf(header);
  assert.ok(start >= 0, `the README has the table header ${header}`);
  const lines = README.slice(start).split('\n').slice(2);
  const rows = lines.slice(
    0,
    lines.findIndex((l) => !l.startsWith('|')),
  );
  const table = new Map(
    rows.map((row) => {
      const cells = row
        .split('|')
        .slice(1, -1)
        .map((c) => c.trim());
      return [cells[0]!, cells.slice(1)];
    }),
  );
  assert.equal(table.size, CONSOLE_PERMISSIONS.length);
  for (const p of CONSOLE_PERMISSIONS) {
    const cells = table.get(`\`${p}\` — ${PERMISSION_SCOPE[p]}`);
    assert.ok(cells, `a row for ${p}: "\`${p}\` — ${PERMISSION_SCOPE[p]}"`);
    assert.deepEqual(
      cells,
      CONSOLE_ROLES.map((role) => (ROLE_PERMISSIONS[role].includes(p) ? '✓' : '–')),
      p,
    );
  }
});

test('users.manage: an admin neither touches an owner nor makes one; nobody changes their own role; a developer manages no one', () => {
  const owner = { id: 'usr_o', role: 'owner' };
  const admin = { id: 'usr_a', role: 'admin' };
  const dev = { id: 'usr_d', role: 'developer' };
  assert.equal(mayManage(owner, admin, 'owner'), true);
  assert.equal(mayManage(admin, dev, 'admin'), true);
  assert.equal(mayManage(admin, dev, 'owner'), false);
  assert.equal(mayManage(admin, owner, 'viewer'), false);
  assert.equal(mayManage(admin, owner, null), false);
  assert.equal(mayManage(owner, owner, 'admin'), false);
  assert.equal(mayManage(dev, { id: 'usr_v', role: 'viewer' }, null), false);
});
