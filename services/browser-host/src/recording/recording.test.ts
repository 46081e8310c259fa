// A session browser records itself: the recorder extension's rrweb events, from
// every frame and every browser context, reach JetStream as ordered, signed,
// compressed chunks, with passwords and fields marked sensitive masked in the
// page. Real Chromium, real NATS, a loopback site on two origins.
import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { createServer, type Server } from 'node:http';
import { after, before, test } from 'node:test';
import { gunzipSync } from 'node:zlib';
import { jetstreamManager } from '@nats-io/jetstream';
import {
  chunkMacValid,
  chunkMetaOf,
  ensureStreams,
  type NatsLink,
  Publisher,
  sessionStreamNames,
  sessionStreams,
} from '@wap/events';
import { AllowList } from '@wap/netguard';
import { quietLog, testNats, uniqueNamespace, until } from '@wap/testkit';
import type { Page } from 'puppeteer-core';
import { browserFace } from '../domain/browser-face.js';
import { sessionSettings } from '../domain/session-options.js';
import { chromiumMajor, launchSessionBrowser, type SessionBrowser } from '../sessions/session-browser.js';
import { chunkSink, SessionRecording } from './recording.js';
import type { ScreenFrame } from './screencast.js';

const KEY = 'a-test-recording-key-of-at-least-32-chars';
const namespace = uniqueNamespace('recording');
let nats: NatsLink;
let site: Server;
let port: number;

const PAGE = (frame: string) => `<!doctype html><html><body>
<h1>Checkout</h1>
<input id="name" type="text">
<input id="secret" type="password">
<input id="card" autocomplete="cc-number">
<button id="go" onclick="document.getElementById('out').textContent = 'Thanks, ' + document.getElementById('name').value">Pay</button>
<p id="out"></p>
<iframe src="${frame}"></iframe>
</body></html>`;

before(async () => {
  nats = await testNats('recording-test');
  await ensureStreams(nats.nc, sessionStreams(namespace));
  site = createServer((req, res) => {
    res.writeHead(200, { 'content-type': 'text/html' });
    if (req.url === '/frame') res.end('<!doctype html><p id="inner">Inside the other origin</p>');
    else if (req.url === '/never')
      return; // an image that never comes: the page's load never fires
    else if (req.url === '/loading') res.end('<!doctype html><h1>Still loading</h1><img src="/never">');
    else res.end(PAGE(`http://localhost:${port}/frame`));
  });
  await new Promise<void>((r) => site.listen(0, '127.0.0.1', r));
  port = (site.address() as { port: number }).port;
});
after(async () => {
  await nats?.drain();
  site?.close();
});

interface Chunk {
  seq: number;
  kind: string;
  pages: number;
  macValid: boolean;
  batches: { tab: number; events: { type: number }[] }[];
  text: string;
}

/** The session's chunks as the stream holds them (the stream is this file's alone), in order. */
async function chunks(sessionId: string): Promise<Chunk[]> {
  const jsm = await jetstreamManager(nats.nc);
  const names = sessionStreamNames(namespace);
  const { state } = await jsm.streams.info(names.stream);
  const out: Chunk[] = [];
  for (let seq = state.first_seq; seq <= state.last_seq && state.messages > 0; seq++) {
    const msg = await jsm.streams.getMessage(names.stream, { seq }).catch(() => undefined);
    if (!msg || msg.subject !== names.chunks(sessionId)) continue;
    const meta = chunkMetaOf((name) => msg.header.get(name) || undefined);
    assert.ok(meta, 'every chunk says what it is');
    const text = gunzipSync(msg.data).toString('utf8');
    out.push({
      seq: meta.seq,
      kind: meta.kind,
      pages: meta.pages,
      macValid: chunkMacValid(KEY, meta, msg.data, msg.header.get('Wap-Mac')),
      batches: JSON.parse(text),
      text,
    });
  }
  return out;
}

async function recordedSession(
  drive: (b: SessionBrowser, sessionId: string, recording: SessionRecording) => Promise<void>,
  capture?: { screencastIntervalMs: number },
) {
  const face = browserFace(sessionSettings(undefined), chromiumMajor('/usr/bin/chromium'));
  const b = await launchSessionBrowser('/usr/bin/chromium', AllowList.parse('127.0.0.0/8'), face, { record: true });
  const sessionId = randomUUID();
  const recording = new SessionRecording(
    sessionId,
    'ws-recorded',
    chunkSink(new Publisher(nats.nc), namespace, KEY, nats.nc),
    quietLog(),
  );
  b.recordTo(recording);
  if (capture) await b.captureNetwork(recording, { bodies: false, ...capture });
  try {
    await drive(b, sessionId, recording);
  } finally {
    // As a session ends: every frame hands over what it holds, then the browser closes.
    await b.flushRecording();
    await b.close();
    await recording.close();
  }
  return { sessionId, chunks: await chunks(sessionId) };
}

test('a page and its cross-origin frame are recorded from the start, in signed ordered chunks, secrets masked', async () => {
  const { chunks: recorded } = await recordedSession(async (b, sessionId) => {
    const page = await b.browser.newPage();
    await page.goto(`http://127.0.0.1:${port}/checkout`);
    await page.type('#name', 'Ada Lovelace');
    await page.type('#secret', 'hunter2-swordfish');
    await page.type('#card', '4111111111111111');
    await page.click('#go');
    await page.waitForFunction(() => document.getElementById('out')?.textContent === 'Thanks, Ada Lovelace');
    await until('the last DOM change reaches the recording', async () => {
      const text = (await chunks(sessionId)).map((c) => c.text).join('');
      return text.includes('Thanks, Ada Lovelace');
    });
  });
  assert.ok(recorded.length >= 1);
  assert.deepEqual(
    recorded.map((c) => c.seq),
    recorded.map((_, i) => i),
    'numbered from 0 with no gap',
  );
  assert.ok(
    recorded.every((c) => c.macValid),
    'every chunk carries a valid signature',
  );
  const all = recorded.map((c) => c.text).join('\n');
  const events = recorded.flatMap((c) => c.batches.flatMap((b) => b.events));
  assert.ok(
    events.some((e) => e.type === 4),
    'a Meta event: the document began',
  );
  assert.ok(
    events.some((e) => e.type === 2),
    'a full snapshot of the DOM',
  );
  assert.ok(all.includes('Checkout'), 'the page text');
  assert.ok(all.includes('Inside the other origin'), 'the cross-origin frame, through rrweb in that frame');
  assert.ok(all.includes('Ada Lovelace'), 'a plain text field is recorded');
  assert.ok(!all.includes('hunter2') && !all.includes('swordfish'), 'the password never leaves the page');
  assert.ok(!all.includes('4111111111111111'), 'a card number field is masked');
  assert.equal(
    recorded.reduce((n, c) => n + c.pages, 0),
    1,
    'one document (the frame is not a page)',
  );
});

test('what a page did just before its browser closed is recorded, though its load never came', async () => {
  const { chunks: recorded } = await recordedSession(async (b) => {
    const page = await b.browser.newPage();
    await page.goto(`http://127.0.0.1:${port}/loading`, { waitUntil: 'domcontentloaded' });
    await page.evaluate(() => {
      document.body.append(Object.assign(document.createElement('p'), { textContent: 'Last words before closing' }));
    });
    // The session ends at once (recordedSession flushes, then closes the browser).
  });
  const all = recorded.map((c) => c.text).join('\n');
  assert.ok(all.includes('Still loading'), 'the page was recorded');
  assert.ok(all.includes('Last words before closing'), 'its last change too');
  assert.equal(
    recorded.reduce((n, c) => n + c.pages, 0),
    1,
  );
});

test("a client's new browser context is recorded too, and a page cannot post into the recording", async () => {
  const { chunks: recorded } = await recordedSession(async (b, sessionId) => {
    const context = await b.browser.createBrowserContext();
    const page = await context.newPage();
    await page.goto(`http://127.0.0.1:${port}/other-context`);
    // The page knows the recording host's name but not the extension's token.
    const forged = await page.evaluate(async () => {
      const r = await fetch('http://recording.wap.invalid/chunk', {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({ tab: 1, events: [{ type: 3, data: { forged: 'FORGED-EVENT' } }] }),
      }).catch(() => undefined);
      return r?.status ?? 0;
    });
    assert.notEqual(forged, 204, 'the recording host refuses a post without the token');
    await page.type('#name', 'In a private context');
    await until('the typing reaches the recording', async () =>
      (await chunks(sessionId)).some((c) => c.text.includes('In a private context')),
    );
  });
  const all = recorded.map((c) => c.text).join('\n');
  assert.ok(all.includes('Checkout'));
  assert.ok(!all.includes('FORGED-EVENT'), 'nothing the page posted is in the recording');
});

test("a page's screencast runs while it shows a canvas or someone watches; frames, events and rows name one tab", async () => {
  /** Frames as they went live, each with whether a live view had asked before it came. */
  const live: (ScreenFrame & { asked: boolean })[] = [];
  let asked = false;
  const names = sessionStreamNames(namespace);
  let latest: ScreenFrame[] = [];
  const tabs = { checkout: 0, second: 0 };
  const { chunks: recorded } = await recordedSession(
    async (b, sessionId, recording) => {
      const sub = nats.nc.subscribe(names.liveFrames(sessionId), {
        callback: (_err, msg) => {
          live.push({ ...msg.json<ScreenFrame>(), asked });
        },
      });
      const tabOfPage = async (page: Page) => {
        const cdp = await page.createCDPSession();
        const { targetInfo } = await cdp.send('Target.getTargetInfo');
        await cdp.detach();
        return recording.tabOf(targetInfo.targetId);
      };
      try {
        const first = await b.browser.newPage();
        await first.goto(`http://127.0.0.1:${port}/checkout`);
        tabs.checkout = await tabOfPage(first);
        const second = await b.browser.newPage();
        await second.goto(`http://localhost:${port}/second`);
        tabs.second = await tabOfPage(second);
        // What rrweb cannot see: a canvas drawn by script. Its page's screencast starts unasked.
        await second.evaluate(() => {
          const canvas = document.createElement('canvas');
          document.body.prepend(canvas);
          const g = canvas.getContext('2d') as CanvasRenderingContext2D;
          g.fillStyle = '#e00';
          g.fillRect(0, 0, 300, 150);
        });
        await until('the canvas page sends frames live, unasked', async () => live.some((f) => f.tab === tabs.second));
        // A live view opens: every page's screencast runs, the plain page's too.
        asked = true;
        await nats.nc.request(names.liveLatest(sessionId), '', { timeout: 5_000 });
        await until('the plain page sends frames once watched', async () => live.some((f) => f.tab === tabs.checkout));
        const answer = await nats.nc.request(names.liveLatest(sessionId), '', { timeout: 5_000 });
        latest = answer.json<ScreenFrame[]>();
        await until('both documents and their requests are recorded', async () => {
          const sent = await chunks(sessionId);
          const text = (kind: string) =>
            sent
              .filter((c) => c.kind === kind)
              .map((c) => c.text)
              .join('');
          // The replay's documents (rrweb's Meta events carry their href) and the network log's rows.
          return text('rrweb').includes(`localhost:${port}/second`) && text('network').includes('"type":"Document"');
        });
      } finally {
        sub.unsubscribe();
      }
    },
    { screencastIntervalMs: 200 },
  );
  assert.deepEqual(
    [...new Set(live.filter((f) => !f.asked).map((f) => f.tab))],
    [tabs.second],
    'before anyone watched, only the page with a canvas had a screencast',
  );
  const tabOf = (kind: string, path: string) => {
    const of = recorded.filter((c) => c.kind === kind);
    if (kind === 'rrweb')
      return of
        .flatMap((c) => c.batches)
        .find((batch) =>
          batch.events.some((e) => e.type === 4 && (e as { data?: { href?: string } }).data?.href?.endsWith(path)),
        )?.tab;
    return (of.flatMap((c) => c.batches) as unknown as { tab: number; url: string }[]).find(
      (row) => row.url.endsWith(path) && kind === 'network',
    )?.tab;
  };
  const checkout = tabOf('rrweb', '/checkout');
  const second = tabOf('rrweb', '/second');
  assert.ok(checkout && second && checkout !== second, 'two tabs in the replay');
  assert.deepEqual([checkout, second], [tabs.checkout, tabs.second], 'the replay numbers the tabs as the host does');
  assert.equal(tabOf('network', '/checkout'), checkout, 'the network log numbers the first page as the replay does');
  assert.equal(tabOf('network', '/second'), second, 'and the second');
  const stored = recorded.filter((c) => c.kind === 'screencast').flatMap((c) => c.batches as unknown as ScreenFrame[]);
  for (const tab of [checkout, second])
    assert.ok(
      stored.some((f) => f.tab === tab),
      `frames of tab ${tab} are in the recording, under the replay's number`,
    );
  for (const frame of [...stored, ...live]) {
    assert.ok(
      Buffer.from(frame.data, 'base64')
        .subarray(0, 2)
        .equals(Buffer.from([0xff, 0xd8])),
      'a JPEG',
    );
    assert.ok(frame.width > 0 && frame.height > 0 && frame.at > 0);
  }
  for (const tab of [checkout, second])
    assert.equal(latest.filter((f) => f.tab === tab).length, 1, `the latest frame of tab ${tab}, on request`);
});
