/**
 * The console's texts: Arabic (the default, right to left) and English, in the data files
 * i18n/ar.json and i18n/en.json (same keys; a test checks them). The chosen language is kept in a
 * cookie the server reads too, so the shell arrives with the right `lang` and `dir`.
 */
import ar from './i18n/ar.json' with { type: 'json' };
import en from './i18n/en.json' with { type: 'json' };

export type Language = 'ar' | 'en';
export type Key = keyof typeof en;

const TABLES: Record<Language, Record<Key, string>> = { ar, en };

/** The cookie the page host reads (server/src/http/console/page.ts); a year, the console's path only. */
export const LANGUAGE_COOKIE = 'tawqi_console_lang';

export interface Strings {
  readonly lang: Language;
  readonly dir: 'rtl' | 'ltr';
  /** The text of `key`, its `{name}` placeholders filled. */
  t(key: Key, vars?: Record<string, string | number>): string;
}

export function strings(lang: Language): Strings {
  const table = TABLES[lang];
  return {
    lang,
    dir: lang === 'ar' ? 'rtl' : 'ltr',
    t: (key, vars = {}) => table[key].replace(/\{(\w+)\}/g, (whole, name: string) => (name in vars ? String(vars[name]) : whole)),
  };
}

/** The language the server wrote into the shell (from the cookie; Arabic without one). */
export function shellLanguage(doc: Document): Language {
  return doc.documentElement.lang.toLowerCase().startsWith('en') ? 'en' : 'ar';
}

/** Keep the choice for the next visit. */
export function rememberLanguage(lang: Language): void {
  const secure = location.protocol === 'https:' ? '; Secure' : '';
  document.cookie = `${LANGUAGE_COOKIE}=${lang}; Path=/console; Max-Age=31536000; SameSite=Lax${secure}`;
}
