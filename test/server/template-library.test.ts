/**
 * The template library's data files (server/src/domain/templateLibrary/): every file validates, every
 * contract exists in Arabic and English with the same fields, and an invalid file is refused with a
 * message naming it. (The library as the API serves it: templates.test.ts.)
 */
import assert from 'node:assert/strict';
import { mkdtempSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { after, describe, test } from 'node:test';
import { pathToFileURL } from 'node:url';
import {
  LIBRARY_DIR,
  LIBRARY_LANGUAGES,
  LIBRARY_TEMPLATE_KEYS,
  loadLibraryTemplate,
  TEMPLATE_LIBRARY,
} from '../../server/src/domain/templateLibrary.js';

describe('template library files', () => {
  test('the folder holds exactly one file per contract and language', () => {
    const files = readdirSync(LIBRARY_DIR).sort();
    const expected = LIBRARY_TEMPLATE_KEYS.flatMap((key) => LIBRARY_LANGUAGES.map((language) => `${key}.${language}.json`)).sort();
    assert.deepEqual(files, expected);
  });

  test('every file validates, and both languages of a contract define the same fields', () => {
    for (const key of LIBRARY_TEMPLATE_KEYS) {
      const [ar, en] = LIBRARY_LANGUAGES.map((language) => loadLibraryTemplate(key, language));
      assert.equal(ar!.id, `tpl_${key}_ar`);
      assert.equal(en!.id, `tpl_${key}_en`);
      assert.match(ar!.body, /[\u0600-\u06FF]/, `${key}.ar.json is in Arabic`);
      assert.doesNotMatch(en!.body, /[\u0600-\u06FF]/, `${key}.en.json is in English`);
      const shape = (t: typeof ar) => t!.fields.map((f) => [f.key, f.type, f.required]);
      assert.deepEqual(shape(ar), shape(en), `${key}: same fields in Arabic and English`);
    }
    assert.deepEqual(
      TEMPLATE_LIBRARY.map((t) => t.id),
      LIBRARY_TEMPLATE_KEYS.flatMap((key) => LIBRARY_LANGUAGES.map((language) => `tpl_${key}_${language}`)),
    );
  });

  describe('an invalid file is refused with its path', () => {
    const dir = mkdtempSync(path.join(tmpdir(), 'tawqi-library-'));
    after(() => rmSync(dir, { recursive: true, force: true }));
    const good = {
      title: 'Loan',
      language: 'en',
      fields: [{ key: 'amount', label: 'Amount', type: 'number', required: true }],
      body: ['LOAN', '', 'Amount: {{amount}}'],
    };
    const refused = (name: string, content: unknown, reason: RegExp) => {
      writeFileSync(path.join(dir, `${name}.en.json`), typeof content === 'string' ? content : JSON.stringify(content));
      assert.throws(
        () => loadLibraryTemplate(name, 'en', pathToFileURL(dir + path.sep)),
        (err: Error) => err.message.includes(path.join(dir, `${name}.en.json`)) && reason.test(err.message),
      );
    };

    test('a valid file loads, its lines joined into the body', () => {
      writeFileSync(path.join(dir, 'loan.en.json'), JSON.stringify(good));
      assert.deepEqual(loadLibraryTemplate('loan', 'en', pathToFileURL(dir + path.sep)), {
        id: 'tpl_loan_en',
        title: 'Loan',
        language: 'en',
        body: 'LOAN\n\nAmount: {{amount}}',
        fields: good.fields,
      });
    });

    test('not JSON, unknown or missing properties, a body as one string', () => {
      refused('broken', '{ "title": ', /JSON/);
      refused('extra', { ...good, notes: 'x' }, /notes/);
      refused('untitled', { ...good, title: undefined }, /title/);
      refused('string-body', { ...good, body: 'LOAN {{amount}}' }, /body/);
      refused('bad-type', { ...good, fields: [{ ...good.fields[0], type: 'money' }] }, /fields/);
    });

    test('a language other than the file name says, placeholders without fields, unused fields', () => {
      refused('arabic', { ...good, language: 'ar' }, /language/);
      refused('placeholder', { ...good, body: ['{{amount}} {{rate}}'] }, /\{\{rate\}\}/);
      refused('unused', { ...good, body: ['LOAN'] }, /amount/);
    });

    test('a missing file', () => {
      assert.throws(
        () => loadLibraryTemplate('absent', 'ar', pathToFileURL(dir + path.sep)),
        (err: Error) => err.message.includes(path.join(dir, 'absent.ar.json')),
      );
    });
  });
});
