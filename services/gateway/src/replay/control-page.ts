// The control page (docs/sessions.md, "Human control"): a running session's
// screen, live, that a person clicks, scrolls and types on. Its script turns
// the person's mouse and keys into batches of actions in the frame's CSS
// pixels and posts them, one batch at a time and in order, to the control
// link's input route. Nothing but our own inline script and style runs in it.
import { escapeHtml } from '../http/html.js';
import { scriptJson } from './page.js';

/**
 * Only the page's own script and style (by nonce), frames as data: images, and requests to the gateway;
 * framed by the gateway's own pages only (the console's take-over view).
 */
export const controlPagePolicy = (nonce: string) =>
  [
    "default-src 'none'",
    `script-src 'nonce-${nonce}'`,
    `style-src 'nonce-${nonce}'`,
    'img-src data:',
    "connect-src 'self'",
    "base-uri 'none'",
    "form-action 'none'",
    "frame-ancestors 'self'",
  ].join('; ');

const STYLE = `
body { margin: 0; font: 14px/1.4 system-ui, sans-serif; background: #f4f5f7; color: #1d2330; }
header { padding: 10px 20px; background: #1d2330; color: #fff; display: flex; gap: 16px; align-items: baseline; flex-wrap: wrap; }
header h1 { font-size: 16px; margin: 0; }
main { padding: 12px 20px; }
form { display: flex; gap: 8px; align-items: center; flex-wrap: wrap; margin-bottom: 8px; }
#url { flex: 1 1 320px; min-width: 200px; padding: 4px 6px; }
#help { margin: 4px 0 8px; opacity: .8; }
#surface { display: inline-block; max-width: 100%; outline: none; border: 2px solid #d8dbe2; cursor: crosshair; }
#surface:focus { border-color: #2456c7; box-shadow: 0 0 0 2px #2456c7; }
#surface[aria-disabled="true"] { cursor: not-allowed; opacity: .6; }
#frame { display: block; max-width: 100%; user-select: none; -webkit-user-drag: none; }
#error { color: #a4161a; min-height: 1.4em; }
`;

/**
 * The page's script: the live frames (Server-Sent Events, as the live view),
 * a tab picker, the address box, and the screen that forwards the mouse and
 * keys. `window.wapControl` says its status, frames, tab, actions sent and
 * the last error (for scripts and tests).
 */
const BOOT = `
function wapControl(cfg) {
  function el(id) { return document.getElementById(id); }
  var status = el('status'), errorBox = el('error'), surface = el('surface'), img = el('frame');
  var urlBox = el('url'), tabs = el('tab'), form = el('nav'), back = el('back');
  var state = window.wapControl = { status: 'connecting', frames: 0, tab: 0, sent: 0, error: '', url: '' };
  var latest = {}, picked = false, queue = [], sending = false, tabChanged = false, stopped = false, leaving = false;
  function say(text) { status.textContent = text; }
  function fail(text) { errorBox.textContent = text; state.error = text; }
  function stop(text) {
    stopped = true; queue = [];
    say(text);
    surface.setAttribute('aria-disabled', 'true');
    [urlBox, tabs, back, form.querySelector('button[type=submit]')].forEach(function (c) { c.disabled = true; });
  }
  function paint(f) {
    img.src = 'data:image/jpeg;base64,' + f.data;
    img.alt = 'Tab ' + f.tab + ', as it was at ' + new Date(f.at).toLocaleTimeString();
  }
  function show(tab) {
    if (state.tab !== tab) tabChanged = true;
    state.tab = tab;
    tabs.value = String(tab);
    if (latest[tab]) paint(latest[tab]);
    flush();
  }
  var source = new EventSource(cfg.live);
  source.addEventListener('status', function (e) {
    var s = JSON.parse(e.data).status;
    state.status = s;
    if (s === 'live') { say(state.frames ? 'You are driving this browser.' : 'Waiting for the first frame…'); return; }
    source.close();
    stop(s === 'released' ? 'Control was handed back: this page no longer drives the browser.' : 'The session has ended.');
  });
  source.addEventListener('frame', function (e) {
    var f = JSON.parse(e.data);
    var known = latest[f.tab];
    if (known && known.at > f.at) return;
    latest[f.tab] = f;
    state.frames++;
    if (!known) {
      var option = document.createElement('option');
      option.value = String(f.tab);
      option.textContent = 'Tab ' + f.tab;
      tabs.appendChild(option);
      if (state.frames > 1 && state.tab) say('Tab ' + f.tab + ' opened.');
    }
    if (state.frames === 1) say('You are driving this browser.');
    // The newest tab is shown; a tab that opens later (a link to a new tab) is followed unless one was picked.
    var current = latest[state.tab];
    if (!state.tab || (!known && !picked && (!current || f.at >= current.at))) show(f.tab);
    else if (f.tab === state.tab) paint(f);
  });
  tabs.addEventListener('change', function () { picked = true; show(Number(tabs.value)); });

  function push(a) {
    if (stopped || !state.tab) return;
    var last = queue[queue.length - 1];
    if (last && a.type === 'mouseMove' && last.type === 'mouseMove') queue[queue.length - 1] = a;
    else if (last && a.type === 'wheel' && last.type === 'wheel' && last.x === a.x && last.y === a.y) {
      last.deltaX = clamp(last.deltaX + a.deltaX, -20000, 20000);
      last.deltaY = clamp(last.deltaY + a.deltaY, -20000, 20000);
    } else queue.push(a);
    flush();
  }
  function flush() {
    if (sending || stopped || !state.tab || (!queue.length && !tabChanged)) return;
    sending = true;
    tabChanged = false;
    var batch = { tab: state.tab, actions: queue.splice(0, 64) };
    fetch(cfg.input, {
      method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(batch),
      credentials: 'omit', cache: 'no-store',
    }).then(function (r) {
      return r.json().then(function (body) { return { ok: r.ok, body: body || {} }; });
    }).then(function (res) {
      if (res.ok) {
        state.sent += batch.actions.length;
        if (res.body.url) { state.url = res.body.url; if (document.activeElement !== urlBox) urlBox.value = res.body.url; }
        if (res.body.blocked && res.body.blocked.length) fail('Not opened: ' + res.body.blocked.join(', ') + ' is not on ' + cfg.site + '.');
        else if (state.error) fail('');
        return;
      }
      var code = res.body.code, details = res.body.details || {};
      if (code === 'replay_control_denied') stop(details.reason === 'not_live' ? 'The session is no longer running.' : 'Control is not allowed now: the run may have been handed back.');
      else if (code === 'replay_access_denied') stop('This control link has expired or is not valid.');
      else if (code === 'replay_control_cross_site') fail('Not opened: ' + details.host + ' is not on ' + cfg.site + '.');
      else fail('The browser did not take that input (' + (code || 'error') + ').');
    }, function () { fail('The input could not be sent.'); }).then(function () {
      sending = false;
      flush();
    });
  }
  function clamp(v, lo, hi) { return Math.min(hi, Math.max(lo, v)); }
  function mods(e) { return (e.altKey ? 1 : 0) | (e.ctrlKey ? 2 : 0) | (e.metaKey ? 4 : 0) | (e.shiftKey ? 8 : 0); }
  function at(e) {
    var f = latest[state.tab], r = img.getBoundingClientRect();
    if (!f || !r.width || !r.height) return null;
    return {
      x: Math.round(clamp((e.clientX - r.left) * f.width / r.width, 0, f.width)),
      y: Math.round(clamp((e.clientY - r.top) * f.height / r.height, 0, f.height)),
    };
  }
  var BUTTONS = ['left', 'middle', 'right'];
  function mouse(type) {
    return function (e) {
      var p = at(e), button = BUTTONS[e.button];
      if (type === 'mouseDown') surface.focus();
      if (!p || (type !== 'mouseMove' && !button)) return;
      e.preventDefault();
      var a = { type: type, x: p.x, y: p.y, modifiers: mods(e) };
      if (type === 'mouseMove') a.buttons = e.buttons & 7;
      else { a.button = button; a.clickCount = clamp(e.detail || 1, 1, 3); }
      push(a);
    };
  }
  img.addEventListener('mousedown', mouse('mouseDown'));
  img.addEventListener('mouseup', mouse('mouseUp'));
  img.addEventListener('mousemove', mouse('mouseMove'));
  img.addEventListener('contextmenu', function (e) { e.preventDefault(); });
  img.addEventListener('dragstart', function (e) { e.preventDefault(); });
  img.addEventListener('wheel', function (e) {
    var p = at(e);
    if (!p) return;
    e.preventDefault();
    var scale = e.deltaMode === 1 ? 16 : e.deltaMode === 2 ? 400 : 1;
    push({ type: 'wheel', x: p.x, y: p.y, deltaX: clamp(e.deltaX * scale, -20000, 20000), deltaY: clamp(e.deltaY * scale, -20000, 20000), modifiers: mods(e) });
  }, { passive: false });

  function printable(e) { return !e.ctrlKey && !e.metaKey && (e.key.length === 1 || (e.key.length === 2 && /[\\ud800-\\udbff]/.test(e.key[0]))); }
  function codeOf(e) { return /^[A-Za-z0-9]{0,32}$/.test(e.code || '') ? e.code || '' : ''; }
  function keyOk(e) { return e.key && e.key.length <= 32 && !e.isComposing; }
  surface.addEventListener('keydown', function (e) {
    // Escape, then Tab, leaves the screen: every other key, Tab included, goes to the browser.
    if (e.key === 'Tab' && leaving) { leaving = false; return; }
    leaving = e.key === 'Escape';
    // A paste is sent as text by the paste event.
    if ((e.ctrlKey || e.metaKey) && (e.key === 'v' || e.key === 'V')) return;
    if (!keyOk(e)) return;
    e.preventDefault();
    var a = { type: 'keyDown', key: e.key, code: codeOf(e), modifiers: mods(e) };
    if (printable(e)) a.text = e.key;
    push(a);
  });
  surface.addEventListener('keyup', function (e) {
    if (!keyOk(e) || ((e.ctrlKey || e.metaKey) && (e.key === 'v' || e.key === 'V'))) return;
    e.preventDefault();
    push({ type: 'keyUp', key: e.key, code: codeOf(e), modifiers: mods(e) });
  });
  surface.addEventListener('paste', function (e) {
    e.preventDefault();
    var text = (e.clipboardData && e.clipboardData.getData('text/plain') || '').replace(/\\u0000/g, '');
    for (var i = 0; i < text.length && i < cfg.maxPaste * 4; i += cfg.maxPaste) push({ type: 'insertText', text: text.slice(i, i + cfg.maxPaste) });
  });
  form.addEventListener('submit', function (e) {
    e.preventDefault();
    var url = urlBox.value.trim();
    if (!url) return;
    if (!/^[a-z][a-z0-9+.-]*:/i.test(url)) url = 'https://' + url;
    push({ type: 'navigate', url: url });
  });
  back.addEventListener('click', function () { push({ type: 'back' }); });
}
`;

export function controlHtml(parts: {
  sessionId: string;
  site: string;
  liveUrl: string;
  inputUrl: string;
  nonce: string;
  maxPaste: number;
}): string {
  const site = escapeHtml(parts.site);
  const config = { live: parts.liveUrl, input: parts.inputUrl, site: parts.site, maxPaste: parts.maxPaste };
  return `<!doctype html>
<html lang="en"><head><meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<meta name="referrer" content="no-referrer">
<title>Browser control: session ${escapeHtml(parts.sessionId)}</title>
<style nonce="${parts.nonce}">${STYLE}</style>
</head><body>
<header><h1>Browser control</h1><p id="status" role="status" aria-live="polite">Connecting…</p></header>
<main>
<form id="nav" aria-label="Navigation" novalidate>
<button type="button" id="back">Back</button>
<label for="url">Address</label>
<input id="url" name="url" type="url" inputmode="url" autocomplete="off" spellcheck="false" placeholder="https://${site}/">
<button type="submit">Go</button>
<label for="tab">Tab</label>
<select id="tab"></select>
</form>
<p id="help">Click the screen, or reach it with Tab, to drive the browser: the mouse, the wheel and the keys go to it, and a paste is typed in.
Press Escape, then Tab, to leave the screen. Only addresses on ${site} open.</p>
<div id="surface" tabindex="0" role="application" aria-roledescription="remote browser screen" aria-label="Browser screen" aria-describedby="help">
<img id="frame" alt="No frame yet" draggable="false">
</div>
<p id="error" role="alert"></p>
</main>
<script nonce="${parts.nonce}">${BOOT}
wapControl(${scriptJson(config)});
</script>
</body></html>
`;
}
