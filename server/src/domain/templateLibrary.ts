/**
 * The library of ready-made contract templates that ships with Tawqi: five short-form contracts
 * (mutual NDA, employment offer letter, service agreement, residential lease, sale of goods), each
 * in Arabic and in English. The contract text is data: one JSON file per contract and language in
 * templateLibrary/ beside this module (<key>.<language>.json), copied to dist by the build (the
 * server tsconfig includes the JSON files under src). A file is a POST /templates body (title,
 * language, fields) whose body is written as an array of lines, so a clause is edited and diffed on
 * its own line.
 *
 * Reading these shipped files, once when the module loads, is the only file access in domain/: it
 * stands in for a static import (JSON import attributes need Node 20.10; the engines field allows 20.9).
 * Each file is checked with the template schema and templateProblem (every placeholder has exactly one
 * field definition, every field is used); an invalid or missing file stops the process with its path.
 */
import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { z } from 'zod';
import { templateCreateSchema, templateProblem, type TemplateFieldDefinition } from './templates.js';

export interface LibraryTemplate {
  /** Fixed id, tpl_<key>_<language>. */
  id: string;
  /** Title in the template's language. */
  title: string;
  language: 'ar' | 'en';
  /** Plain-text contract: paragraphs separated by blank lines, numbered clauses, {{key}} placeholders. */
  body: string;
  /** Field definitions, labels in the template's language. */
  fields: TemplateFieldDefinition[];
}

/** The contracts in library order; each has a file per language (Arabic first). */
export const LIBRARY_TEMPLATE_KEYS = ['nda', 'employment_offer', 'service_agreement', 'lease', 'sale'] as const;
export const LIBRARY_LANGUAGES = ['ar', 'en'] as const;

/** The folder of the library files, beside this module in src/ and in dist/. */
export const LIBRARY_DIR = new URL('./templateLibrary/', import.meta.url);

/** A library file: the template schema, with the body as its lines. */
const libraryFileSchema = templateCreateSchema.extend({
  body: z
    .array(z.string())
    .transform((lines) => lines.join('\n'))
    .pipe(templateCreateSchema.shape.body),
});

/** Read and check one library file; the error names the file and what is wrong with it. */
export function loadLibraryTemplate(key: string, language: 'ar' | 'en', dir: URL = LIBRARY_DIR): LibraryTemplate {
  const url = new URL(`${key}.${language}.json`, dir);
  const invalid = (why: string) => new Error(`Template library file ${fileURLToPath(url)} is invalid: ${why}`);
  let raw: unknown;
  try {
    raw = JSON.parse(readFileSync(url, 'utf8'));
  } catch (err) {
    throw invalid(err instanceof Error ? err.message : String(err));
  }
  const parsed = libraryFileSchema.safeParse(raw);
  if (!parsed.success) throw invalid(z.prettifyError(parsed.error));
  const { title, body, fields } = parsed.data;
  if (parsed.data.language !== language) throw invalid(`language is "${parsed.data.language}" but the file name says "${language}"`);
  const problem = templateProblem({ body, fields });
  if (problem) throw invalid(`${problem.param}: ${problem.en}`);
  return { id: `tpl_${key}_${language}`, title, language, body, fields };
}

/** The shipped library, Arabic first within each contract. */
export const TEMPLATE_LIBRARY: readonly LibraryTemplate[] = LIBRARY_TEMPLATE_KEYS.flatMap((key) =>
  LIBRARY_LANGUAGES.map((language) => loadLibraryTemplate(key, language)),
);
