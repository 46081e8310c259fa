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

/** How a flat session's id is written as a message's last member. */
export const SESSION_MEMBER = ',"sessionId":"';
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

/** The session id of the trailing member that begins at `member` (as `tailSessionStart` found it). */
export const sessionAt = (text: string, member: number): string => text.slice(member + SESSION_MEMBER.length, -2);

/** The session id `text` ends with, as `tailSessionStart` finds it. */
export function tailSession(text: string): string | undefined {
  const member = tailSessionStart(text);
  return member === -1 ? undefined : sessionAt(text, member);
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

const PARAMS_MEMBER = ',"params":';
/** Deeper than this, the client's text is written anew rather than read through (Chromium's own limit is 300). */
const MAX_DEPTH = 64;

/**
 * Whether a client's own text may go to Chromium in place of commandText's
 * serialisation of the command parsed from it: when both readers, JSON.parse
 * (which the filter judged) and Chromium's, must read it as that command. The
 * text must already have parsed (JSON.parse: no comments, no stray bytes, no
 * bad escapes), and be written as commandText writes it, id, method and
 * session alike, but for the params object, which may be as the client wrote
 * it so long as no object in it repeats a key or spells a key with an escape
 * (where two readers could keep different ones). Anything else is written
 * anew; this is only the cheaper road to the same bytes' meaning.
 */
export function readsAsParsed(
  text: string,
  command: { id: number; method: string; params?: object; sessionId?: string },
): boolean {
  const { id, method, sessionId } = command;
  const head = `{"id":${id},"method":"${method}"`;
  if (!text.startsWith(head)) return false;
  let end = text.length - 1;
  if (sessionId === undefined) {
    if (text.charCodeAt(end) !== 0x7d) return false;
  } else {
    end = text.length - (SESSION_MEMBER.length + sessionId.length + 2);
    if (end < head.length || !text.startsWith(`${SESSION_MEMBER}${sessionId}"}`, end)) return false;
  }
  if (command.params === undefined) return end === head.length;
  if (!text.startsWith(PARAMS_MEMBER, head.length)) return false;
  const from = head.length + PARAMS_MEMBER.length;
  return text.charCodeAt(from) === 0x7b && valueEnd(text, from, 0) === end && text.isWellFormed();
}

const isSpace = (c: number) => c === 0x20 || c === 0x0a || c === 0x0d || c === 0x09;

function skipSpace(text: string, i: number): number {
  while (isSpace(text.charCodeAt(i))) i++;
  return i;
}

/** Where the string opening at `i` ends (after its closing quote), in text JSON.parse accepted. */
function stringEnd(text: string, i: number): number {
  let from = i + 1;
  for (;;) {
    const quote = text.indexOf('"', from);
    if (quote === -1) return -1;
    let backslashes = 0;
    while (text.charCodeAt(quote - 1 - backslashes) === 0x5c) backslashes++;
    if (backslashes % 2 === 0) return quote + 1;
    from = quote + 1;
  }
}

/**
 * Where the JSON value at `i` ends, in text JSON.parse accepted; -1 when an
 * object in it repeats a key, spells one with an escape, or it nests too deep.
 */
function valueEnd(text: string, i: number, depth: number): number {
  const c = text.charCodeAt(i);
  if (c === 0x22) return stringEnd(text, i);
  if (c !== 0x7b && c !== 0x5b) {
    // A number, true, false or null: up to the next delimiter.
    while (i < text.length) {
      const d = text.charCodeAt(i);
      if (d === 0x2c || d === 0x7d || d === 0x5d || isSpace(d)) break;
      i++;
    }
    return i;
  }
  if (depth >= MAX_DEPTH) return -1;
  const object = c === 0x7b;
  const close = object ? 0x7d : 0x5d;
  let keys: string[] | Set<string> | undefined;
  i = skipSpace(text, i + 1);
  if (text.charCodeAt(i) === close) return i + 1;
  for (;;) {
    if (object) {
      const keyEnd = stringEnd(text, i);
      if (keyEnd === -1) return -1;
      const key = text.slice(i + 1, keyEnd - 1);
      if (key.includes('\\')) return -1;
      if (keys === undefined) keys = [key];
      else if (Array.isArray(keys)) {
        if (keys.includes(key)) return -1;
        keys.push(key);
        // Many keys: a set, so a long object costs its length, not its square.
        if (keys.length > 16) keys = new Set(keys);
      } else {
        if (keys.has(key)) return -1;
        keys.add(key);
      }
      i = skipSpace(text, keyEnd);
      if (text.charCodeAt(i) !== 0x3a) return -1;
      i = skipSpace(text, i + 1);
    }
    i = valueEnd(text, i, depth + 1);
    if (i === -1) return -1;
    i = skipSpace(text, i);
    const next = text.charCodeAt(i);
    if (next === close) return i + 1;
    if (next !== 0x2c) return -1;
    i = skipSpace(text, i + 1);
  }
}
