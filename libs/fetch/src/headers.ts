/**
 * What a request header a caller supplies may be, the same for every engine:
 * a field name is an RFC 9110 token, a value visible ASCII, spaces and tabs.
 * undici and Chromium each refuse more than HTTP does at different places
 * (undici once the pool has handed out a connection), so a header is checked
 * here, before any engine sees it.
 */
export const HEADER_NAME = /^[!#$%&'*+.^_`|~0-9A-Za-z-]+$/;
export const HEADER_VALUE = /^[\t\x20-\x7e]*$/;
export const MAX_HEADER_NAME = 256;
export const MAX_HEADER_VALUE = 8_192;

/** Why a header cannot be sent, or undefined when it can. */
export function headerProblem(name: string, value: string): string | undefined {
  if (name.length === 0 || name.length > MAX_HEADER_NAME || !HEADER_NAME.test(name))
    return `is not a valid header name (letters, digits and !#$%&'*+.^_\`|~- only, at most ${MAX_HEADER_NAME})`;
  if (value.length > MAX_HEADER_VALUE || !HEADER_VALUE.test(value))
    return `is not a valid header value (visible ASCII, spaces and tabs, at most ${MAX_HEADER_VALUE} characters)`;
  return undefined;
}
