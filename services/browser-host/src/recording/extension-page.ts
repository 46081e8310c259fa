// The recorder extension's scripts in each frame (docs/sessions.md,
// "Recording"; why: docs/decisions/0018-recorder-forgery.md).
//
// rrweb runs in the extension's ISOLATED world, not in the page's: the main
// world is the page's and its client's, and anything that runs there can be
// made to say what they like (a page that defines Object.prototype.toJSON
// rewrote every batch the main-world recorder serialised; a CDP client read
// its event name from a patched setter's [[Scopes]] and dispatched its own
// events under it). The isolated world shares the page's DOM and CSSOM but
// not its JavaScript objects, so what rrweb records is read from the page as
// it is, by code neither the page nor a client can reach (cdp-filter.ts keeps
// them out of its contexts, scripts, objects and breakpoints).
//
// What an isolated world cannot see is the page's own calls that change state
// without a DOM mutation: a script setting an input's value, CSSOM rule
// inserts (CSS-in-JS), a shadow root attached to an element already recorded,
// adopted stylesheets. For those a small main-world script patches the
// setters and methods and dispatches a DOM event on the node concerned: a
// hint with no data. The isolated world then reads the node's real state and
// records that. A forged hint (anyone may learn its name) can only make the
// recorder look again at what the page really holds.
import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import path from 'node:path';

/** Pages hand their events to the extension at least this often; its worker posts them as often. */
export const PAGE_FLUSH_MS = 250;
/** A shadow root or adopted stylesheet appearing on a node already recorded re-snapshots the page, at most this often. */
export const CHECKOUT_MIN_MS = 1_000;

const resolve = createRequire(__filename).resolve;
let rrwebSource: string | undefined;

/**
 * rrweb's record build for browsers, read once, with its frame-to-frame
 * channel turned to the extension's: a cross-origin frame's recorder hands
 * its events to its parent's through the extension's worker
 * (`wapToParent`), and no recorder listens to the page's `message` events
 * (`wapListen`). Through window.postMessage, the embedding page read a
 * cross-origin frame's recording, and any script of the frame could post
 * events of its making into it.
 */
export function rrwebForExtension(): string {
  if (rrwebSource) return rrwebSource;
  const file = path.join(path.dirname(resolve('@rrweb/record')), 'record.umd.min.cjs');
  // Every source map comment: the build's own comes last (one inside it, in a worker's text, comes first).
  let source = readFileSync(file, 'utf8').replace(/\/\/# sourceMappingURL=[^\n]*/g, '');
  const replace = (pattern: RegExp, by: string, times: number) => {
    const found = source.match(pattern)?.length ?? 0;
    if (found !== times) throw new Error(`rrweb's build changed: ${pattern} found ${found} times, not ${times}`);
    source = source.replace(pattern, by);
  };
  replace(/window\.parent\.postMessage\(/g, 'wapToParent(', 1);
  replace(
    /([A-Za-z_$][\w$]*)\.addEventListener\("message",this\.handleMessage\.bind\(this\)\)/g,
    'wapListen($1,this.handleMessage.bind(this))',
    2,
  );
  rrwebSource = source;
  return source;
}

/** Input values never recorded: passwords, and fields marked sensitive by the page or by their autocomplete. */
const SENSITIVE = `(el) => !!el && (el.type === 'password' || (el.hasAttribute && (el.hasAttribute('data-sensitive') || el.hasAttribute('data-private'))) || (el.classList && el.classList.contains('wap-mask')) || /^(cc-|one-time-code|current-password|new-password)/.test((el.getAttribute && el.getAttribute('autocomplete')) || ''))`;

const INPUT_TYPES = [
  'color',
  'date',
  'datetime-local',
  'email',
  'month',
  'number',
  'range',
  'search',
  'tel',
  'text',
  'time',
  'url',
  'week',
  'textarea',
  'select',
  'password',
];

/**
 * When a frame starts recording (its full snapshot, then its observers).
 * A frame inside another starts at DOMContentLoaded: it passes its events to
 * its parent's recorder, which must already listen. A top document starts in
 * a task after its load event, so its snapshot does not hold up the page
 * load (measured 2026-11-24: a 50-page walk, 36 ms a page unrecorded, 57 ms
 * snapshotting at DOMContentLoaded, 41-46 ms after load), or a second after
 * DOMContentLoaded if load is slow to come; but at once when it has a frame
 * or gets one (a frame's recorder reports to it), and before it goes away
 * (pagehide). Whatever changed before the start is in the snapshot.
 *
 * `whenAsked`: a top document does not start at load but when the host asks
 * for what it holds (a pool browser's render, docs/sessions.md, "Scrapes":
 * its flush after the answer, or before its actions), so its snapshot is the
 * page the scrape answered, taken off the render's path; frames, and
 * pagehide, start it as before.
 */
export const startPolicy = (whenAsked: boolean) => `
const hasFrames = () => document.querySelector('iframe, frame, object, embed') !== null;
if (window !== window.top) {
  if (document.readyState === 'loading') addListener('DOMContentLoaded', start, { once: true }); else start();
} else {
  const later = () => setTimeout(start, 0);
  const onReady = () => {
    if (hasFrames()) return start();
    const watch = new MutationObserver(() => { if (hasFrames()) { watch.disconnect(); start(); } });
    watch.observe(document, { childList: true, subtree: true });
    if (${whenAsked}) return;
    const stop = () => { watch.disconnect(); start(); };
    addListener('load', () => { watch.disconnect(); later(); }, { once: true });
    setTimeout(stop, 1000);
  };
  if (document.readyState === 'loading') addListener('DOMContentLoaded', onReady, { once: true });
  else if (${whenAsked} || document.readyState === 'interactive') onReady();
  else later();
}
`;

/**
 * The main world's part: hints, no data. Each patched setter or method does
 * what the page asked, then dispatches an event named `<nonce><kind>` on the
 * node concerned (composed, so one inside a shadow root reaches the
 * document): `-input` on an input whose value a script set, `-sheet` and
 * `-rule` on the owner of a stylesheet whose rules changed (`-will` first,
 * before the change), `-shadow` on a host that got a shadow root,
 * `-adopted` on a document or host whose adopted stylesheets changed. The
 * natives it uses are taken at document_start, before page scripts run.
 */
export const hintsScript = (nonce: string) => `(() => {
const NAME = ${JSON.stringify(nonce)};
const E = Event;
const dispatch = EventTarget.prototype.dispatchEvent;
const apply = Reflect.apply;
const describe = Object.getOwnPropertyDescriptor;
const define = Object.defineProperty;
const then = Promise.prototype.then;
const getter = (proto, name) => { const d = proto && describe(proto, name); return d && d.get; };
const sheetOfRule = getter(CSSRule.prototype, 'parentStyleSheet');
const ruleOfStyle = getter(CSSStyleDeclaration.prototype, 'parentRule');
const parentSheet = getter(StyleSheet.prototype, 'parentStyleSheet');
const ownerNode = getter(StyleSheet.prototype, 'ownerNode');
const hostOf = getter(ShadowRoot.prototype, 'host');
// No prototype in the options: nothing of the page's (a getter on Object.prototype) runs inside a hint.
const options = { __proto__: null, composed: true };
const hint = (target, kind) => {
  if (!target) return;
  try { apply(dispatch, target, [new E(NAME + kind, options)]); } catch (err) {}
};
// The node that owns a stylesheet (its style or link element, through @import), or the document for a constructed one.
const ownerOf = (sheet) => {
  try {
    let top = sheet;
    for (let up = top && apply(parentSheet, top, []); up; up = apply(parentSheet, top, [])) top = up;
    return (top && apply(ownerNode, top, [])) || document;
  } catch (err) { return document; }
};
const ownerOfRule = (rule) => { try { return ownerOf(apply(sheetOfRule, rule, [])); } catch (err) { return null; } };
const keep = (original, wrapped) => { try { define(wrapped, 'length', { value: original.length }); } catch (err) {} return wrapped; };
const wrapSetter = (proto, name, kind) => {
  const d = proto && describe(proto, name);
  if (!d || typeof d.set !== 'function') return;
  const set = d.set;
  const wrapped = describe({ set [name](value) { apply(set, this, [value]); hint(this, kind); } }, name).set;
  define(proto, name, { get: d.get, set: keep(set, wrapped), enumerable: d.enumerable, configurable: d.configurable });
};
const wrapMethod = (proto, name, kind, targetOf, later) => {
  const d = proto && describe(proto, name);
  if (!d || typeof d.value !== 'function') return;
  const original = d.value;
  const wrapped = { [name](...args) {
    const target = targetOf(this);
    hint(target, kind + '-will');
    let done = false;
    try {
      const result = apply(original, this, args);
      if (later) { try { apply(then, result, [() => hint(target, kind), () => hint(target, kind)]); done = true; } catch (err) {} }
      return result;
    } finally { if (!done) hint(target, kind); }
  } }[name];
  define(proto, name, { value: keep(original, wrapped), writable: d.writable, enumerable: d.enumerable, configurable: d.configurable });
};
for (const [proto, names] of [
  [HTMLInputElement.prototype, ['value', 'checked']],
  [HTMLTextAreaElement.prototype, ['value']],
  [HTMLSelectElement.prototype, ['value', 'selectedIndex']],
  [HTMLOptionElement.prototype, ['selected']],
]) for (const name of names) wrapSetter(proto, name, '-input');
const sheetOwner = (sheet) => ownerOf(sheet);
for (const name of ['insertRule', 'deleteRule', 'addRule', 'removeRule', 'replaceSync']) wrapMethod(CSSStyleSheet.prototype, name, '-sheet', sheetOwner, false);
wrapMethod(CSSStyleSheet.prototype, 'replace', '-sheet', sheetOwner, true);
if (typeof CSSGroupingRule === 'function')
  for (const name of ['insertRule', 'deleteRule']) wrapMethod(CSSGroupingRule.prototype, name, '-rule', ownerOfRule, false);
const styleOwner = (style) => { try { const rule = apply(ruleOfStyle, style, []); return rule ? ownerOfRule(rule) : null; } catch (err) { return null; } };
for (const name of ['setProperty', 'removeProperty']) wrapMethod(CSSStyleDeclaration.prototype, name, '-rule', styleOwner, false);
const attach = describe(Element.prototype, 'attachShadow');
if (attach && typeof attach.value === 'function') {
  const original = attach.value;
  const wrapped = { attachShadow(...args) { const root = apply(original, this, args); hint(this, '-shadow'); return root; } }.attachShadow;
  define(Element.prototype, 'attachShadow', { value: keep(original, wrapped), writable: attach.writable, enumerable: attach.enumerable, configurable: attach.configurable });
}
for (const [proto, targetOf] of [[Document.prototype, (d) => d], [ShadowRoot.prototype, (r) => { try { return apply(hostOf, r, []); } catch (err) { return null; } }]]) {
  const d = describe(proto, 'adoptedStyleSheets');
  if (!d || typeof d.set !== 'function') continue;
  const set = d.set;
  const wrapped = describe({ set adoptedStyleSheets(value) { apply(set, this, [value]); hint(targetOf(this), '-adopted'); } }, 'adoptedStyleSheets').set;
  define(proto, 'adoptedStyleSheets', { get: d.get, set: keep(set, wrapped), enumerable: d.enumerable, configurable: d.configurable });
}
})();
`;

/**
 * The isolated world's part: rrweb, its events batched and sent to the
 * extension's worker, the hints acted on, and the frames' channel. Nothing in
 * it is reachable from the page, and nothing the page sends it is taken for
 * an event: a hint makes it read the DOM, a child frame's events come from
 * the worker, which names the frame that sent them.
 */
export const recorderScript = (nonce: string, policy: string) => `(() => {
const HINT = ${JSON.stringify(nonce)};
const runtime = chrome.runtime;
const realAdd = EventTarget.prototype.addEventListener;
const addListener = (type, fn, options) => realAdd.call(window, type, fn, options);
// rrweb's input listener on this frame's document (its own rrweb's, or the one of the frame recording this one): a
// hint that a script set a value has it read that value, as a user's input event would.
const inputHandlers = [];
EventTarget.prototype.addEventListener = function (type, listener, options) {
  if (type === 'input' && this === document && typeof listener === 'function') inputHandlers.push(listener);
  return realAdd.call(this, type, listener, options);
};
// The worker: batches up, flush requests down; a child frame's events up to the parent recording it, and down.
let port = null;
const pending = [];
const post = (message) => {
  if (port) { try { port.postMessage(message); return; } catch (err) { port = null; } }
  pending.push(message);
};
let buffer = [];
let timer = 0;
const send = (events) => { try { runtime.sendMessage({ events }).catch(() => {}); } catch (err) {} };
const flush = () => {
  clearTimeout(timer);
  timer = 0;
  if (buffer.length === 0) return;
  const batch = buffer;
  buffer = [];
  send(batch);
};
const push = (event) => {
  buffer.push(event);
  if (buffer.length >= 200) flush(); else if (!timer) timer = setTimeout(flush, ${PAGE_FLUSH_MS});
};
let crossOriginParent = false;
if (window.parent !== window) { try { void window.parent.document; } catch (err) { crossOriginParent = true; } }
// A frame below another origin names itself to its parent's recorder (below, \`children\`).
const frameName = crossOriginParent ? crypto.randomUUID() : '';
if (crossOriginParent) { try { window.parent.postMessage({ wapFrame: frameName }, '*'); } catch (err) {} }
// rrweb of a frame whose parent is another origin hands its events up this way (not window.parent.postMessage).
const wapToParent = (message) => post({ wapUp: message, name: frameName });
// rrweb takes its child frames' events from the handler it would have listened to the page's messages with.
let fromChildren = null;
const wapListen = (target, handler) => { if (target === window && !fromChildren) fromChildren = handler; };
const module = { exports: {} }; const exports = module.exports; const define = undefined;
${rrwebForExtension()}
const rrweb = module.exports;
const mirror = rrweb.record.mirror;
// The frame whose rrweb records this document: this one, or the nearest ancestor of the same origin below the top
// or below another origin (rrweb records same-origin frames from there).
const recorderWindow = () => {
  let w = window;
  for (let i = 0; i < 32; i++) {
    let up;
    try { up = w.parent; if (up === w) return w; void up.document; } catch (err) { return w; }
    w = up;
  }
  return w;
};
// One of this frame's events, as rrweb would pass it on: to the batch, or up to the parent frame.
const emitOwn = (event) => {
  event.timestamp = Date.now();
  if (window.parent === window) push(event);
  else if (crossOriginParent) wapToParent({ type: 'rrweb', event, origin: location.origin, isCheckout: false });
};
const sensitive = ${SENSITIVE};
const maskInputOptions = {};
for (const type of ${JSON.stringify(INPUT_TYPES)}) maskInputOptions[type] = true;
let started = false;
const start = () => {
  if (started) return;
  started = true;
  try {
    rrweb.record({
      emit: push,
      recordCrossOriginIframes: true,
      maskInputOptions,
      maskInputFn: (text, el) => (sensitive(el) ? '*'.repeat(text.length) : text),
      maskTextSelector: '[data-sensitive], [data-private], .wap-mask',
      sampling: { mousemove: 50, scroll: 150 },
    });
  } catch (err) {}
  // The page's first snapshot leaves at once: a page navigated away soon after (another site's page
  // unloads in a process being swapped out, where a last message may be dropped) is still recorded.
  flush();
};
// Stylesheets whose rules a script changed: what the replay holds of each (its rules and their text), and which
// changed since. Compared when the script's task is done, in one go however many rules it inserted.
const sheets = new WeakMap();
const dirty = new Map();
let comparing = false;
const rulesOf = (sheet) => { try { return Array.from(sheet.cssRules); } catch (err) { return null; } };
const textOf = (rule) => { try { return rule.cssText; } catch (err) { return ''; } };
const known = (sheet) => {
  const node = sheet.ownerNode;
  const id = node ? mirror.getId(node) : -1;
  if (id === -1) return null;
  let state = sheets.get(sheet);
  if (!state || state.id !== id) {
    const rules = rulesOf(sheet);
    if (!rules) return null;
    state = { id, rules, texts: rules.map(textOf) };
    sheets.set(sheet, state);
  }
  return state;
};
const compare = () => {
  comparing = false;
  for (const [sheet, inPlace] of dirty) {
    const state = sheets.get(sheet);
    const node = sheet.ownerNode;
    if (!state || !node || mirror.getId(node) !== state.id) { sheets.delete(sheet); continue; }
    const now = rulesOf(sheet);
    if (!now) continue;
    const was = state.rules;
    let head = 0;
    while (head < was.length && head < now.length && was[head] === now[head]) head++;
    let tail = 0;
    while (tail < was.length - head && tail < now.length - head && was[was.length - 1 - tail] === now[now.length - 1 - tail]) tail++;
    // In the order a replay applies them: the rules gone (from the end), the rules new, then each rule changed
    // where it stands (a declaration, a rule inside @media) replaced whole.
    const removes = [];
    for (let i = was.length - tail - 1; i >= head; i--) removes.push({ index: i });
    const texts = now.map((rule, i) => (i < head ? state.texts[i] : i >= now.length - tail ? state.texts[i - now.length + was.length] : textOf(rule)));
    const adds = [];
    for (let i = head; i < now.length - tail; i++) adds.push({ rule: texts[i], index: i });
    const changed = [];
    if (inPlace)
      for (let i = 0; i < now.length; i++) {
        if (i >= head && i < now.length - tail) continue;
        const text = textOf(now[i]);
        if (text !== texts[i]) { texts[i] = text; changed.push(i); }
      }
    state.rules = now;
    state.texts = texts;
    const rule = (data) => emitOwn({ type: 3, data: { source: 8, id: state.id, ...data } });
    if (removes.length > 0) rule({ removes });
    if (adds.length > 0) rule({ adds });
    if (changed.length > 0) {
      rule({ removes: changed.slice().reverse().map((index) => ({ index })) });
      rule({ adds: changed.map((index) => ({ rule: texts[index], index })) });
    }
  }
  dirty.clear();
};
let lastCheckout = 0;
let checkoutTimer = 0;
const checkout = () => {
  if (checkoutTimer) return;
  checkoutTimer = setTimeout(() => {
    checkoutTimer = 0;
    lastCheckout = Date.now();
    try { rrweb.record.takeFullSnapshot(true); } catch (err) {}
  }, Math.max(0, lastCheckout + ${CHECKOUT_MIN_MS} - Date.now()));
};
// What this frame does for a hint about a node of its own document or of a same-origin frame it records.
const onHint = (kind, node) => {
  if (!started || !node) return;
  if (kind === '-shadow' || kind === '-adopted') {
    if (mirror.getId(node) !== -1) checkout();
    return;
  }
  const sheet = node.nodeType === 9 ? null : node.sheet;
  if (!sheet) {
    // A constructed stylesheet (no owner): what adopted it is not known here; a new snapshot has it.
    if (node.nodeType === 9 && !kind.endsWith('-will')) checkout();
    return;
  }
  if (kind.endsWith('-will')) { known(sheet); return; }
  if (!sheets.has(sheet)) return;
  dirty.set(sheet, dirty.get(sheet) === true || kind === '-rule');
  if (!comparing) { comparing = true; queueMicrotask(compare); }
};
const recorderOf = () => { const w = recorderWindow(); try { return w.__wapRecorder; } catch (err) { return undefined; } };
// A child frame's events, come through the worker under the name the child gave itself: this frame learns which
// window is which child from the one message the child's recorder posts it at document_start, sent from that
// window (the browser sets its source). The page sees that name too, but naming another window with it comes
// too late: the first to claim a name keeps it, and the child claims it before any script of either page runs.
const children = new Map();
const waiting = new Map();
const deliver = (source, origin, message) => {
  if (!fromChildren || !message || typeof message !== 'object') return;
  try { fromChildren({ data: { ...message, origin }, origin, source }); } catch (err) {}
};
addListener('message', (e) => {
  const data = e.data;
  if (!data || typeof data !== 'object' || typeof data.wapFrame !== 'string' || children.has(data.wapFrame)) return;
  const source = e.source;
  try { if (!source || source === window || source.parent !== window) return; } catch (err) { return; }
  children.set(data.wapFrame, source);
  const queued = waiting.get(data.wapFrame) || [];
  waiting.delete(data.wapFrame);
  const r = recorderOf();
  for (const [origin, message] of queued) if (r) r.deliver(source, origin, message);
}, true);
const fromChild = (name, origin, message) => {
  const r = recorderOf();
  const source = children.get(name);
  if (source) { if (r) r.deliver(source, origin, message); return; }
  if (typeof name !== 'string' || (!waiting.has(name) && waiting.size >= 64)) return;
  if (!waiting.has(name)) waiting.set(name, []);
  const queued = waiting.get(name);
  if (queued.length < 2000) queued.push([origin, message]);
};
window.__wapRecorder = { onHint, deliver };
const target = (e) => { const path = e.composedPath(); return path.length > 0 ? path[0] : e.target; };
realAdd.call(document, HINT + '-input', (e) => {
  const el = target(e);
  for (const handler of inputHandlers) { try { handler({ target: el, isTrusted: false }); } catch (err) {} }
}, true);
for (const kind of ['-sheet-will', '-sheet', '-rule-will', '-rule', '-shadow', '-adopted'])
  realAdd.call(document, HINT + kind, (e) => { const r = recorderOf(); if (r) r.onHint(kind, target(e)); }, true);
${policy}
addListener('pagehide', () => { start(); flush(); }, true);
// The worker asks for everything now (the host is about to close the browser, or the tab navigates): a page not
// yet started starts, and what it holds is the answer.
const connect = () => {
  let p;
  try { p = runtime.connect({ name: 'wap-bridge' }); } catch (err) { return; }
  p.onMessage.addListener((message) => {
    if (!message) return;
    if (message.wapDown) { const d = message.wapDown; fromChild(d.name, d.origin, d.message); return; }
    if (message.wapFlush !== true) return;
    start();
    const events = buffer;
    buffer = [];
    clearTimeout(timer);
    timer = 0;
    try { p.postMessage({ wapFlushed: message.id, events }); } catch (err) {}
  });
  p.onDisconnect.addListener(() => { if (port === p) port = null; if (runtime.id) setTimeout(connect, 0); });
  port = p;
  for (const message of pending.splice(0)) post(message);
};
connect();
})();
`;
