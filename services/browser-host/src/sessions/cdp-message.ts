// What the relay reads of a serialised CDP message without parsing it, and how
// it writes a client's command anew (docs/decisions/0036-relay-reads-without-parsing.md).
//
// Chromium writes every message it sends one way: an answer begins `{"id":N,`,
// an event `{"method":"Domain.name",`, and a flat session's id is the last
// member, `,"sessionId":"..."}`. The host's own messages are written the same
// way (commandText below; puppeteer puts sessionId last too). So the session
// of a message, its id and its event name are read from its head and tail in
// a few dozen characters, whatever its length; what does not have that shape
// reads as having none, and its reader parses it whole.

const SESSION_MEMBER = ',"sessionId":"';
const ID_HEAD = '{"id":';
const METHOD_HEAD = '{"method":"';
/** Chromium's session ids are 32 hex digits; the hub accepts what its clients may name (cdp-filter.ts). */
const SESSION_ID_MAX = 64;

/** Digits of Number.MAX_SAFE_INTEGER. */
const SAFE_DIGITS = 16;

const isDigit = (c: number) => c >= 48 && c <= 57;
const isAlnum = (c: number) => (c >= 48 && c <= 57) || (c >= 65 && c <= 90) || (c >= 97 && c <= 122);

/**
 * Where the trailing `,"sessionId":"<1-64 letters or digits>"}` of `text`
 * begins, or -1 when it has none: a scan back from the end, never the length
 * of the message.
 */
export function tailSessionStart(text: string): number {
  const close = text.length - 2;
  if (close < SESSION_MEMBER.length || text.charCodeAt(close + 1) !== 0x7d || text.charCodeAt(close) !== 0x22)
    return -1;
  let start = close;
  while (start > 0 && close - start < SESSION_ID_MAX && isAlnum(text.charCodeAt(start - 1))) start--;
  if (start === close) return -1;
  const member = start - SESSION_MEMBER.length;
  return member >= 0 && text.startsWith(SESSION_MEMBER, member) ? member : -1;
}

/** The session id `text` ends with, as `tailSessionStart` finds it. */
export function tailSession(text: string): string | undefined {
  const member = tailSessionStart(text);
  return member === -1 ? undefined : text.slice(member + SESSION_MEMBER.length, -2);
}

/** The id an answer begins with (`{"id":-12,` or `{"id":7,`), or undefined when it does not begin so. */
export function headId(text: string): number | undefined {
  if (!text.startsWith(ID_HEAD)) return undefined;
  let i = ID_HEAD.length;
  const negative = text.charCodeAt(i) === 0x2d;
  if (negative) i++;
  const first = i;
  while (i - first <= SAFE_DIGITS && isDigit(text.charCodeAt(i))) i++;
  // More digits than a safe integer has is no id the host or a client wrote (cdp-filter.ts parses ids as safe integers).
  if (i === first || i - first > SAFE_DIGITS || text.charCodeAt(i) !== 0x2c) return undefined;
  const id = Number(text.slice(first, i));
  return negative ? -id : id;
}

/** The event name a message begins with (`{"method":"Target.attachedToTarget",`), or undefined. */
export function headMethod(text: string): string | undefined {
  if (!text.startsWith(METHOD_HEAD)) return undefined;
  const end = text.indexOf('"', METHOD_HEAD.length);
  if (end === -1 || end === METHOD_HEAD.length) return undefined;
  const method = text.slice(METHOD_HEAD.length, end);
  for (let i = 0; i < method.length; i++) {
    const c = method.charCodeAt(i);
    if (!isAlnum(c) && c !== 0x2e) return undefined;
  }
  return method;
}

/**
 * A command serialised as the host sends it: id, method, params, then the
 * session last. `method` must be letters, digits and dots and `sessionId`
 * letters and digits (cdp-filter.ts checks both), `id` a safe integer: none
 * of them needs escaping, so this is JSON.stringify's own text, written
 * without building the object first.
 */
export function commandText(id: number, method: string, params: object | undefined, sessionId: string | undefined) {
  const head =
    params === undefined
      ? `{"id":${id},"method":"${method}"`
      : `{"id":${id},"method":"${method}","params":${JSON.stringify(params)}`;
  return sessionId === undefined ? `${head}}` : `${head},"sessionId":"${sessionId}"}`;
}
