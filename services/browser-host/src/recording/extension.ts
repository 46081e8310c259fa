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
 */
const START_POLICY = `
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
    const stop = () => { watch.disconnect(); start(); };
    addListener('load', () => { watch.disconnect(); later(); }, { once: true });
    setTimer(stop, 1000);
  };
  if (document.readyState === 'loading') addListener('DOMContentLoaded', onReady, { once: true });
  else if (document.readyState === 'interactive') onReady();
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
const recorderScript = (nonce: string) => `(() => {
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
${START_POLICY}
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
chrome.runtime.onMessage.addListener((message, sender, reply) => {
  if (!message || message.wapFlush !== true) return;
  collecting = [];
  try { document.dispatchEvent(new CustomEvent(${JSON.stringify(`${nonce}-flush`)})); } catch (err) {}
  const events = collecting;
  collecting = null;
  reply({ events });
});
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
// Every frame of every tab hands over what it holds, answering with it (three seconds at most: a few
// milliseconds on a quiet machine).
const collect = async () => {
  const tabs = await chrome.tabs.query({});
  await Promise.all(tabs.map(async (tab) => {
    const frames = (await chrome.webNavigation.getAllFrames({ tabId: tab.id }).catch(() => null)) || [{ frameId: 0 }];
    await Promise.all(frames.map(async (frame) => {
      const answer = await chrome.tabs.sendMessage(tab.id, { wapFlush: true }, { frameId: frame.frameId }).catch(() => null);
      if (answer && Array.isArray(answer.events) && answer.events.length > 0) add(tab.id, answer.events);
    }));
  }));
};
// The host calls this before it closes the browser, so the last events are not lost.
self.wapFlush = async () => {
  await Promise.race([collect().catch(() => {}), new Promise((r) => setTimeout(r, 3000))]);
  clearTimeout(timer);
  flush();
  await sending;
};
// A tab about to navigate: its document hands over what it holds while it is still the current one
// (what it sends as it unloads, on pagehide, can be dropped when the next page is another site's).
chrome.webNavigation.onBeforeNavigate.addListener((details) => {
  if (details.frameId !== 0) return;
  chrome.tabs.sendMessage(details.tabId, { wapFlush: true }, { frameId: 0 })
    .then((answer) => {
      if (!answer || !Array.isArray(answer.events) || answer.events.length === 0) return;
      add(details.tabId, answer.events);
      if (!timer) timer = setTimeout(flush, ${PAGE_FLUSH_MS});
    })
    .catch(() => {});
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
 */
export function writeRecorderExtension(userDataDir: string): RecorderExtension {
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
    // chrome.debugger.getTargets only: a tab's target id. Nothing attaches. webNavigation: a tab's frames, to flush each.
    permissions: ['debugger', 'webNavigation'],
  };
  mkdirSync(dir, { recursive: true });
  writeFileSync(path.join(dir, 'manifest.json'), JSON.stringify(manifest));
  writeFileSync(path.join(dir, 'recorder.js'), recorderScript(nonce));
  writeFileSync(path.join(dir, 'bridge.js'), bridgeScript(nonce));
  writeFileSync(path.join(dir, 'worker.js'), workerScript(token));
  const id = unpackedExtensionId(dir);
  return { dir, token, id, args: [`--disable-extensions-except=${dir}`, `--load-extension=${dir}`] };
}
