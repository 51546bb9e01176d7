import { describe, expect, it } from 'vitest';
import { ar } from './ar.ts';
import { en } from './en.ts';
import { fromAcceptLanguage, locales, negotiateLocale, translator } from './index.ts';

describe('checkout languages', () => {
  it('picks the best supported language of Accept-Language by q-value', () => {
    expect(fromAcceptLanguage('de-CH,de;q=0.9,en;q=0.8')).toBe('de');
    expect(fromAcceptLanguage('ja,pt-BR;q=0.7,en;q=0.9')).toBe('en');
    expect(fromAcceptLanguage('ja,zh-Hant-TW;q=0.5')).toBe('zh');
    expect(fromAcceptLanguage('ar;q=0,fr;q=0.1')).toBe('fr');
    expect(fromAcceptLanguage('*')).toBeUndefined();
    expect(fromAcceptLanguage(undefined)).toBeUndefined();
  });

  it('prefers ?locale=, then the payment’s own locale, then the browser, then English', () => {
    const browser = 'es-ES,es;q=0.9';
    expect(negotiateLocale({ query: 'ar', payment: 'fr', acceptLanguage: browser })).toBe('ar');
    expect(negotiateLocale({ query: 'xx', payment: 'fr', acceptLanguage: browser })).toBe('fr');
    expect(negotiateLocale({ payment: null, acceptLanguage: browser })).toBe('es');
    expect(negotiateLocale({ acceptLanguage: 'ja' })).toBe('en');
  });

  it('formats exact decimals, fiat and dates through Intl, right to left in Arabic', () => {
    expect(translator('de').decimal('12345.000333333333333334')).toBe('12.345,000333333333333334');
    expect(translator('fr').money('25', 'EUR')).toMatch(/^25,00\s€$/);
    expect(translator('en').money('25', 'USD')).toBe('$25.00');
    // An asset code or anything unexpected is shown as it is, never through a float.
    expect(translator('en').decimal('1e3')).toBe('1e3');
    expect(translator('zh').dateTime('2026-01-02T03:04:05Z')).toContain('2026');
    expect(translator('ar').dir).toBe('rtl');
    expect(translator('en').dir).toBe('ltr');
  });

  it('has every message in every language, none left in English by mistake', () => {
    const keys = (value: object, prefix = ''): string[] =>
      Object.entries(value).flatMap(([key, item]) =>
        typeof item === 'object' && item !== null ? keys(item, `${prefix}${key}.`) : [`${prefix}${key}`],
      );
    const english = keys(en).sort();
    for (const locale of locales) expect(keys(translator(locale).m).sort()).toEqual(english);
    expect(ar.title.pending).not.toBe(en.title.pending);
    expect(locales).toHaveLength(7);
  });
});
