/**
 * Account branding (spec 2.9): the WCAG contrast rule for the sign button (white text, AA 4.5:1),
 * the schema's limits, the plan rules (Business and above; the custom domain needs its plan even for
 * test keys), and `tawqi account branding` run as a real process on a real server's data directory.
 * That branding reaches the emails is tested in email.test.ts.
 */
import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { after, before, describe, test } from 'node:test';
import { fileURLToPath } from 'node:url';
import {
  brandingOf,
  brandingPlanProblem,
  brandingSchema,
  contrastRatio,
  relativeLuminance,
  whiteTextReadable,
} from '../../server/src/domain/branding.js';
import { getAccount } from '../../server/src/store/accounts.js';
import { startTestServer, type TestServer } from '../support/server.js';

const ROOT = fileURLToPath(new URL('../..', import.meta.url));
// eslint-disable-next-line @typescript-eslint/no-explicit-any
type Json = any;

describe('contrast of white text on the button colour (WCAG 2.x)', () => {
  test('known pairs', () => {
    assert.equal(contrastRatio('#ffffff', '#767676').toFixed(2), '4.54');
    assert.equal(contrastRatio('#ffffff', '#777777').toFixed(2), '4.48');
    assert.equal(contrastRatio('#ffffff', '#000000'), 21);
    assert.equal(contrastRatio('#000000', '#ffffff'), 21, 'order does not matter');
    assert.equal(contrastRatio('#ffffff', '#ffffff'), 1);
    assert.equal(relativeLuminance('#ffffff'), 1);
    assert.equal(relativeLuminance('#000000'), 0);
    // Pure primaries, from the WCAG luminance coefficients.
    assert.equal(relativeLuminance('#ff0000').toFixed(4), '0.2126');
    assert.equal(relativeLuminance('#00ff00').toFixed(4), '0.7152');
    assert.equal(relativeLuminance('#0000ff').toFixed(4), '0.0722');
    assert.equal(contrastRatio('#ffffff', '#0000ff').toFixed(2), '8.59');
  });

  test('AA for normal text: 4.5:1, unrounded', () => {
    assert.equal(whiteTextReadable('#767676'), true);
    assert.equal(whiteTextReadable('#777777'), false, '4.48 is not rounded up to 4.5');
    assert.equal(whiteTextReadable('#000000'), true);
    assert.equal(whiteTextReadable('#FFD700'), false, 'gold is too light');
    assert.equal(whiteTextReadable('#1d4ed8'), true);
  });
});

describe('branding schema', () => {
  const issues = (input: unknown) => {
    const r = brandingSchema.safeParse(input);
    return r.success ? [] : r.error.issues.map((i) => `${i.path.join('.')}: ${i.message}`);
  };

  test('accepts a full branding and normalises it', () => {
    const parsed = brandingSchema.parse({
      brand_name: '  Acme Legal ',
      logo_url: 'https://acme.example/logo.png',
      brand_color: '#0A7D3B',
      sign_button_color: '#767676',
      custom_domain: 'Sign.Acme.Example',
      from_email: 'Contracts@Acme.Example',
      hide_powered: true,
      sign_welcome_ar: 'أهلًا بك. <b>وقّع</b> هنا.',
      sign_welcome_en: 'Welcome.\nSign below.',
    });
    assert.deepEqual(parsed, {
      brand_name: 'Acme Legal',
      logo_url: 'https://acme.example/logo.png',
      brand_color: '#0a7d3b',
      sign_button_color: '#767676',
      custom_domain: 'sign.acme.example',
      from_email: 'contracts@acme.example',
      hide_powered: true,
      sign_welcome_ar: 'أهلًا بك. <b>وقّع</b> هنا.',
      sign_welcome_en: 'Welcome.\nSign below.',
    });
  });

  test('limits: welcome text up to 240 characters, brand name up to 100, https logo, #rrggbb, host name, address', () => {
    assert.deepEqual(issues({ sign_welcome_ar: 'ب'.repeat(240), sign_welcome_en: 'w'.repeat(240) }), []);
    assert.deepEqual(issues({ sign_welcome_ar: 'ب'.repeat(241) }), ['sign_welcome_ar: must be at most 240 characters']);
    assert.deepEqual(issues({ sign_welcome_en: 'w'.repeat(241) }), ['sign_welcome_en: must be at most 240 characters']);
    assert.deepEqual(issues({ sign_welcome_en: '😀'.repeat(240) }), [], 'characters, not UTF-16 units');
    assert.deepEqual(issues({ brand_name: 'n'.repeat(101) }), ['brand_name: must be at most 100 characters']);
    assert.equal(issues({ brand_name: 'two\nlines' }).length, 1);
    assert.equal(issues({ brand_name: 'evil\u202eoverride' }).length, 1);
    assert.equal(issues({ logo_url: 'http://acme.example/logo.png' }).length, 1);
    assert.equal(issues({ logo_url: 'javascript:alert(1)' }).length, 1);
    assert.equal(issues({ brand_color: 'red' }).length, 1);
    assert.equal(issues({ brand_color: '#fff' }).length, 1);
    assert.equal(issues({ custom_domain: 'https://sign.acme.example' }).length, 1);
    assert.equal(issues({ from_email: 'not an address' }).length, 1);
    assert.equal(issues({ hide_powered: 'yes' }).length, 1);
    assert.equal(issues({ colour: '#000000' }).length, 1, 'no unknown fields');
  });

  test('a light button colour is refused with its ratio', () => {
    assert.deepEqual(issues({ sign_button_color: '#777777' }), [
      'sign_button_color: is too light: white text on #777777 has a contrast ratio of 4.48:1; WCAG AA needs at least 4.5:1 (choose a darker colour)',
    ]);
    assert.deepEqual(issues({ sign_button_color: '#767676' }), []);
  });

  test('stored branding is read field by field: an invalid field is left out', () => {
    assert.deepEqual(
      brandingOf({
        brand_name: 'Acme',
        brand_color: 'red',
        sign_button_color: '#eeeeee',
        logo_url: 'http://x',
        hide_powered: true,
        extra: 1,
      }),
      { brand_name: 'Acme', hide_powered: true },
    );
    assert.deepEqual(brandingOf(null), {});
    assert.deepEqual(brandingOf('x'), {});
  });

  test('plans: Business and above; the custom domain needs Business even for test keys', () => {
    assert.match(
      brandingPlanProblem({ custom_domain: 'sign.acme.example' }, 'starter')!,
      /custom domain needs the business plan or above \(the account is on starter\)/,
    );
    assert.match(brandingPlanProblem({ brand_name: 'Acme' }, 'starter')!, /Branding needs the business plan/);
    assert.match(brandingPlanProblem({ brand_name: 'Acme' }, 'none')!, /Branding needs the business plan/);
    assert.equal(brandingPlanProblem({ custom_domain: 'sign.acme.example', brand_name: 'Acme' }, 'business'), null);
    assert.equal(brandingPlanProblem({ custom_domain: 'sign.acme.example' }, 'enterprise'), null);
    assert.equal(brandingPlanProblem({}, 'starter'), null, 'nothing set, nothing refused');
  });
});

describe('tawqi account branding', () => {
  let s: TestServer;
  before(async () => {
    s = await startTestServer();
  });
  after(() => s.close());

  function cli(...args: string[]): Promise<{ code: number; stdout: string; stderr: string }> {
    const env: NodeJS.ProcessEnv = { ...process.env, DATA_DIR: s.dataDir };
    delete env.NODE_TEST_CONTEXT;
    return new Promise((resolve) => {
      execFile(
        process.execPath,
        ['--conditions=tawqi-source', '--import', 'tsx', 'server/src/cli/main.ts', ...args],
        { cwd: ROOT, env, encoding: 'utf8' },
        (err, stdout, stderr) => {
          resolve({ code: err ? (typeof err.code === 'number' ? err.code : -1) : 0, stdout, stderr });
        },
      );
    });
  }

  async function cliJson(...args: string[]): Promise<Json> {
    const r = await cli(...args, '--json');
    assert.equal(r.code, 0, r.stderr);
    assert.equal(r.stderr, '');
    return JSON.parse(r.stdout);
  }

  async function refused(args: string[], ...patterns: RegExp[]): Promise<void> {
    const r = await cli(...args);
    assert.equal(r.code, 1, `expected exit 1; stdout: ${r.stdout}`);
    assert.equal(r.stdout, '');
    for (const p of patterns) assert.match(r.stderr, p);
  }

  const stored = async (id: string) => (await getAccount(s.ctx.store.db, id))!.branding;

  test('sets, shows, removes one field with "none", and clears', async () => {
    const { id } = await s.account();
    const set = await cliJson(
      'account',
      'branding',
      id,
      '--brand-name',
      'Acme Legal',
      '--logo-url',
      'https://acme.example/logo.png',
      '--brand-color',
      '#0A7D3B',
      '--button-color',
      '#767676',
      '--custom-domain',
      'sign.acme.example',
      '--from-email',
      'contracts@acme.example',
      '--hide-powered',
      'on',
      '--welcome-ar',
      'أهلًا بك',
      '--welcome-en',
      'Welcome <b>friend</b>',
    );
    const expected = {
      brand_name: 'Acme Legal',
      logo_url: 'https://acme.example/logo.png',
      brand_color: '#0a7d3b',
      sign_button_color: '#767676',
      custom_domain: 'sign.acme.example',
      from_email: 'contracts@acme.example',
      hide_powered: true,
      sign_welcome_ar: 'أهلًا بك',
      sign_welcome_en: 'Welcome <b>friend</b>',
    };
    assert.deepEqual(set, { account: id, branding: expected });
    assert.deepEqual(await stored(id), expected);

    const shown = await cli('account', 'branding', id);
    assert.equal(shown.code, 0, shown.stderr);
    assert.match(shown.stdout, /button colour\s+#767676 \(white text 4\.54:1\)/);
    assert.match(shown.stdout, /"Powered by"\s+hidden/);

    const removed = await cliJson('account', 'branding', id, '--logo-url', 'none', '--hide-powered', 'off');
    assert.equal(removed.branding.logo_url, undefined);
    assert.equal(removed.branding.hide_powered, false);
    assert.equal(removed.branding.brand_name, 'Acme Legal', 'other fields kept');

    const cleared = await cliJson('account', 'branding', id, '--clear', '--brand-name', 'Fresh');
    assert.deepEqual(cleared.branding, { brand_name: 'Fresh' });
    assert.deepEqual(await stored(id), { brand_name: 'Fresh' });
  });

  test('a light button colour is refused with exit 1 and a clear message; nothing is stored', async () => {
    const { id } = await s.account();
    await refused(
      ['account', 'branding', id, '--button-color', '#eeeeee'],
      /--button-color is too light/,
      /contrast ratio of 1\.1\d:1/,
      /WCAG AA needs at least 4\.5:1/,
    );
    await refused(
      ['account', 'branding', id, '--button-color', '#777777', '--brand-name', 'Acme'],
      /--button-color is too light: white text on #777777/,
    );
    assert.deepEqual(await stored(id), {});
    await cliJson('account', 'branding', id, '--button-color', '#767676');
    assert.deepEqual(await stored(id), { sign_button_color: '#767676' });
  });

  test('other limits name their option', async () => {
    const { id } = await s.account();
    await refused(['account', 'branding', id, '--welcome-en', 'w'.repeat(241)], /--welcome-en must be at most 240 characters/);
    await refused(['account', 'branding', id, '--logo-url', 'http://acme.example/logo.png'], /--logo-url must be an https URL/);
    await refused(['account', 'branding', id, '--brand-color', 'green'], /--brand-color must be a colour in the form #rrggbb/);
    await refused(['account', 'branding', id, '--hide-powered', 'maybe'], /--hide-powered/);
    await refused(['account', 'branding', 'acct_missing', '--brand-name', 'X'], /No account acct_missing/);
    assert.deepEqual(await stored(id), {});
  });

  test('plans: the custom domain is refused on starter; branding below Business is refused', async () => {
    const { id } = await s.account({ plan: 'starter' });
    await refused(
      ['account', 'branding', id, '--custom-domain', 'sign.acme.example'],
      /custom domain needs the business plan or above \(the account is on starter\)/,
    );
    await refused(['account', 'branding', id, '--brand-name', 'Acme'], /Branding needs the business plan or above/);
    assert.deepEqual(await stored(id), {});
    const cleared = await cliJson('account', 'branding', id, '--clear');
    assert.deepEqual(cleared.branding, {}, 'clearing is always allowed');
    const business = await s.account({ plan: 'business' });
    await cliJson('account', 'branding', business.id, '--custom-domain', 'sign.acme.example');
  });
});
