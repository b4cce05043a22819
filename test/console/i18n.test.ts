/** The console's texts (console/src/i18n/*.json): the same keys in Arabic and English, the same placeholders, none empty. */
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { describe, test } from 'node:test';

const table = (lang: string): Record<string, string> =>
  JSON.parse(readFileSync(new URL(`../../console/src/i18n/${lang}.json`, import.meta.url), 'utf8'));
const placeholders = (text: string) => [...text.matchAll(/\{(\w+)\}/g)].map((m) => m[1]).sort();

describe('console texts', () => {
  const ar = table('ar');
  const en = table('en');

  test('Arabic and English have the same keys', () => {
    assert.deepEqual(Object.keys(ar).sort(), Object.keys(en).sort());
  });

  test('each text has the same placeholders in both languages, and none is empty', () => {
    for (const key of Object.keys(en)) {
      assert.deepEqual(placeholders(ar[key]!), placeholders(en[key]!), key);
      assert.ok(ar[key]!.trim() && en[key]!.trim(), key);
    }
  });

  test('the Arabic texts are Arabic (but for names kept in Latin letters)', () => {
    const latinOnly = Object.entries(ar).filter(([, text]) => !/[\u0600-\u06FF]/.test(text));
    assert.deepEqual(
      latinOnly.map(([key]) => key),
      ['otherLanguage', 'navWebhooks'],
    );
  });
});
