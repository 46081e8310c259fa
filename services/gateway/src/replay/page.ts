// The replay page and the exported bundle (docs/sessions.md, "Serving"): the
// same player, rrweb-player served from our own files, never a CDN. The page
// fetches the session's events from its signed link; the bundle carries them,
// the player and its styles inline, and plays from file:// with no network:
// its Content-Security-Policy lets nothing load from anywhere.
import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import path from 'node:path';
import { escapeHtml } from '../http/html.js';
import type { ReplayData } from './recording.js';

const resolve = createRequire(__filename).resolve;
let assets: { script: string; style: string } | undefined;

/** rrweb-player's browser build (a global `rrwebPlayer`) and its styles, read once. */
export function playerAssets(): { script: string; style: string } {
  if (!assets) {
    // The package exports its CommonJS build from dist/, where the browser builds sit beside it.
    const dist = path.dirname(resolve('rrweb-player'));
    assets = {
      script: readFileSync(path.join(dist, 'rrweb-player.umd.min.cjs'), 'utf8')
        .replace(/\/\/# sourceMappingURL=.*$/m, '')
        // Inline in the bundle: nothing in it may close its <script> element.
        .replace(/<\/script/gi, '<\\/script'),
      style: readFileSync(path.join(dist, 'style.min.css'), 'utf8').replace(/\/\*# sourceMappingURL=.*?\*\//g, ''),
    };
  }
  return assets;
}

/** JSON that is safe inside a <script> element: no `<` to close it or open a comment. */
export const scriptJson = (value: unknown) => JSON.stringify(value).replace(/</g, '\\u003c');

const PAGE_STYLE = `
body { margin: 0; font: 14px/1.4 system-ui, sans-serif; background: #f4f5f7; color: #1d2330; }
header { padding: 12px 20px; background: #1d2330; color: #fff; display: flex; gap: 16px; align-items: baseline; flex-wrap: wrap; }
header h1 { font-size: 16px; margin: 0; }
header span { opacity: .75; }
main { display: grid; grid-template-columns: minmax(0, 1fr) 300px; gap: 16px; padding: 16px 20px; }
#player { min-height: 200px; }
aside { background: #fff; border-radius: 6px; padding: 12px; overflow: auto; max-height: 80vh; }
aside h2 { font-size: 13px; margin: 0 0 8px; text-transform: uppercase; letter-spacing: .04em; opacity: .7; }
aside ol { margin: 0; padding-left: 20px; }
aside li { margin: 4px 0; word-break: break-all; }
aside button { all: unset; display: block; cursor: pointer; color: #2456c7; }
aside button:focus-visible { outline: 2px solid #2456c7; outline-offset: 2px; }
#tabs { margin-bottom: 12px; }
#status { padding: 20px; }
#live { background: #fff; border-radius: 6px; padding: 12px; margin-bottom: 16px; }
#live h2 { font-size: 13px; margin: 0 0 8px; }
#live img, #screen { display: block; max-width: 100%; border: 1px solid #d8dbe2; }
#screen-switch { display: inline-block; margin: 0 0 8px; }
aside small { opacity: .7; }
/* The rules above that set display would otherwise show what the script hides. */
[hidden] { display: none !important; }
/* A narrow frame (a phone): the timeline goes under the player rather than squeezing it. */
@media (max-width: 720px) {
  main { grid-template-columns: minmax(0, 1fr); padding: 12px; }
  aside { max-height: none; }
}
`;

/**
 * The player's boot: takes the replay data, shows the first tab, lists each
 * tab's pages and requests as a timeline that seeks the player, shows the
 * screencast frame of the player's moment on demand, and leaves
 * `window.wapReplay` for scripts (and tests): the player, `toEnd()`, and
 * `screen()` (the frame shown). `wapLive` opens the live view of a running
 * session; `window.wapLive` says its status and how many frames came.
 */
const BOOT = `
function wapLive(url) {
  var box = document.getElementById('live');
  var img = document.getElementById('live-frame');
  var note = document.getElementById('live-status');
  var latest = {};
  var state = window.wapLive = { status: 'connecting', frames: 0, tab: 0 };
  var source = new EventSource(url);
  source.addEventListener('status', function (e) {
    state.status = JSON.parse(e.data).status;
    if (state.status === 'live') { box.hidden = false; note.textContent = 'running now'; return; }
    source.close();
    if (!box.hidden) note.textContent = 'ended: reload the page to replay all of it';
  });
  source.addEventListener('frame', function (e) {
    var f = JSON.parse(e.data);
    if (latest[f.tab] && latest[f.tab].at > f.at) return;
    latest[f.tab] = f;
    img.src = 'data:image/jpeg;base64,' + f.data;
    img.alt = 'Tab ' + f.tab + ' at ' + new Date(f.at).toISOString();
    state.frames++;
    state.tab = f.tab;
  });
}
function wapPlay(data) {
  var status = document.getElementById('status');
  if (!data.tabs.length) { status.textContent = 'Nothing was recorded in this session.'; return; }
  status.remove();
  var tabs = document.getElementById('tabs');
  var list = document.getElementById('pages');
  var requests = document.getElementById('requests');
  var target = document.getElementById('player');
  var screenSwitch = document.getElementById('screen-switch');
  var screenToggle = document.getElementById('screen-toggle');
  var screen = document.getElementById('screen');
  var player = null;
  function entry(into, text, title, at, start) {
    var item = document.createElement('li');
    var go = document.createElement('button');
    go.textContent = text;
    go.title = '+' + ((at - start) / 1000).toFixed(1) + ' s' + (title ? ', ' + title : '');
    go.onclick = function () { player.goto(Math.max(0, at - start), false); };
    item.appendChild(go);
    into.appendChild(item);
  }
  function show(index) {
    var tab = data.tabs[index];
    target.innerHTML = '';
    screen.hidden = true;
    screenSwitch.hidden = tab.frames.length === 0;
    screenToggle.checked = false;
    var width = Math.max(280, target.clientWidth || 960);
    // The player fits the window's height (the console frames this page), so its controls (80 px) stay in view.
    var room = window.innerHeight - target.getBoundingClientRect().top - 80 - 16;
    var height = Math.max(180, Math.min(Math.round(width * 0.6), room));
    var Player = rrwebPlayer.Player || rrwebPlayer.default || rrwebPlayer;
    player = new Player({ target: target, props: { events: tab.events, width: width, height: height, autoPlay: false, skipInactive: true, showController: true } });
    // rrweb-player draws its play and full-screen buttons as bare icons and leaves its skip switch
    // unlabelled: name them, for a screen reader and for the console's accessibility check.
    var buttons = target.querySelectorAll('.rr-controller__btns > button');
    buttons.forEach(function (b, i) {
      if (!b.textContent.trim()) b.setAttribute('aria-label', i === 0 ? 'Play or pause' : 'Full screen');
    });
    var skip = target.querySelector('#skip');
    if (skip) skip.setAttribute('aria-label', 'Skip inactive periods');
    var start = tab.events.length ? tab.events[0].timestamp : 0;
    list.innerHTML = '';
    tab.pages.forEach(function (page) { entry(list, page.url, '', page.at, start); });
    requests.innerHTML = '';
    tab.requests.forEach(function (r) {
      entry(requests, r.method + ' ' + (r.status || 'failed') + ' ' + r.url, r.type + ', ' + r.durationMs + ' ms', r.at, start);
    });
    var now = 0;
    function frameAt(offset) {
      var shown = null;
      for (var i = 0; i < tab.frames.length && tab.frames[i].at - start <= offset; i++) shown = tab.frames[i];
      return shown || tab.frames[0] || null;
    }
    function paint() {
      if (screen.hidden) return;
      var f = frameAt(now);
      if (f) screen.src = 'data:image/jpeg;base64,' + f.data;
    }
    player.addEventListener('ui-update-current-time', function (e) { now = e.payload; paint(); });
    screenToggle.onchange = function () { screen.hidden = !screenToggle.checked; paint(); };
    window.wapReplay = {
      player: player,
      tab: tab.tab,
      toEnd: function () { var r = player.getReplayer(); r.pause(r.getMetaData().totalTime); now = r.getMetaData().totalTime; paint(); },
      screen: function () { return screen.hidden ? null : screen.src; },
    };
  }
  if (data.tabs.length > 1) {
    data.tabs.forEach(function (tab, index) {
      var option = document.createElement('option');
      option.value = String(index);
      option.textContent = 'Tab ' + tab.tab + ' (' + tab.pages.length + ' pages)';
      tabs.appendChild(option);
    });
    tabs.onchange = function () { show(Number(tabs.value)); };
  } else tabs.remove();
  show(0);
}
`;

interface PageParts {
  sessionId: string;
  /** Linked assets and events fetched from `eventsUrl` (the replay page), or all inline (the bundle). */
  mode:
    | { kind: 'linked'; eventsUrl: string; liveUrl?: string; assetsBase: string; nonce: string }
    | { kind: 'inline'; data: ReplayData };
}

/**
 * The replay page's policy: scripts and styles only its own; the recorded page's images and fonts may load;
 * only the gateway's own pages (the console) may frame it: a signed link in another site's frame would let that
 * page dress the replay up or click through it.
 */
export const replayPagePolicy = (nonce: string) =>
  [
    "default-src 'none'",
    `script-src 'self' 'nonce-${nonce}'`,
    "style-src 'self' 'unsafe-inline' https:",
    "img-src 'self' data: blob: https:",
    "font-src 'self' data: https:",
    "connect-src 'self'",
    "frame-src 'self' about: blob:",
    "base-uri 'none'",
    "form-action 'none'",
    "frame-ancestors 'self'",
  ].join('; ');

/** The bundle's policy: nothing loads from anywhere, so it plays the same with networking off. */
const BUNDLE_POLICY = [
  "default-src 'none'",
  "script-src 'unsafe-inline'",
  "style-src 'unsafe-inline'",
  'img-src data: blob:',
  'font-src data:',
  "frame-src 'self' about: blob:",
  "base-uri 'none'",
  "form-action 'none'",
].join('; ');

export function replayHtml({ sessionId, mode }: PageParts): string {
  const title = `Session ${escapeHtml(sessionId)}`;
  const head =
    mode.kind === 'linked'
      ? `<link rel="stylesheet" href="${mode.assetsBase}/player.css">
<script src="${mode.assetsBase}/player.js"></script>`
      : `<meta http-equiv="Content-Security-Policy" content="${BUNDLE_POLICY}">
<style>${playerAssets().style}</style>
<script>${playerAssets().script}</script>`;
  const start =
    mode.kind === 'linked'
      ? `<script nonce="${mode.nonce}">${BOOT}
${mode.liveUrl ? `wapLive(${scriptJson(mode.liveUrl)});` : ''}
fetch(${scriptJson(mode.eventsUrl)}).then(function (r) { if (!r.ok) throw new Error('HTTP ' + r.status); return r.json(); })
  .then(wapPlay, function (e) { document.getElementById('status').textContent = 'The recording could not be loaded: ' + e.message; });
</script>`
      : `<script type="application/json" id="wap-data">${scriptJson(mode.data)}</script>
<script>${BOOT}
wapPlay(JSON.parse(document.getElementById('wap-data').textContent));
</script>`;
  return `<!doctype html>
<html lang="en"><head><meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<meta name="referrer" content="no-referrer">
<title>${title}</title>
<style>${PAGE_STYLE}</style>
${head}
</head><body>
<header><h1>${title}</h1><span>Recorded with rrweb; inputs of password and sensitive fields are masked in the page.</span></header>
<main><section>
<div id="live" hidden><h2>Live view <small id="live-status"></small></h2><img id="live-frame" alt=""></div>
<div id="status">Loading the recording…</div>
<label id="screen-switch" hidden><input type="checkbox" id="screen-toggle"> Screencast beside the replay (canvas, video)</label>
<img id="screen" hidden alt="The screencast frame at the player's moment">
<div id="player"></div></section>
<aside><select id="tabs"></select><h2>Pages</h2><ol id="pages"></ol><h2>Network</h2><ol id="requests"></ol></aside></main>
${start}
</body></html>
`;
}
