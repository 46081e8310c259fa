// What counts as a change (docs/monitors.md): the watched text with the
// noise taken out, so a clock, a rotating token, a tracking parameter or a
// shuffled ad never notifies. Pure.

/** Dates and times as pages write them: ISO, numeric, named months, clocks, "5 minutes ago". */
const DATE_TIME = [
  /\b\d{4}-\d{2}-\d{2}(?:[T ]\d{2}:\d{2}(?::\d{2}(?:\.\d+)?)?(?:Z|[+-]\d{2}:?\d{2})?)?\b/g,
  /\b\d{1,2}[/.]\d{1,2}[/.]\d{2,4}\b/g,
  /\b(?:\d{1,2}(?:st|nd|rd|th)?\s+)?(?:jan|feb|mar|apr|may|jun|jul|aug|sep|sept|oct|nov|dec)[a-z]*\.?(?:\s+\d{1,2}(?:st|nd|rd|th)?)?,?\s+\d{4}\b/gi,
  /\b(?:mon|tue|wed|thu|fri|sat|sun)[a-z]*,?\s+(?=\d)/gi,
  /\b\d{1,2}:\d{2}(?::\d{2})?(?:\s?[ap]\.?m\.?)?(?:\s?(?:utc|gmt|[a-z]{3,4}t))?\b/gi,
  /\b\d+\s+(?:second|minute|hour|day|week)s?\s+ago\b/gi,
  /\b(?:just now|today|yesterday)\b/gi,
];

/** Values that change on every load: long hex or base64 runs, UUIDs, CSRF-looking tokens. */
const TOKENS = [
  /\b(?:csrf|xsrf|nonce|token|authenticity_token|_token)\s*[:=]\s*["']?[\w+/=.-]{8,}["']?/gi,
  /\b[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}\b/gi,
  /\b[0-9a-f]{16,}\b/gi,
  /\b(?=[A-Za-z0-9+/_-]*\d)(?=[A-Za-z0-9+/_-]*[a-z])(?=[A-Za-z0-9+/_-]*[A-Z])[A-Za-z0-9+/_-]{24,}={0,2}/g,
];

/** Query parameters that only say where a visitor came from. */
const TRACKING = /^(?:utm_\w+|fbclid|gclid|dclid|msclkid|mc_eid|mc_cid|_ga|_gl|yclid|igshid|ref|ref_src)$/i;

/** A line that is an ad slot's, whatever it shows this time. */
const AD_LINE = /^(?:advertisement|advert|sponsored(?: content)?|ad|ads|promoted|anzeige|publicité)\b/i;

function withoutTracking(text: string): string {
  return text.replace(/https?:\/\/[^\s)"'<>\]]+/g, (raw) => {
    try {
      const u = new URL(raw);
      for (const name of [...u.searchParams.keys()]) if (TRACKING.test(name)) u.searchParams.delete(name);
      return u.href.replace(/\?$/, '');
    } catch {
      return raw;
    }
  });
}

/** Where noise was: a mark, so the punctuation and small words around it go with it. */
const MARK = '\u2400';

/** The text two checks compare: noise out, one space between words, one line per block. */
export function normalize(text: string): string {
  let out = withoutTracking(text);
  for (const re of TOKENS) out = out.replace(re, ` ${MARK} `);
  for (const re of DATE_TIME) out = out.replace(re, ` ${MARK} `);
  return out
    .split(/\n+/)
    .filter((line) => !AD_LINE.test(line.trim()))
    .map((line) =>
      line
        // "(18:07 UTC, 5 minutes ago)" and "on Nov 26, 2026 at 9:41": the brackets, commas and joining words go too.
        .replace(new RegExp(`[\\p{P}\\s]*${MARK}[\\p{P}\\s${MARK}]*`, 'gu'), ` ${MARK} `)
        .replace(new RegExp(`\\b(?:at|on|um|le|à|de)\\s+${MARK}`, 'giu'), MARK)
        .replace(new RegExp(`${MARK}(?:\\s*${MARK})+`, 'gu'), MARK)
        .replaceAll(MARK, ' ')
        .replace(/\s+/g, ' ')
        .trim(),
    )
    .filter((line) => line !== '')
    .join('\n');
}
