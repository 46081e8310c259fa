// Where a browser's traffic comes out, and so the time zone and locale its
// pages should see (docs/profiles.md, "Exits"; docs/connect.md, "Stealth").
// A site that compares the browser's clock and language with where its IP
// address is sees a UTC browser behind a German exit as a script. Pure.
//
// How the place of an exit is known, first found wins:
//   1. the operator says so: the exit's `timezone` and `locale`;
//   2. the operator names its country (`country`, ISO 3166-1 alpha-2);
//   3. the exit's proxy names it: residential providers pick a country by a
//      user name part `country-de` (Bright Data, Decodo/Smartproxy, SOAX,
//      IPRoyal) or `cc-DE` (Oxylabs).
// The host's own traffic (no exit: the `direct` profiles, sessions without
// a profile, the render pool) comes out where the host is, which only the
// operator knows: EGRESS_PLACE says it, the same fields.
// From a country: its main language with the country (likely subtags, as
// Intl has them: `DE` gives `de-DE`), and its zone (Intl's only zone for the
// country, or the zone most of its people live in where it has several).
import { knownTimezone, validLocale } from '@wap/config';
import { z } from 'zod';

/** What is known of a place; every field optional. */
export interface Place {
  country?: string;
  timezone?: string;
  locale?: string;
}

/** The time zone and locale a place gives the browser, and how they were known. */
export interface PlaceFace {
  timezone?: string;
  locale?: string;
  /** How: 'configured', 'country', 'proxy user name'; undefined when nothing is known. */
  knownBy?: string;
}

/** Intl's time zones of a region: none for a code that names no country (XX, EU, UN). */
const zonesOf = (region: string): string[] =>
  (new Intl.Locale(`und-${region}`) as Intl.Locale & { getTimeZones?(): string[] }).getTimeZones?.() ?? [];
const isCountry = (code: string) => /^[A-Za-z]{2}$/.test(code) && zonesOf(code.toUpperCase()).length > 0;

/** The fields of a place, as an exit or EGRESS_PLACE spells them. */
export const placeFields = {
  country: z.string().refine(isCountry, 'an ISO 3166-1 alpha-2 country code').optional(),
  timezone: z.string().refine(knownTimezone, 'an IANA time zone').optional(),
  locale: z.string().refine(validLocale, 'a BCP 47 locale').optional(),
};

/** EGRESS_PLACE: JSON of placeFields; empty: nothing known. Throws what is wrong. */
export function parsePlace(json: string | undefined): Place {
  if (!json?.trim()) return {};
  const parsed = z.strictObject(placeFields).safeParse(JSON.parse(json));
  if (!parsed.success) throw new Error(parsed.error.issues.map((i) => `${i.path.join('.')}: ${i.message}`).join('; '));
  return parsed.data;
}

/**
 * Where most of the people of a country with several zones live (the zone
 * of its largest city), in the name Intl gives it. Any other country: Intl's
 * first zone for it (most have one).
 */
const MAIN_ZONE: Record<string, string> = {
  AR: 'America/Buenos_Aires',
  AU: 'Australia/Sydney',
  BR: 'America/Sao_Paulo',
  CA: 'America/Toronto',
  CD: 'Africa/Kinshasa',
  CL: 'America/Santiago',
  CN: 'Asia/Shanghai',
  CY: 'Asia/Nicosia',
  DE: 'Europe/Berlin',
  EC: 'America/Guayaquil',
  ES: 'Europe/Madrid',
  ID: 'Asia/Jakarta',
  KZ: 'Asia/Almaty',
  MN: 'Asia/Ulaanbaatar',
  MX: 'America/Mexico_City',
  MY: 'Asia/Kuala_Lumpur',
  NZ: 'Pacific/Auckland',
  PT: 'Europe/Lisbon',
  RU: 'Europe/Moscow',
  UA: 'Europe/Kiev',
  US: 'America/New_York',
  UZ: 'Asia/Tashkent',
};

/** Countries whose browsers mostly speak English where Intl's likely language is another. */
const BROWSER_LANGUAGE: Record<string, string> = { IN: 'en', PK: 'en', PH: 'en' };

/** The zone and locale of a country (ISO 3166-1 alpha-2). */
export function countryFace(country: string): { timezone?: string; locale: string } {
  const region = country.toUpperCase();
  const language = BROWSER_LANGUAGE[region] ?? new Intl.Locale('und', { region }).maximize().language;
  const timezone = MAIN_ZONE[region] ?? zonesOf(region)[0];
  return { ...(timezone && { timezone }), locale: `${language}-${region}` };
}

/** The country a proxy's user name asks its provider for (`…-country-de-…`, `…-cc-DE-…`), if any. */
export function proxyCountry(proxyUrl: string | undefined): string | undefined {
  if (!proxyUrl) return undefined;
  let user: string;
  try {
    user = decodeURIComponent(new URL(proxyUrl).username);
  } catch {
    return undefined;
  }
  const code = /(?:^|[-_])(?:country|cc)[-_]([a-z]{2})(?=$|[-_])/i.exec(user)?.[1];
  return code && isCountry(code) ? code.toUpperCase() : undefined;
}

/** What a place gives: its own time zone and locale first, then its country's, then its proxy's country's. */
export function placeFace(place: Place & { url?: string }): PlaceFace {
  const country = place.country ?? proxyCountry(place.url);
  const fromCountry: { timezone?: string; locale?: string } = country ? countryFace(country) : {};
  const timezone = place.timezone ?? fromCountry.timezone;
  const locale = place.locale ?? fromCountry.locale;
  const knownBy =
    place.timezone || place.locale ? 'configured' : place.country ? 'country' : country ? 'proxy user name' : undefined;
  return { ...(timezone && { timezone }), ...(locale && { locale }), ...(knownBy && { knownBy }) };
}
