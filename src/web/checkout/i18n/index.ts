import { ar } from './ar.ts';
import { de } from './de.ts';
import { en, type Messages } from './en.ts';
import { es } from './es.ts';
import { fr } from './fr.ts';
import { pt } from './pt.ts';
import { zh } from './zh.ts';

/**
 * The checkout's languages: typed catalog modules rather than i18next or Lingui. The page is rendered on the server
 * from some sixty messages, so a catalog is a plain object whose type is the English one's (a message missing in any
 * language fails the typecheck), formatting goes through Intl (numbers, currencies, dates), and nothing is added to
 * what the payer's browser downloads or to each request's work (no message parsing at run time, no dependency).
 */
export const locales = ['en', 'es', 'de', 'fr', 'pt', 'zh', 'ar'] as const;
export type Locale = (typeof locales)[number];

const catalogs: Record<Locale, Messages> = { en, es, de, fr, pt, zh, ar };

/** Each language by its own name, for the language switch. */
export const localeNames: Record<Locale, string> = {
  en: 'English',
  es: 'Español',
  de: 'Deutsch',
  fr: 'Français',
  pt: 'Português',
  zh: '中文',
  ar: 'العربية',
};

function isLocale(value: string): value is Locale {
  return (locales as readonly string[]).includes(value);
}

/** The supported language of a tag (`pt-BR` → `pt`, `zh-Hant-TW` → `zh`), if any. */
export function localeOf(tag: string | null | undefined): Locale | undefined {
  if (tag === null || tag === undefined) return undefined;
  const language = tag.trim().toLowerCase().split(/[-_]/)[0] ?? '';
  return isLocale(language) ? language : undefined;
}

/** The best supported language of an Accept-Language header, by its q-values (ties keep the header's order). */
export function fromAcceptLanguage(header: string | undefined): Locale | undefined {
  if (header === undefined || header.length > 1000) return undefined;
  const ranked = header
    .split(',')
    .map((part, index) => {
      const [tag = '', ...params] = part.split(';');
      const q = params.map((p) => /^\s*q=([0-9.]+)\s*$/.exec(p)?.[1]).find((v) => v !== undefined);
      return { tag, q: q === undefined ? 1 : Number(q), index };
    })
    .filter((entry) => entry.q > 0)
    .sort((a, b) => b.q - a.q || a.index - b.index);
  for (const entry of ranked) {
    const locale = localeOf(entry.tag);
    if (locale !== undefined) return locale;
  }
  return undefined;
}

/** The page's language: `?locale=`, then the payment's own `locale`, then Accept-Language, then English. */
export function negotiateLocale(choices: {
  query?: string | undefined;
  payment?: string | null | undefined;
  acceptLanguage?: string | undefined;
}): Locale {
  return (
    localeOf(choices.query) ?? localeOf(choices.payment) ?? fromAcceptLanguage(choices.acceptLanguage) ?? 'en'
  );
}

export interface Translator {
  locale: Locale;
  dir: 'ltr' | 'rtl';
  m: Messages;
  /** An exact decimal string in the language's digits and separators (Intl takes the string, never a float). */
  decimal(value: string): string;
  /** A fiat amount in its currency's style, or the decimal and the code for an asset or an unknown code. */
  money(value: string, currency: string): string;
  dateTime(iso: string): string;
}

const translators = new Map<Locale, Translator>();

/** The messages and formatters of a language, built once per language. */
export function translator(locale: Locale): Translator {
  const known = translators.get(locale);
  if (known !== undefined) return known;
  const decimals = new Intl.NumberFormat(locale, { maximumFractionDigits: 20 });
  const currencies = new Map<string, Intl.NumberFormat | null>();
  const dates = new Intl.DateTimeFormat(locale, { dateStyle: 'medium', timeStyle: 'short', timeZone: 'UTC' });
  // Intl's format takes a decimal string exactly (Intl.NumberFormat v3); the cast says so to older lib typings.
  // Only a plain decimal goes through Intl (anything else is shown as it is, escaped by the renderer).
  const exact = (format: Intl.NumberFormat, value: string) =>
    /^\d{1,40}(\.\d{1,40})?$/.test(value) ? format.format(value as unknown as number) : value;
  const made: Translator = {
    locale,
    dir: locale === 'ar' ? 'rtl' : 'ltr',
    m: catalogs[locale],
    decimal: (value) => exact(decimals, value),
    money(value, currency) {
      let format = currencies.get(currency);
      if (format === undefined) {
        try {
          format = /^[A-Z]{3}$/.test(currency)
            ? new Intl.NumberFormat(locale, { style: 'currency', currency, maximumFractionDigits: 20 })
            : null;
        } catch {
          format = null;
        }
        if (currencies.size < 200) currencies.set(currency, format);
      }
      return format === null || format === undefined || exact(format, value) === value
        ? `${exact(decimals, value)} ${currency}`
        : exact(format, value);
    },
    dateTime: (iso) => {
      const date = new Date(iso);
      return Number.isNaN(date.getTime()) ? iso : `${dates.format(date)} UTC`;
    },
  };
  translators.set(locale, made);
  return made;
}
