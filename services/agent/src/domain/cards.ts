// Payment card numbers: the check digit that tells a number from a typo, and
// the scan that finds one written into a task (cards are stored as secrets and
// named by handle, never typed into a task, where events and prompts carry it).

/** Whether a string of digits passes the Luhn check (ISO/IEC 7812). */
export function luhnValid(digits: string): boolean {
  if (!/^\d+$/.test(digits)) return false;
  let sum = 0;
  for (let i = 0; i < digits.length; i++) {
    let d = digits.charCodeAt(digits.length - 1 - i) - 48;
    if (i % 2 === 1) {
      d *= 2;
      if (d > 9) d -= 9;
    }
    sum += d;
  }
  return sum % 10 === 0;
}

/** Card numbers have 13 to 19 digits (ISO/IEC 7812). */
export const CARD_DIGITS = { min: 13, max: 19 } as const;

/**
 * A card number as a caller writes it (digits, with single spaces or dashes
 * between groups) as its digits; undefined when it is not one: wrong length,
 * another character, or a failed check digit.
 */
export function cardDigits(input: string): string | undefined {
  const text = input.trim();
  if (!/^\d+(?:[ -]\d+)*$/.test(text)) return undefined;
  const digits = text.replace(/[ -]/g, '');
  if (digits.length < CARD_DIGITS.min || digits.length > CARD_DIGITS.max) return undefined;
  return luhnValid(digits) ? digits : undefined;
}

// Runs of digits joined by single spaces or dashes, not touching another digit.
const DIGIT_RUN = /(?<!\d)\d+(?:[ -]\d+)*(?!\d)/g;

/**
 * Whether a text holds something that is a card number: 13 to 19 digits,
 * grouped by spaces or dashes or not, that pass the Luhn check. Within a
 * longer run (a number followed by its expiry, say) every sequence of whole
 * groups is tried; an ungrouped run longer than 19 digits is some other id.
 */
export function containsCardNumber(text: string): boolean {
  for (const match of text.matchAll(DIGIT_RUN)) {
    const groups = match[0].split(/[ -]/);
    for (let first = 0; first < groups.length; first++) {
      let digits = '';
      for (let last = first; last < groups.length; last++) {
        digits += groups[last];
        if (digits.length > CARD_DIGITS.max) break;
        if (digits.length >= CARD_DIGITS.min && luhnValid(digits)) return true;
      }
    }
  }
  return false;
}
