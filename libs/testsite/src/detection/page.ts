// The detection page's script: what a careful site asks a browser, answered
// in every context a page can open (its main world, a dedicated worker, a
// shared worker, a service worker, a frame of another site), then posted to
// the site, which judges it together with the headers it received
// (verdict.ts). The checks and where each comes from: docs/connect.md,
// "What a detector sees". Plain ES2022, no library: it must run unchanged in
// any engine.

/** The high-entropy client hints asked in every context. */
export const HINTS = [
  'architecture',
  'bitness',
  'brands',
  'formFactors',
  'fullVersionList',
  'mobile',
  'model',
  'platform',
  'platformVersion',
  'uaFullVersion',
  'wow64',
];

/** What a worker of any kind answers: its navigator's user agent, webdriver (none in a worker) and client hints. */
export const WORKER_PROBE = `
async function probe() {
  const data = navigator.userAgentData;
  return {
    userAgent: navigator.userAgent,
    webdriver: navigator.webdriver ?? null,
    platform: navigator.platform,
    languages: [...navigator.languages],
    hints: data ? await data.getHighEntropyValues(${JSON.stringify(HINTS)}) : null,
  };
}`;

/**
 * The prototype audit: every function reachable from the global object's
 * interfaces (constructors, their statics, their prototypes' methods, getters
 * and setters) and the global's own functions must read as native through
 * Function.prototype.toString, carry no own property a native has not (a
 * recorder's `__rrweb_original__`), have no prototype when it is a method,
 * and refuse a cyclic prototype chain as a native does (a Proxy around a
 * native passes toString but not that: CreepJS's "lies").
 */
const AUDIT = String.raw`
function audit() {
  const toString = Function.prototype.toString;
  const NATIVE = /^function [^(]*\(\) \{\s*\[native code\]\s*\}$/;
  const found = [];
  let seen = 0;
  const checked = new Set();
  const look = (fn, where, method) => {
    if (typeof fn !== 'function' || checked.has(fn)) return;
    checked.add(fn);
    seen++;
    let text;
    try { text = toString.call(fn); } catch (e) { found.push(where + ': toString throws'); return; }
    if (!NATIVE.test(text)) { found.push(where + ': ' + text.slice(0, 60)); return; }
    const own = Object.getOwnPropertyNames(fn).filter((n) => !['length', 'name', 'prototype', 'arguments', 'caller'].includes(n));
    if (method && own.length > 0) found.push(where + ': own ' + own.join(','));
    if (method && Object.prototype.hasOwnProperty.call(fn, 'prototype')) found.push(where + ': has a prototype');
    const proto = Object.getPrototypeOf(fn);
    try {
      Object.setPrototypeOf(fn, Object.create(fn));
      found.push(where + ': takes a cyclic prototype');
    } catch (e) {
      if (!(e instanceof TypeError)) found.push(where + ': ' + e.constructor.name + ' on a cyclic prototype');
    } finally {
      try { Object.setPrototypeOf(fn, proto); } catch (e) {}
    }
  };
  const walk = (object, name, methods) => {
    if (!object) return;
    for (const key of Reflect.ownKeys(object)) {
      const label = name + '.' + String(key);
      if (/rrweb|__webdriver|__selenium|__playwright|__pw|__puppeteer|^cdc_|^\$cdc_/i.test(String(key))) found.push(label + ': marker');
      let d;
      try { d = Object.getOwnPropertyDescriptor(object, key); } catch (e) { continue; }
      if (!d) continue;
      if (d.get) look(d.get, label + ' (get)', true);
      if (d.set) look(d.set, label + ' (set)', true);
      // A method has no prototype and no own properties; a constructor, or what is named after one, may.
      const method =
        methods && !/^[A-Z]/.test(String(key)) && !['constructor', 'prototype', 'v8BreakIterator'].includes(String(key));
      if (typeof d.value === 'function') look(d.value, label, method);
    }
  };
  look(toString, 'Function.prototype.toString', true);
  for (const name of Object.getOwnPropertyNames(window)) {
    let value;
    try { value = window[name]; } catch (e) { continue; }
    if (typeof value !== 'function' || !/^[A-Z]/.test(name)) continue;
    walk(value, name, true);
    walk(value.prototype, name + '.prototype', true);
  }
  walk(window, 'window', true);
  for (const [name, object] of [['navigator', navigator], ['document', document], ['screen', screen], ['Intl', Intl], ['JSON', JSON], ['Math', Math], ['Reflect', Reflect], ['console', console]]) walk(object, name, true);
  return { seen, found: found.slice(0, 50), count: found.length };
}`;

/** Globals of the top window a fresh frame of the same origin has not: what a script or a driver added. */
const EXTRA_GLOBALS = `
function extraGlobals() {
  const frame = document.createElement('iframe');
  frame.setAttribute('data-detector', '');
  document.body.append(frame);
  const fresh = new Set(Object.getOwnPropertyNames(frame.contentWindow));
  frame.remove();
  // Frames are named by their index: the detector's own frame is one.
  return Object.getOwnPropertyNames(window).filter((n) => !fresh.has(n) && !/^[0-9]+$/.test(n));
}`;

/**
 * Elements added to the document that the page's own script did not add (each
 * of its own carries data-detector): a recorder's or a driver's, seen by a
 * MutationObserver the page sets before anything else of its script runs.
 */
const FOREIGN_NODES = `
const foreign = [];
new MutationObserver((records) => {
  for (const record of records)
    for (const node of record.addedNodes)
      if (node.nodeType === 1 && !node.hasAttribute('data-detector')) foreign.push(node.nodeName + (node.id ? '#' + node.id : ''));
}).observe(document, { childList: true, subtree: true });`;

/** Fonts every Debian GNOME desktop has (docs/connect.md, "What a detector sees"). */
export const DESKTOP_FONTS = [
  'Cantarell',
  'DejaVu Sans',
  'Liberation Sans',
  'Liberation Serif',
  'Liberation Mono',
  'Noto Sans',
  'Noto Serif',
  'Noto Color Emoji',
];

/**
 * Which of DESKTOP_FONTS the page can draw, measured as font enumerators do
 * (a text's size in the font against each generic family it falls back to),
 * and whether an emoji is drawn in colour (a server without an emoji font
 * draws an empty box or a glyph of one colour).
 */
const FONTS = `
function fonts() {
  const span = document.createElement('span');
  span.textContent = 'mmmmmmmmmmlli\u{1F600}';
  span.style.cssText = 'font-size:72px;position:absolute;left:-9999px';
  span.setAttribute('data-detector', '');
  document.body.append(span);
  const size = (family) => { span.style.fontFamily = family; return span.offsetWidth + 'x' + span.offsetHeight; };
  const present = ${JSON.stringify(DESKTOP_FONTS)}.filter((f) => ['monospace', 'serif', 'sans-serif'].some((base) => size("'" + f + "'," + base) !== size(base)));
  span.remove();
  const canvas = document.createElement('canvas');
  canvas.width = canvas.height = 40;
  const context = canvas.getContext('2d');
  context.font = '32px sans-serif';
  context.textBaseline = 'top';
  context.fillText('\u{1F600}', 0, 0);
  const pixels = context.getImageData(0, 0, 40, 40).data;
  let coloured = 0;
  for (let i = 0; i < pixels.length; i += 4) if (pixels[i + 3] > 0 && (Math.abs(pixels[i] - pixels[i + 1]) > 40 || Math.abs(pixels[i + 1] - pixels[i + 2]) > 40)) coloured++;
  return { present, colourEmoji: coloured > 50 };
}`;

/** Posts `answers` to the site and shows its verdict, then `#done` (what a client waits for). */
export function reportAnswers(base: string): string {
  return `const verdict = await fetch('${base}report', { method: 'POST', body: JSON.stringify(answers) }).then((r) => r.json());
const out = document.createElement('pre');
out.id = 'verdict';
out.textContent = JSON.stringify(verdict, null, 1);
document.body.append(out);
const done = document.createElement('p');
done.id = 'done';
done.textContent = verdict.passed + ' of ' + verdict.total + ' checks passed';
document.body.append(done);`;
}

/** The page's script for visit `base` (its path, `/v/<id>/`), the cross-site frame at `frameUrl`. */
export function detectionScript(base: string, frameUrl: string): string {
  // In a function of its own: nothing of the detector's is a global the audit would find.
  return `(() => {
${FOREIGN_NODES}
${WORKER_PROBE}
${AUDIT}
${EXTRA_GLOBALS}
${FONTS}
const within = (ms, promise) => Promise.race([promise, new Promise((r) => setTimeout(() => r({ error: 'no answer in ' + ms + ' ms' }), ms))]);
const safely = (make) => within(5000, (async () => make())().catch((e) => ({ error: String(e) })));
(async () => {
  const answers = {};
  answers.main = await probe();
  answers.main.appVersion = navigator.appVersion;
  answers.main.plugins = navigator.plugins.length;
  answers.main.mimeTypes = navigator.mimeTypes.length;
  answers.main.pdfViewerEnabled = navigator.pdfViewerEnabled;
  answers.main.chrome = typeof window.chrome === 'object' && window.chrome !== null;
  answers.main.notification = typeof Notification === 'function' ? Notification.permission : 'none';
  answers.main.notificationQuery = await navigator.permissions.query({ name: 'notifications' }).then((s) => s.state, (e) => String(e));
  answers.sizes = {
    inner: [innerWidth, innerHeight], outer: [outerWidth, outerHeight],
    screen: [screen.width, screen.height], avail: [screen.availWidth, screen.availHeight],
    visual: window.visualViewport ? [visualViewport.width, visualViewport.height] : null,
  };
  answers.dedicated = await safely(() => new Promise((resolve, reject) => {
    const worker = new Worker('${base}worker.js');
    worker.onmessage = (e) => resolve(e.data);
    worker.onerror = () => reject(new Error('worker failed'));
  }));
  answers.shared = await safely(() => new Promise((resolve, reject) => {
    const worker = new SharedWorker('${base}shared.js');
    worker.port.onmessage = (e) => resolve(e.data);
    worker.onerror = () => reject(new Error('shared worker failed'));
    worker.port.start();
  }));
  answers.service = await safely(async () => {
    const registration = await navigator.serviceWorker.register('${base}sw.js', { scope: '${base}' });
    const ready = await navigator.serviceWorker.ready;
    const worker = ready.active || registration.active;
    return new Promise((resolve) => {
      const channel = new MessageChannel();
      channel.port1.onmessage = (e) => resolve(e.data);
      worker.postMessage('probe', [channel.port2]);
    });
  });
  answers.frame = await safely(() => new Promise((resolve) => {
    addEventListener('message', (e) => { if (e.data && e.data.fromFrame) resolve(e.data.answer); });
    const frame = document.createElement('iframe');
    frame.src = '${frameUrl}';
    frame.setAttribute('data-detector', '');
    document.body.append(frame);
  }));
  answers.fonts = fonts();
  answers.media = await safely(async () => (await navigator.mediaDevices.enumerateDevices()).map((d) => [d.kind, d.label, d.deviceId]));
  answers.audit = audit();
  answers.extraGlobals = extraGlobals();
  answers.foreignNodes = foreign;
${reportAnswers(base)}
})();
})();`;
}

/** The scripts of the workers of visit `base`, by file name. */
export const WORKER_SCRIPTS: Record<string, string> = {
  'worker.js': `${WORKER_PROBE}\nprobe().then((answer) => postMessage(answer));`,
  'shared.js': `${WORKER_PROBE}\nonconnect = (e) => probe().then((answer) => e.ports[0].postMessage(answer));`,
  'sw.js': `${WORKER_PROBE}
self.addEventListener('install', () => self.skipWaiting());
self.addEventListener('activate', (e) => e.waitUntil(self.clients.claim()));
self.addEventListener('message', (e) => probe().then((answer) => e.ports[0].postMessage(answer)));`,
};

/** The cross-site frame's page: its probe, posted to its parent. */
export const FRAME_PAGE = `<!doctype html><script>${WORKER_PROBE}
probe().then((answer) => parent.postMessage({ fromFrame: true, answer }, '*'));</script>`;
