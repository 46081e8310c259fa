// The recorder extension's scripts in each frame (docs/sessions.md,
// "Recording"; why: docs/decisions/0018-recorder-forgery.md; what each part
// costs the page's load: docs/decisions/0034-recorder-off-the-page-load.md).
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
// What no DOM mutation shows is found by looking, from the isolated world too:
// a value a script set on a form field, rules inserted into a stylesheet
// (CSS-in-JS), a shadow root attached to an element already recorded,
// adopted stylesheets. Each flush (every PAGE_FLUSH_MS, and when the host
// asks) walks the frame's documents and shadow roots and compares them with
// what was last seen. Nothing runs in the page's world: no patched setter or
// method, no global, nothing a page can see or a client can read an event
// name from.
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
  // When it finds builtins patched, rrweb takes clean ones from an iframe it appends to the page's body, and its test
  // finds Element patched every time (it reads querySelector as an accessor): an iframe in every document, which the
  // page's own MutationObserver saw come and go, and about 40 ms of the snapshot's task (a frame made, loaded and
  // given the recorder's script). The isolated world's builtins are out of the page's reach: they are the clean ones.
  replace(/if\([\w$]+&&[\w$]+&&![\w$]+\(\)\)(return [\w$]+\[[\w$]+\]=[\w$]+\.prototype,[\w$]+\.prototype;)/g, '$1', 1);
  // The isolated world has no custom element registry (window.customElements is null there): rrweb's test of each
  // element threw and caught a TypeError, about 55 µs an element, most of a snapshot's time. A defined custom
  // element is an HTML element whose name has a hyphen (no built-in one has) and that matches :defined.
  replace(
    /try\{customElements\.get\(([\w$]+)\)&&\(([\w$]+)=!0\)\}catch\(([\w$]+)\)\{\}(return\{type:[\w$]+\.Element,tagName:\1,attributes:[\w$]+,childNodes:\[\],isSVG:[\w$]+\(([\w$]+)\))/g,
    'try{$1.includes("-")&&$5.namespaceURI==="http://www.w3.org/1999/xhtml"&&$5.matches(":defined")&&($2=!0)}catch($3){}$4',
    1,
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
 * When a frame starts recording (rrweb's module, its full snapshot and
 * observers, the snapshot sent). A frame inside another starts at
 * DOMContentLoaded: it passes its events to its parent's recorder, which must
 * already listen. A top document starts after its load event, so its
 * snapshot does not hold up the page load (measured 2026-11-24: a 50-page
 * walk, 36 ms a page unrecorded, 57 ms snapshotting at DOMContentLoaded,
 * 41-46 ms after load), or a second after DOMContentLoaded if load is slow
 * to come, each part in a task of its own (startSoon); but at once when it
 * has a frame or gets one (a frame's recorder reports to it), and before it
 * goes away (pagehide). Whatever changed before the start is in the
 * snapshot.
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
  const onReady = () => {
    if (hasFrames()) return start();
    const watch = new MutationObserver(() => { if (hasFrames()) { watch.disconnect(); start(); } });
    watch.observe(document, { childList: true, subtree: true });
    if (${whenAsked}) return;
    const stop = () => { watch.disconnect(); startSoon(); };
    addListener('load', () => { watch.disconnect(); startSoon(); }, { once: true });
    setTimeout(stop, 1000);
  };
  if (document.readyState === 'loading') addListener('DOMContentLoaded', onReady, { once: true });
  else if (${whenAsked} || document.readyState === 'interactive') onReady();
  else startSoon();
}
`;

/**
 * The isolated world's part: rrweb, its events batched and sent to the
 * extension's worker, the looks at what changed without a mutation, and
 * the frames' channel. Nothing in
 * it is reachable from the page, and nothing the page sends it is taken for
 * an event: a look reads the DOM, a child frame's events come from
 * the worker, which names the frame that sent them.
 */
export const recorderScript = (policy: string) => `(() => {
const runtime = chrome.runtime;
const realAdd = EventTarget.prototype.addEventListener;
const addListener = (type, fn, options) => realAdd.call(window, type, fn, options);
// rrweb's input listener on this frame's document (its own rrweb's, or the one of the frame recording this one): a
// value a script set, once seen, has it read that value, as a user's input event would.
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
// rrweb, run when the frame starts recording rather than at document_start: its module's own start-up (a few ms a
// frame) comes after the page's load, as the snapshot does. Its code is compiled once a renderer (V8 keeps the
// script compiled: the same text in the same world), so what each frame pays is running it.
let rrweb = null;
let mirror = null;
const loadRrweb = () => {
  const module = { exports: {} }; const exports = module.exports; const define = undefined;
${rrwebForExtension()}
  rrweb = module.exports;
  mirror = rrweb.record.mirror;
};
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
// The snapshot and what later looks compare with it, taken in one task: a value a script set between the two would
// be in neither.
const record = () => {
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
  // A stylesheet added to the document from now on is known as rrweb records it, so rules a script inserts before
  // the next look are compared with what the recording holds. (Not from document_start: before its recorder
  // started, rrweb has numbered no node of the document, and the page's parse would feed this observer for nothing.)
  new MutationObserver((records) => {
    const r = recorderOf();
    if (!r) return;
    for (const change of records)
      for (const node of change.addedNodes) if (node.nodeName === 'STYLE' || node.nodeName === 'LINK') r.onSeen('added', node);
  }).observe(document, { childList: true, subtree: true });
  look();
};
// A start's three parts: rrweb's module, the snapshot, sending it. The page's first snapshot leaves at once: a page
// navigated away soon after (another site's page unloads in a process being swapped out, where a last message may
// be dropped) is still recorded.
const parts = [() => { try { loadRrweb(); } catch (err) {} }, record, flush];
let done = 0;
const start = () => { while (done < parts.length) parts[done++](); };
// A start the page's load asked for runs its parts in tasks of their own, so the page's own tasks (an input, its
// scripts' work after load) run between them rather than after the whole.
const startSoon = () => {
  const next = () => {
    if (done < parts.length) parts[done++]();
    if (done < parts.length) setTimeout(next, 0);
  };
  setTimeout(next, 0);
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
// What this frame does with what a look found on a node of its own document or of a same-origin frame it
// records: a new snapshot for changed adopted stylesheets (\`adopted\`, on their document or host) or a shadow
// root whose content rrweb has not numbered (\`shadow\`, on its host); a stylesheet's rules compared with what
// the replay holds of them (\`sheet\`, on its owner), known from when rrweb recorded its owner (\`added\`).
const onSeen = (kind, node) => {
  if (!started || !mirror || !node) return;
  if (kind === 'adopted') {
    if (mirror.getId(node) !== -1) checkout();
    return;
  }
  if (kind === 'shadow') {
    const root = rootOf(node);
    if (mirror.getId(node) !== -1 && root && root.firstChild && mirror.getId(root.firstChild) === -1) checkout();
    return;
  }
  const sheet = node.sheet;
  if (!sheet) return;
  if (kind === 'added' || !sheets.has(sheet)) { known(sheet); return; }
  dirty.set(sheet, true);
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
window.__wapRecorder = { onSeen, deliver };
// The look. A form field whose value or check differs from the last seen goes to rrweb's input handler; a shadow
// root whose first node rrweb has not numbered, or adopted stylesheets that changed, to a new snapshot; every
// stylesheet, to the comparison of its rules. A field seen for the first time after the first look is handed over
// too (rrweb drops a value it already holds).
const FIELDS = new Set(['INPUT', 'TEXTAREA', 'SELECT']);
const seenValues = new WeakMap();
const seenAdopted = new WeakMap();
const seenShadow = new WeakMap();
// The elements that can host a shadow root (the DOM standard's attachShadow, which declarative shadow roots follow too),
// besides custom elements: asking the extension's API of every other element, at every look, cost as much as the
// rest of the look (measured on a page of 6,400 elements).
const HOSTS = new Set(['article', 'aside', 'blockquote', 'body', 'div', 'footer', 'h1', 'h2', 'h3', 'h4', 'h5', 'h6', 'header', 'main', 'nav', 'p', 'section', 'span']);
const rootOf = (el) => {
  const name = el.localName;
  if (!HOSTS.has(name) && !name.includes('-')) return null;
  try { return chrome.dom.openOrClosedShadowRoot(el) || null; } catch (err) { return el.shadowRoot || null; }
};
const valueOf = (el) => (el.type === 'checkbox' || el.type === 'radio' ? el.checked : el.value);
let looks = 0;
const look = () => {
  const r = recorderOf();
  if (!r) return;
  const first = looks++ === 0;
  const roots = [document];
  for (let i = 0; i < roots.length && i < 10000; i++) {
    const root = roots[i];
    const host = root === document ? document : root.host;
    try {
      // Adopted stylesheets by identity and text: a constructed sheet's rules change with no owner to compare.
      const adopted = Array.from(root.adoptedStyleSheets || []);
      const text = adopted.map((sheet) => Array.from(sheet.cssRules, textOf).join('')).join('\\n');
      const was = seenAdopted.get(root);
      seenAdopted.set(root, { adopted, text });
      if (was && (text !== was.text || was.adopted.length !== adopted.length || was.adopted.some((sheet, j) => sheet !== adopted[j])))
        r.onSeen('adopted', host);
      for (const sheet of Array.from(root.styleSheets || [])) if (sheet.ownerNode) r.onSeen('sheet', sheet.ownerNode);
    } catch (err) {}
    const walker = document.createTreeWalker(root, NodeFilter.SHOW_ELEMENT);
    for (let el = walker.nextNode(); el; el = walker.nextNode()) {
      const shadow = rootOf(el);
      if (shadow) {
        roots.push(shadow);
        const head = shadow.firstChild;
        if (head && seenShadow.get(shadow) !== head) { seenShadow.set(shadow, head); r.onSeen('shadow', el); }
      }
      if (!FIELDS.has(el.tagName)) continue;
      const value = valueOf(el);
      const known = seenValues.has(el);
      if (known && seenValues.get(el) === value) continue;
      seenValues.set(el, value);
      if (!known && first) continue;
      for (const handler of inputHandlers) { try { handler({ target: el, isTrusted: false }); } catch (err) {} }
    }
  }
};
setInterval(() => { if (started) look(); }, ${PAGE_FLUSH_MS});
${policy}
addListener('pagehide', () => { start(); look(); flush(); }, true);
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
    look();
    compare();
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
