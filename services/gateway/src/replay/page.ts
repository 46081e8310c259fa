// The replay page and the exported bundle (docs/sessions.md, "Serving"): the
// same player, rrweb-player served from our own files, never a CDN. The page
// fetches the session's events from its signed link; the bundle carries them,
// the player and its styles inline, and plays from file:// with no network:
// its Content-Security-Policy lets nothing load from anywhere.
import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import path from 'node:path';
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
const scriptJson = (value: unknown) => JSON.stringify(value).replace(/</g, '\\u003c');

const escapeHtml = (text: string) =>
  text.replace(
    /[&<>"']/g,
    (c) => ({ '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&#39;' })[c] as string,
  );

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
aside button { all: unset; cursor: pointer; color: #2456c7; }
#tabs { margin-bottom: 12px; }
#status { padding: 20px; }
`;

/**
 * The player's boot: takes the replay data, shows the first tab, lists each
 * tab's pages as a timeline that seeks the player, and leaves
 * `window.wapReplay` for scripts (and tests): the player, and `toEnd()`.
 */
const BOOT = `
function wapPlay(data) {
  var status = document.getElementById('status');
  if (!data.tabs.length) { status.textContent = 'Nothing was recorded in this session.'; return; }
  status.remove();
  var tabs = document.getElementById('tabs');
  var list = document.getElementById('pages');
  var target = document.getElementById('player');
  var player = null;
  function show(index) {
    var tab = data.tabs[index];
    target.innerHTML = '';
    var width = Math.max(320, target.clientWidth || 960);
    var Player = rrwebPlayer.Player || rrwebPlayer.default || rrwebPlayer;
    player = new Player({ target: target, props: { events: tab.events, width: width, height: Math.round(width * 0.6), autoPlay: false, skipInactive: true, showController: true } });
    var start = tab.events.length ? tab.events[0].timestamp : 0;
    list.innerHTML = '';
    tab.pages.forEach(function (page) {
      var item = document.createElement('li');
      var go = document.createElement('button');
      go.textContent = page.url;
      go.title = '+' + ((page.at - start) / 1000).toFixed(1) + ' s';
      go.onclick = function () { player.goto(page.at - start, false); };
      item.appendChild(go);
      list.appendChild(item);
    });
    window.wapReplay = {
      player: player,
      tab: tab.tab,
      toEnd: function () { var r = player.getReplayer(); r.pause(r.getMetaData().totalTime); },
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
  mode: { kind: 'linked'; eventsUrl: string; assetsBase: string; nonce: string } | { kind: 'inline'; data: ReplayData };
}

/** The replay page's policy: scripts and styles only its own; the recorded page's images and fonts may load. */
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
<main><section><div id="status">Loading the recording…</div><div id="player"></div></section>
<aside><select id="tabs"></select><h2>Pages</h2><ol id="pages"></ol></aside></main>
${start}
</body></html>
`;
}
