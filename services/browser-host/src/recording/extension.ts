// The recorder extension (docs/sessions.md): written into each session
// browser's user-data dir and loaded at launch. rrweb records every frame from
// document_start in the page's main world; the events reach the extension's
// service worker through the isolated world, under an event name page scripts
// never learn, and leave through the session's own egress proxy, which alone
// answers the recording host.
import { createHash, randomBytes } from 'node:crypto';
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import path from 'node:path';

/** The name only a session's egress proxy answers; `.invalid` never resolves anywhere else. */
export const RECORDING_HOST = 'recording.wap.invalid';
export const RECORDING_TOKEN_HEADER = 'x-wap-recording';
/** Pages hand their events to the extension at least this often; its worker posts them as often. */
export const PAGE_FLUSH_MS = 250;

const resolve = createRequire(__filename).resolve;
let rrwebSource: string | undefined;
/** rrweb's record build for browsers, read once. */
function rrweb(): string {
  rrwebSource ??= readFileSync(path.join(path.dirname(resolve('@rrweb/record')), 'record.umd.min.cjs'), 'utf8').replace(
    /\/\/# sourceMappingURL=.*$/m,
    '',
  );
  return rrwebSource;
}

/** Chromium's id for an unpacked extension: the first 128 bits of sha256(path), as letters a-p. */
export const unpackedExtensionId = (dir: string): string =>
  [...createHash('sha256').update(dir).digest('hex').slice(0, 32)]
    .map((c) => String.fromCharCode(97 + Number.parseInt(c, 16)))
    .join('');

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
const startPolicy = (whenAsked: boolean) => `
const observeWith = MutationObserver;
const hasFrames = () => document.querySelector('iframe, frame, object, embed') !== null;
if (window !== window.top) {
  if (document.readyState === 'loading') addListener('DOMContentLoaded', start, { once: true }); else start();
} else {
  const later = () => setTimer(start, 0);
  const onReady = () => {
    if (hasFrames()) return start();
    const watch = new observeWith(() => { if (hasFrames()) { watch.disconnect(); start(); } });
    watch.observe(document, { childList: true, subtree: true });
    if (${whenAsked}) return;
    const stop = () => { watch.disconnect(); start(); };
    addListener('load', () => { watch.disconnect(); later(); }, { once: true });
    setTimer(stop, 1000);
  };
  if (document.readyState === 'loading') addListener('DOMContentLoaded', onReady, { once: true });
  else if (${whenAsked} || document.readyState === 'interactive') onReady();
  else later();
}
`;

/**
 * The main world: rrweb, its events batched and handed to the bridge as a
 * DOM event under a name only the two scripts know. A DOM event is delivered
 * at once, in the same task, so the last batch of a page that is going away
 * (pagehide) still reaches the bridge; a MessagePort's would not. The
 * functions used are taken at document_start, before page scripts can
 * replace them.
 */
const recorderScript = (nonce: string, policy: string) => `(() => {
const module = { exports: {} }; const exports = module.exports; const define = undefined;
${rrweb()}
const rrweb = module.exports;
const EVENT = ${JSON.stringify(nonce)};
const setTimer = setTimeout;
const stringify = JSON.stringify;
const Custom = CustomEvent;
const dispatch = EventTarget.prototype.dispatchEvent;
const addListener = window.addEventListener.bind(window);
let buffer = [];
let timer = 0;
const flush = () => {
  timer = 0;
  if (buffer.length === 0) return;
  const batch = buffer;
  buffer = [];
  dispatch.call(document, new Custom(EVENT, { detail: stringify(batch) }));
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
      emit(event) {
        buffer.push(event);
        if (buffer.length >= 200) flush(); else if (!timer) timer = setTimer(flush, ${PAGE_FLUSH_MS});
      },
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
${policy}
addListener('pagehide', () => { start(); flush(); }, true);
// The bridge asks for everything now (the host is about to close the browser): a page not yet started starts.
addListener(EVENT + '-flush', () => { start(); flush(); }, true);
})();
`;

/**
 * The isolated world: takes the main world's batches as they come and sends
 * them to the worker; and, asked by the worker to flush, has the main world
 * hand over what it holds at once (a DOM event is synchronous) and answers
 * it with those events, so nothing is in flight when the browser closes.
 * The worker asks over a port the bridge opens: Chromium delivers no
 * `tabs.sendMessage` to the pages of a browser context made over CDP (a
 * client's `newContext()`, a render's), but a port a page opened works
 * both ways. A port the worker's restart closed is opened again.
 */
const bridgeScript = (nonce: string) => `(() => {
let collecting = null;
document.addEventListener(${JSON.stringify(nonce)}, (e) => {
  e.stopImmediatePropagation();
  if (typeof e.detail !== 'string') return;
  try {
    const events = JSON.parse(e.detail);
    if (collecting) { for (const event of events) collecting.push(event); return; }
    chrome.runtime.sendMessage({ events }).catch(() => {});
  } catch (err) {}
}, true);
const connect = () => {
  let port;
  try { port = chrome.runtime.connect({ name: 'wap-bridge' }); } catch (err) { return; }
  port.onMessage.addListener((message) => {
    if (!message || message.wapFlush !== true) return;
    collecting = [];
    try { document.dispatchEvent(new CustomEvent(${JSON.stringify(`${nonce}-flush`)})); } catch (err) {}
    const events = collecting;
    collecting = null;
    try { port.postMessage({ wapFlushed: message.id, events }); } catch (err) {}
  });
  port.onDisconnect.addListener(() => { if (chrome.runtime && chrome.runtime.id) setTimeout(connect, 0); });
};
connect();
})();
`;

/** The service worker: batches per tab, and posts in order to the recording host with the session's token. */
const workerScript = (token: string) => `
// Chromium stops an extension's worker idle for 30 s, and a message a page sends as it goes away (pagehide) is
// lost while the worker starts again; an extension call every 20 s keeps it running for the browser's life.
setInterval(() => { chrome.runtime.getPlatformInfo().catch(() => {}); }, 20000);
const URL = 'http://${RECORDING_HOST}/chunk';
const TOKEN = ${JSON.stringify(token)};
const queued = new Map();
// Chromium's tab ids to DevTools target ids, which the host numbers tabs by (the network log and screencast see targets).
const targets = new Map();
const targetOf = async (tab) => {
  if (!targets.has(tab)) {
    try { for (const t of await chrome.debugger.getTargets()) if (t.tabId !== undefined) targets.set(t.tabId, t.id); } catch (err) {}
  }
  return targets.get(tab);
};
let timer = null;
let sending = Promise.resolve();
const flush = () => {
  timer = null;
  for (const [tab, events] of queued) {
    sending = sending.then(async () => {
      const body = JSON.stringify({ tab, target: await targetOf(tab), events });
      await fetch(URL, { method: 'POST', headers: { 'content-type': 'application/json', '${RECORDING_TOKEN_HEADER}': TOKEN }, body })
        .catch(() => {});
    });
  }
  queued.clear();
};
const add = (tab, events) => {
  if (!queued.has(tab)) queued.set(tab, []);
  const list = queued.get(tab);
  for (const event of events) list.push(event);
};
// Forget a closed tab's target (a pool browser opens a tab per render, hundreds in its life).
chrome.tabs.onRemoved.addListener((tab) => { targets.delete(tab); });
// Each frame's bridge, by tab: the ports they opened (the way to ask a frame for what it holds).
const bridges = new Map();
chrome.runtime.onConnect.addListener((port) => {
  if (port.name !== 'wap-bridge' || !port.sender || !port.sender.tab) return;
  const tab = port.sender.tab.id;
  if (!bridges.has(tab)) bridges.set(tab, new Set());
  bridges.get(tab).add(port);
  port.onMessage.addListener((message) => {
    const answer = message && answers.get(message.wapFlushed);
    if (answer) answer(message.events);
  });
  port.onDisconnect.addListener(() => {
    const ports = bridges.get(tab);
    if (ports) { ports.delete(port); if (ports.size === 0) bridges.delete(tab); }
  });
});
let asks = 0;
const answers = new Map();
// One frame's events, asked over its port; none when it went meanwhile.
const ask = (port) => new Promise((resolve) => {
  const id = ++asks;
  const done = (events) => { if (answers.delete(id)) resolve(Array.isArray(events) ? events : []); };
  answers.set(id, done);
  port.onDisconnect.addListener(() => done([]));
  try { port.postMessage({ wapFlush: true, id }); } catch (err) { done([]); }
});
// The frames of a tab (only its top document's, with \`top\`) hand over what they hold.
const askTab = (tab, top) => Promise.all([...(bridges.get(tab) || [])]
  .filter((port) => !top || port.sender.frameId === 0)
  .map(async (port) => { const events = await ask(port); if (events.length > 0) add(tab, events); }));
// The tabs whose DevTools target ids are in \`only\`; every tab without it.
const tabsOf = async (only) => {
  if (!Array.isArray(only)) return [...bridges.keys()];
  const ids = [];
  try { for (const t of await chrome.debugger.getTargets()) if (t.tabId !== undefined && only.includes(t.id)) ids.push(t.tabId); } catch (err) {}
  return ids;
};
// Every frame of those tabs hands over what it holds, answering with it (three seconds at most: a few
// milliseconds on a quiet machine).
const collect = async (only) => {
  const tabs = await tabsOf(only);
  await Promise.all(tabs.map((tab) => askTab(tab, false)));
};
// The host calls this before it closes the browser (or, with target ids, a render's context), so the
// last events are not lost. Only the tabs named are asked: another render's page, still loading, is not
// made to start recording early.
self.wapFlush = async (only) => {
  await Promise.race([collect(only).catch(() => {}), new Promise((r) => setTimeout(r, 3000))]);
  clearTimeout(timer);
  flush();
  await sending;
};
// A tab about to navigate: its document hands over what it holds while it is still the current one
// (what it sends as it unloads, on pagehide, can be dropped when the next page is another site's).
chrome.webNavigation.onBeforeNavigate.addListener((details) => {
  if (details.frameId !== 0) return;
  askTab(details.tabId, true).then(() => {
    if (queued.has(details.tabId) && !timer) timer = setTimeout(flush, ${PAGE_FLUSH_MS});
  });
});
chrome.runtime.onMessage.addListener((message, sender) => {
  if (!message || !Array.isArray(message.events) || !sender.tab) return;
  add(sender.tab.id, message.events);
  if (!timer) timer = setTimeout(flush, ${PAGE_FLUSH_MS});
});
`;

export interface RecorderExtension {
  /** Where it was written; Chromium loads it with --load-extension. */
  dir: string;
  /** What its service worker sends with every chunk: only this browser's extension knows it. */
  token: string;
  /** Chromium's id for it: its worker's URL is chrome-extension://<id>/worker.js. */
  id: string;
  /** The launch flags that load it (and nothing else). */
  args: string[];
}

/**
 * Writes the extension into `userDataDir`. It runs in every browser context
 * once the preferences allow it there (`writeChromiumPreferences` with its
 * id: a client's `newContext()` is an off-the-record profile, where
 * extensions are off unless the profile's preferences allow them).
 * `startWhenAsked`: top documents start recording when the host asks
 * (startPolicy: a pool browser's renders).
 */
export function writeRecorderExtension(
  userDataDir: string,
  { startWhenAsked = false }: { startWhenAsked?: boolean } = {},
): RecorderExtension {
  const dir = path.join(userDataDir, 'wap-recorder');
  const nonce = `wap${randomBytes(16).toString('hex')}`;
  const token = randomBytes(32).toString('base64url');
  const frames = {
    all_frames: true,
    match_about_blank: true,
    match_origin_as_fallback: true,
    run_at: 'document_start',
  };
  const manifest = {
    manifest_version: 3,
    name: 'wap-recorder',
    version: '1.0',
    incognito: 'spanning',
    content_scripts: [
      { matches: ['<all_urls>'], js: ['bridge.js'], ...frames },
      { matches: ['<all_urls>'], js: ['recorder.js'], world: 'MAIN', ...frames },
    ],
    background: { service_worker: 'worker.js' },
    // The recording host alone: the worker reads no page, no file:// and no other site (content scripts need none).
    host_permissions: [`http://${RECORDING_HOST}/*`],
    // chrome.debugger.getTargets only: a tab's target id. Nothing attaches. webNavigation: a tab about to navigate.
    permissions: ['debugger', 'webNavigation'],
  };
  mkdirSync(dir, { recursive: true });
  writeFileSync(path.join(dir, 'manifest.json'), JSON.stringify(manifest));
  writeFileSync(path.join(dir, 'recorder.js'), recorderScript(nonce, startPolicy(startWhenAsked)));
  writeFileSync(path.join(dir, 'bridge.js'), bridgeScript(nonce));
  writeFileSync(path.join(dir, 'worker.js'), workerScript(token));
  const id = unpackedExtensionId(dir);
  return { dir, token, id, args: [`--disable-extensions-except=${dir}`, `--load-extension=${dir}`] };
}
