// The recorder extension's service worker (docs/sessions.md, "Recording"):
// batches per tab, posted in order to the recording host with the session's
// token; and the switchboard between frames: a frame's recorder reaches its
// parent's through here, never through the page's window.postMessage.
import { PAGE_FLUSH_MS } from './extension-page.js';

/** The name only a session's egress proxy answers; `.invalid` never resolves anywhere else. */
export const RECORDING_HOST = 'recording.wap.invalid';
export const RECORDING_TOKEN_HEADER = 'x-wap-recording';

export const workerScript = (token: string) => `
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
// Each frame's recorder, by tab: the ports they opened (the way to ask a frame for what it holds, and to hand it
// its child frames' events).
const bridges = new Map();
const portOf = (tab, frame) => {
  for (const port of bridges.get(tab) || []) if (port.sender.frameId === frame) return port;
  return undefined;
};
// A frame's parent, as Chromium knows it (a frame keeps its id across its documents).
const parents = new Map();
const parentOf = async (tab, frame) => {
  const key = tab + ':' + frame;
  if (!parents.has(key)) {
    let parent = -1;
    try { const info = await chrome.webNavigation.getFrame({ tabId: tab, frameId: frame }); if (info) parent = info.parentFrameId; } catch (err) {}
    parents.set(key, parent);
  }
  return parents.get(key);
};
// A frame's events for the frame that records it: its parent's recorder, or the nearest ancestor's that runs.
const up = async (port, message) => {
  const tab = port.sender.tab.id;
  const frame = port.sender.frameId;
  for (let at = await parentOf(tab, frame), hops = 0; at >= 0 && hops < 32; at = await parentOf(tab, at), hops++) {
    const parent = portOf(tab, at);
    if (!parent) continue;
    try { parent.postMessage({ wapDown: { name: message.name, origin: port.sender.origin, message: message.wapUp } }); } catch (err) {}
    return;
  }
};
chrome.runtime.onConnect.addListener((port) => {
  if (port.name !== 'wap-bridge' || !port.sender || !port.sender.tab) return;
  const tab = port.sender.tab.id;
  if (!bridges.has(tab)) bridges.set(tab, new Set());
  bridges.get(tab).add(port);
  // In the order the frame sent them: what it passed up is with its parent before its answer to a flush is.
  let chain = Promise.resolve();
  port.onMessage.addListener((message) => {
    if (!message) return;
    if (message.wapUp) { chain = chain.then(() => up(port, message)).catch(() => {}); return; }
    const answer = answers.get(message.wapFlushed);
    if (answer) chain = chain.then(() => answer(message.events));
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
// How deep each frame of a tab is: frames are asked deepest first, so what a frame hands up reaches the frame
// recording it before that one answers.
const depths = async (tab) => {
  const depth = new Map();
  try {
    const frames = await chrome.webNavigation.getAllFrames({ tabId: tab });
    const parent = new Map((frames || []).map((f) => [f.frameId, f.parentFrameId]));
    for (const id of parent.keys()) {
      let d = 0;
      for (let at = id; parent.has(at) && parent.get(at) >= 0 && d < 32; at = parent.get(at)) d++;
      depth.set(id, d);
    }
  } catch (err) {}
  return depth;
};
// The frames of a tab (only its top document's, with \`top\`) hand over what they hold.
const askTab = async (tab, top) => {
  const ports = [...(bridges.get(tab) || [])].filter((port) => !top || port.sender.frameId === 0);
  const depth = top ? new Map() : await depths(tab);
  const levels = [...new Set(ports.map((port) => depth.get(port.sender.frameId) ?? 32))].sort((a, b) => b - a);
  for (const level of levels)
    await Promise.all(ports.filter((port) => (depth.get(port.sender.frameId) ?? 32) === level)
      .map(async (port) => { const events = await ask(port); if (events.length > 0) add(tab, events); }));
};
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
// Forget a closed tab's target and frames (a pool browser opens a tab per render, hundreds in its life).
chrome.tabs.onRemoved.addListener((tab) => {
  targets.delete(tab);
  for (const key of parents.keys()) if (key.startsWith(tab + ':')) parents.delete(key);
});
chrome.runtime.onMessage.addListener((message, sender) => {
  if (!message || !Array.isArray(message.events) || !sender.tab) return;
  add(sender.tab.id, message.events);
  if (!timer) timer = setTimeout(flush, ${PAGE_FLUSH_MS});
});
`;
