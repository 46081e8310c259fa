// What CDP's Input.dispatchKeyEvent needs beyond a KeyboardEvent's key and
// code: the Windows virtual key code, without which Chromium runs no default
// action (Backspace deletes nothing, Enter submits nothing), and the text
// Enter types. The page sends key and code as the person's browser saw them.

/** Virtual key codes by KeyboardEvent.code, and by key for the keys whose key names them. */
const NAMED = new Map<string, number>([
  ['Backspace', 8],
  ['Tab', 9],
  ['Enter', 13],
  ['NumpadEnter', 13],
  ['Shift', 16],
  ['ShiftLeft', 16],
  ['ShiftRight', 16],
  ['Control', 17],
  ['ControlLeft', 17],
  ['ControlRight', 17],
  ['Alt', 18],
  ['AltLeft', 18],
  ['AltRight', 18],
  ['Pause', 19],
  ['CapsLock', 20],
  ['Escape', 27],
  ['Space', 32],
  [' ', 32],
  ['PageUp', 33],
  ['PageDown', 34],
  ['End', 35],
  ['Home', 36],
  ['ArrowLeft', 37],
  ['ArrowUp', 38],
  ['ArrowRight', 39],
  ['ArrowDown', 40],
  ['PrintScreen', 44],
  ['Insert', 45],
  ['Delete', 46],
  ['Meta', 91],
  ['MetaLeft', 91],
  ['MetaRight', 92],
  ['ContextMenu', 93],
  ['NumpadMultiply', 106],
  ['NumpadAdd', 107],
  ['NumpadSubtract', 109],
  ['NumpadDecimal', 110],
  ['NumpadDivide', 111],
  ['NumLock', 144],
  ['ScrollLock', 145],
  ['Semicolon', 186],
  ['Equal', 187],
  ['Comma', 188],
  ['Minus', 189],
  ['Period', 190],
  ['Slash', 191],
  ['Backquote', 192],
  ['BracketLeft', 219],
  ['Backslash', 220],
  ['BracketRight', 221],
  ['Quote', 222],
]);

/** The Windows virtual key code of a key, from its code (the physical key) or else its key; 0 when unknown. */
export function virtualKeyCode(code: string, key: string): number {
  const named = NAMED.get(code);
  if (named !== undefined) return named;
  const physical = /^(?:Key([A-Z])|Digit([0-9])|Numpad([0-9])|F([1-9]|1[0-9]|2[0-4]))$/.exec(code);
  if (physical?.[1]) return physical[1].charCodeAt(0);
  if (physical?.[2]) return 48 + Number(physical[2]);
  if (physical?.[3]) return 96 + Number(physical[3]);
  if (physical?.[4]) return 111 + Number(physical[4]);
  const byKey = NAMED.get(key);
  if (byKey !== undefined) return byKey;
  if (/^[a-zA-Z0-9]$/.test(key)) return key.toUpperCase().charCodeAt(0);
  return 0;
}

/** What a key down types: the page's text for a printable key; Enter's carriage return, as a keyboard's. */
export function typedText(key: string, text: string | undefined, modifiers: number): string | undefined {
  if (text !== undefined) return text;
  // Control, Alt or Meta held: a shortcut, which types nothing.
  if (key === 'Enter' && (modifiers & 0b0111) === 0) return '\r';
  return undefined;
}
