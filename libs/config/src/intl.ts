// What a time zone or a locale setting may name: what this runtime's ICU knows, the same data
// Chromium's pages use. A session's options (the gateway's /connect) and an exit's place
// (browser-host's EXITS) are checked by the same two.

/** A time zone ICU knows (`Europe/Berlin`, `UTC`). */
export function knownTimezone(zone: string): boolean {
  try {
    new Intl.DateTimeFormat('en', { timeZone: zone });
    return true;
  } catch {
    return false;
  }
}

/** One well-formed BCP 47 tag (`de-DE`). */
export function validLocale(tag: string): boolean {
  try {
    return Intl.getCanonicalLocales(tag).length === 1;
  } catch {
    return false;
  }
}
