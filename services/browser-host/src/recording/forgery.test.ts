// The replay holds against the session's own client and pages: what they do
// to put events of their making into the recording (docs/decisions/
// 0018-recorder-forgery.md) leaves the recording what the pages showed. A
// client joined through the host's CDP filter as the CDP endpoint joins one,
// pages served on loopback, real Chromium and NATS.
import assert from 'node:assert/strict';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { after, before, test } from 'node:test';
import { ensureStreams, type NatsLink, sessionStreams } from '@wap/events';
import { testNats, uniqueNamespace, until } from '@wap/testkit';
import type { CDPSession, Page } from 'puppeteer-core';
import { writeRecorderExtension } from './extension.js';
import { filteredClient, recordings } from './test-support.js';

const KEY = 'a-test-recording-key-of-at-least-32-chars';
const namespace = uniqueNamespace('forgery');
let nats: NatsLink;
let site: Server;
let port: number;
const { chunks, recordedSession } = recordings(() => nats, namespace, KEY);

/** An rrweb event no page showed: a full snapshot of a page saying `marker`, and a custom event naming it. */
const forged = (marker: string) => [
  { type: 5, data: { tag: marker, payload: {} }, timestamp: Date.now() },
  {
    type: 2,
    data: {
      node: {
        type: 0,
        id: 1,
        childNodes: [
          { type: 2, id: 2, tagName: 'p', attributes: {}, childNodes: [{ type: 3, id: 3, textContent: marker }] },
        ],
      },
      initialOffset: { left: 0, top: 0 },
    },
    timestamp: Date.now(),
  },
];

/** A page that rewrites what a recorder in its world would serialise and batch with. */
const POLLUTING = `<!doctype html><h1>Polluted page</h1><input id="name"><script>
const fake = ${JSON.stringify(forged('FORGED-BY-PAGE')[0])};
Object.defineProperty(Object.prototype, 'toJSON', { configurable: true, value: function () {
  return this && typeof this === 'object' && 'timestamp' in this && 'type' in this ? fake : this;
} });
const push = Array.prototype.push;
Array.prototype.push = function (...items) {
  return push.apply(this, items.map((e) => (e && typeof e === 'object' && 'timestamp' in e && 'type' in e ? fake : e)));
};
</script>`;

/** A cross-origin frame posting rrweb-shaped messages to its parent, as rrweb's own child recorder would. */
const FORGING_FRAME = `<!doctype html><p id="inner">Inside the other origin</p><script>
const events = ${JSON.stringify(forged('FORGED-BY-FRAME'))};
for (let i = 0; i < 15; i++)
  setTimeout(() => { for (const event of events) parent.postMessage({ type: 'rrweb', event, origin: location.origin, isCheckout: false }, '*'); }, i * 100);
</script>`;

/** The parent page counts the messages it can read that hold what the frame shows (the frame's recording). */
const PARENT = (frame: string) => `<!doctype html><h1>Embedding page</h1><script>
window.rrwebMessagesSeen = 0;
addEventListener('message', (e) => { try { if (JSON.stringify(e.data).includes('Inside the other origin')) window.rrwebMessagesSeen++; } catch (err) {} });
</script><iframe src="${frame}"></iframe>`;

before(async () => {
  nats = await testNats('forgery-test');
  await ensureStreams(nats.nc, sessionStreams(namespace));
  site = createServer((req, res) => {
    res.writeHead(200, { 'content-type': 'text/html' });
    if (req.url === '/polluting') res.end(POLLUTING);
    else if (req.url === '/forging-frame') res.end(FORGING_FRAME);
    else if (req.url === '/embedding') res.end(PARENT(`http://localhost:${port}/forging-frame`));
    else res.end('<!doctype html><h1>Real page</h1><input id="name"><button id="go">Go</button>');
  });
  await new Promise<void>((r) => site.listen(0, '127.0.0.1', r));
  port = (site.address() as { port: number }).port;
});
after(async () => {
  await nats?.drain();
  site?.close();
});

const text = (recorded: { text: string; kind: string }[]) =>
  recorded
    .filter((c) => c.kind === 'rrweb')
    .map((c) => c.text)
    .join('\n');

/** What the user types reaches the recording: everything before it was recorded too. */
async function typed(page: Page, sessionId: string, words: string): Promise<void> {
  await page.type('#name', words);
  await until('the typing reaches the recording', async () => text(await chunks(sessionId)).includes(words));
}

/** Strings that look like the recorder's event names (`wap` and 32 hex digits) among a closure's variables. */
async function namesInClosure(cdp: CDPSession, objectId: string, depth = 0): Promise<string[]> {
  const found: string[] = [];
  const props = await cdp.send('Runtime.getProperties', { objectId, ownProperties: true });
  for (const p of [...props.result, ...(props.internalProperties ?? [])]) {
    const value = p.value;
    if (typeof value?.value === 'string' && /^wap[0-9a-f]{32}$/.test(value.value)) found.push(value.value);
    if (value?.objectId && depth < 2 && (p.name === '[[Scopes]]' || value.type === 'object' || depth === 1))
      found.push(...(await namesInClosure(cdp, value.objectId, depth + 1)));
  }
  return found;
}

/** Dispatches forged events under every name found, as the bridge's and the recorder's events of every kind. */
const dispatchUnder = (names: string[], marker: string) => `(() => {
  const detail = JSON.stringify(${JSON.stringify(forged(marker))});
  for (const name of ${JSON.stringify(names)})
    for (const suffix of ['', '-flush', '-input', '-sheet-will', '-sheet', '-rule', '-shadow', '-adopted'])
      for (const target of [document, document.getElementById('name')])
        target.dispatchEvent(new CustomEvent(name + suffix, { detail, bubbles: true, composed: true }));
})()`;

test("a client finds no recorder in the page's world: the setters are the browser's own, their closures empty", async () => {
  const { chunks: recorded } = await recordedSession(async (b, sessionId) => {
    const browser = await filteredClient(b);
    const page = await browser.newPage();
    await page.goto(`http://127.0.0.1:${port}/real`);
    const cdp = await page.createCDPSession();
    // A recorder that patched the value setter would leave its closure, and its event names, in [[Scopes]].
    const { result: setter } = await cdp.send('Runtime.evaluate', {
      expression: "Object.getOwnPropertyDescriptor(HTMLInputElement.prototype, 'value').set",
    });
    assert.equal(setter.description, 'function set value() { [native code] }');
    assert.deepEqual(await namesInClosure(cdp, setter.objectId as string), []);
    // Events under names of the old hints' shape change nothing either.
    await cdp.send('Runtime.evaluate', {
      expression: dispatchUnder([`wap${'0'.repeat(32)}`], 'FORGED-FROM-CLOSURE'),
    });
    await typed(page, sessionId, 'typed after the attack');
    await browser.disconnect();
  });
  const all = text(recorded);
  assert.ok(all.includes('Real page'), 'the page as shown is recorded');
  assert.ok(!all.includes('FORGED-FROM-CLOSURE'), 'no event of the client’s making');
});

test('a page that rewrites the builtins a recorder would use cannot change what is recorded', async () => {
  const { chunks: recorded } = await recordedSession(async (b, sessionId) => {
    const page = await b.browser.newPage();
    await page.goto(`http://127.0.0.1:${port}/polluting`);
    await typed(page, sessionId, 'typed on a polluted page');
  });
  const all = text(recorded);
  assert.ok(all.includes('Polluted page'), 'the page as shown is recorded');
  assert.ok(!all.includes('FORGED-BY-PAGE'), 'no event of the page’s making');
});

test("a cross-origin frame cannot post events into its parent's recording, nor its parent read the frame's", async () => {
  let seen = -1;
  const { chunks: recorded } = await recordedSession(async (b, sessionId) => {
    const page = await b.browser.newPage();
    await page.goto(`http://127.0.0.1:${port}/embedding`);
    await until('the frame is recorded', async () => text(await chunks(sessionId)).includes('Inside the other origin'));
    // The frame's script has posted all it would by now.
    await new Promise((r) => setTimeout(r, 2_000));
    seen = await page.evaluate(() => (window as unknown as { rrwebMessagesSeen: number }).rrwebMessagesSeen);
  });
  const all = text(recorded);
  assert.ok(all.includes('Embedding page') && all.includes('Inside the other origin'), 'both documents are recorded');
  assert.ok(!all.includes('FORGED-BY-FRAME'), 'no event of the frame’s making');
  assert.equal(seen, 0, 'the embedding page reads none of the frame’s recording');
});

test("a client's breakpoint conditions and heap handles run none of its code in the recorder's world", async () => {
  // Where the recorder takes each event in: a line a breakpoint there stops at for every event.
  const dir = mkdtempSync(path.join(tmpdir(), 'wap-forgery-'));
  const lines = readFileSync(path.join(writeRecorderExtension(dir).dir, 'recorder.js'), 'utf8').split('\n');
  rmSync(dir, { recursive: true, force: true });
  const lineNumber = lines.findIndex((l) => l.includes('buffer.push(event)'));
  assert.ok(lineNumber > 0);
  // In the recorder's world: post to the worker; in the page's world: dispatch under the recorder's event name.
  const forge = (marker: string) =>
    `(() => { const events = ${JSON.stringify(forged(marker))}; try { if (typeof chrome === 'object' && chrome.runtime && chrome.runtime.sendMessage) chrome.runtime.sendMessage({ events }); else document.dispatchEvent(new CustomEvent(EVENT, { detail: JSON.stringify(events) })); } catch (e) {} return false; })()`;
  const refused: string[] = [];
  const { chunks: recorded } = await recordedSession(async (b, sessionId) => {
    const browser = await filteredClient(b, (method) => refused.push(method));
    const page = await browser.newPage();
    const cdp = await page.createCDPSession();
    await cdp.send('Runtime.enable');
    await cdp.send('Debugger.enable');
    await cdp
      .send('Debugger.setBreakpointByUrl', {
        urlRegex: 'recorder\\.js',
        lineNumber,
        condition: forge('FORGED-BY-CONDITION'),
      })
      .catch(() => undefined);
    await page.goto(`http://127.0.0.1:${port}/real`);
    await typed(page, sessionId, 'typed under a breakpoint');
    // A heap snapshot: every string of the page's process, and a handle on any object in it.
    await cdp.send('HeapProfiler.enable');
    const parts: string[] = [];
    cdp.on('HeapProfiler.addHeapSnapshotChunk', (e) => parts.push(e.chunk));
    await cdp.send('HeapProfiler.takeHeapSnapshot', { reportProgress: false });
    const snapshot = JSON.parse(parts.join('')) as {
      snapshot: { meta: { node_fields: string[]; node_types: [string[]] } };
      nodes: number[];
      strings: string[];
    };
    const names = [...new Set(snapshot.strings.filter((s) => /^wap[0-9a-f]{32}$/.test(s)))];
    await cdp.send('Runtime.evaluate', { expression: dispatchUnder(names, 'FORGED-FROM-HEAP') });
    const fields = snapshot.snapshot.meta.node_fields;
    const [typeAt, nameAt, idAt] = ['type', 'name', 'id'].map((f) => fields.indexOf(f)) as [number, number, number];
    for (let i = 0; i < snapshot.nodes.length; i += fields.length) {
      if (snapshot.snapshot.meta.node_types[0][snapshot.nodes[i + typeAt] as number] !== 'closure') continue;
      if (
        !['push', 'flush', 'send', 'emit', 'emitOwn'].includes(
          snapshot.strings[snapshot.nodes[i + nameAt] as number] ?? '',
        )
      )
        continue;
      const handle = await cdp
        .send('HeapProfiler.getObjectByHeapObjectId', { objectId: String(snapshot.nodes[i + idAt]) })
        .catch(() => undefined);
      if (!handle?.result.objectId) continue;
      await cdp
        .send('Runtime.callFunctionOn', {
          objectId: handle.result.objectId,
          functionDeclaration: `function () { return ${forge('FORGED-FROM-HEAP')}; }`,
        })
        .catch(() => undefined);
    }
    // Or as the console's $0, called from the page's world with the command line API.
    for (let i = 0; i < snapshot.nodes.length; i += fields.length) {
      if (snapshot.snapshot.meta.node_types[0][snapshot.nodes[i + typeAt] as number] !== 'closure') continue;
      if (snapshot.strings[snapshot.nodes[i + nameAt] as number] !== 'push') continue;
      const added = await cdp
        .send('HeapProfiler.addInspectedHeapObject', { heapObjectId: String(snapshot.nodes[i + idAt]) })
        .then(() => true)
        .catch(() => false);
      if (!added) continue;
      await cdp.send('Runtime.evaluate', {
        includeCommandLineAPI: true,
        expression: `try { $0(${JSON.stringify(forged('FORGED-AS-DOLLAR-0')[0])}); } catch (e) {}`,
      });
    }
    await typed(page, sessionId, 'typed after the heap was read');
    await browser.disconnect();
  });
  const all = text(recorded);
  assert.ok(all.includes('Real page'), 'the page as shown is recorded');
  for (const marker of ['FORGED-BY-CONDITION', 'FORGED-FROM-HEAP', 'FORGED-AS-DOLLAR-0'])
    assert.ok(!all.includes(marker), `${marker}: no event of the client's making`);
});

test('an honest client passes the filter untouched, and its session records as before', async () => {
  const refused: string[] = [];
  const { chunks: recorded } = await recordedSession(async (b, sessionId) => {
    const browser = await filteredClient(b, (method, reason) => refused.push(`${method}: ${reason}`));
    const page = await browser.newPage();
    await page.goto(`http://127.0.0.1:${port}/real`);
    await page.click('#go');
    await page.evaluate(() =>
      document.body.append(Object.assign(document.createElement('p'), { textContent: 'Added' })),
    );
    const handle = await page.evaluateHandle(() => ({ plain: 'object', n: 1 }));
    const properties = await handle.getProperties();
    assert.deepEqual([...properties.keys()].sort(), ['n', 'plain']);
    await typed(page, sessionId, 'an honest user');
    await browser.disconnect();
  });
  assert.deepEqual(refused, [], 'nothing refused');
  const all = text(recorded);
  for (const shown of ['Real page', 'Added', 'an honest user']) assert.ok(all.includes(shown), shown);
  assert.ok(
    recorded.every((c) => c.macValid),
    'every chunk signed',
  );
});
