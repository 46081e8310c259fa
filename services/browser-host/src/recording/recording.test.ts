// A session browser records itself: the recorder extension's rrweb events, from
// every frame and every browser context, reach JetStream as ordered, signed,
// compressed chunks, with passwords and fields marked sensitive masked in the
// page. Real Chromium, real NATS, a loopback site on two origins.
import assert from 'node:assert/strict';
import { createServer, type Server } from 'node:http';
import { after, before, test } from 'node:test';
import { ensureStreams, type NatsLink, sessionStreamNames, sessionStreams } from '@wap/events';
import { testNats, uniqueNamespace, until } from '@wap/testkit';
import type { Page } from 'puppeteer-core';
import type { ScreenFrame } from './screencast.js';
import { recordings } from './test-support.js';

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
<card-badge>Verified</card-badge><card-later>Not defined</card-later>
<script>customElements.define('card-badge', class extends HTMLElement {});</script>
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
    else if (req.url === '/scripted') res.end(SCRIPTED);
    else res.end(PAGE(`http://localhost:${port}/frame`));
  });
  await new Promise<void>((r) => site.listen(0, '127.0.0.1', r));
  port = (site.address() as { port: number }).port;
});
after(async () => {
  await nats?.drain();
  site?.close();
});

const { chunks, recordedSession } = recordings(() => nats, namespace, KEY);

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
  // The recorder's world has no custom element registry: the page's defined elements are told by :defined.
  const snapshot = events.find((e) => e.type === 2) as unknown as { data: { node: SnapshotNode } };
  assert.equal(nodeNamed(snapshot.data.node, 'card-badge')?.isCustom, true, 'a defined custom element');
  assert.equal(nodeNamed(snapshot.data.node, 'card-later')?.isCustom, undefined, 'a name never defined');
});

interface SnapshotNode {
  tagName?: string;
  isCustom?: boolean;
  childNodes?: SnapshotNode[];
}

const nodeNamed = (node: SnapshotNode, tag: string): SnapshotNode | undefined =>
  node.tagName === tag ? node : node.childNodes?.map((c) => nodeNamed(c, tag)).find((n) => n);

/** A page its scripts change without a DOM mutation, after its snapshot: as CSS-in-JS, forms and web components do. */
const SCRIPTED = `<!doctype html><h1>Scripted</h1><style id="sc">.a { color: red; }</style>
<div id="host">light</div><input id="v"><input id="c" type="checkbox"><p class="a">styled</p>`;

/**
 * The rules of the stylesheet of <style id=…> as a replay builds them from `events`: the text of its last full
 * snapshot, then the rule changes recorded after it, applied in a page as rrweb's replayer applies them.
 */
async function replayedRules(page: Page, events: unknown[], styleId: string): Promise<string[]> {
  return page.evaluate(
    (events: unknown[], styleId: string) => {
      type Node = {
        id: number;
        tagName?: string;
        attributes?: Record<string, string>;
        textContent?: string;
        childNodes?: Node[];
      };
      const find = (n: Node): Node | undefined => {
        if (n.tagName === 'style' && n.attributes?.id === styleId) return n;
        for (const c of n.childNodes ?? []) {
          const f = find(c);
          if (f) return f;
        }
        return undefined;
      };
      let node: Node | undefined;
      let ops: { removes?: { index: number }[]; adds?: { rule: string; index: number }[] }[] = [];
      for (const e of events as { type: number; data: { node?: Node; source?: number; id?: number } }[]) {
        if (e.type === 2 && e.data.node) {
          node = find(e.data.node);
          ops = [];
        } else if (e.type === 3 && e.data.source === 8 && node && e.data.id === node.id)
          ops.push(e.data as (typeof ops)[0]);
      }
      const style = document.createElement('style');
      style.textContent = node?.attributes?._cssText ?? node?.childNodes?.[0]?.textContent ?? '';
      document.head.append(style);
      const sheet = style.sheet as CSSStyleSheet;
      for (const op of ops) {
        for (const { rule, index } of op.adds ?? []) sheet.insertRule(rule, index);
        for (const { index } of op.removes ?? []) sheet.deleteRule(index);
      }
      return Array.from(sheet.cssRules, (r) => r.cssText);
    },
    events,
    styleId,
  );
}

test("what a page's scripts change without a DOM mutation is recorded: values, CSS rules, shadow roots", async () => {
  let live: string[] = [];
  let replayed: string[] = [];
  const { chunks: recorded } = await recordedSession(async (b, sessionId) => {
    const page = await b.browser.newPage();
    await page.goto(`http://127.0.0.1:${port}/scripted`);
    await until('the snapshot is recorded', async () =>
      (await chunks(sessionId)).some((c) => c.text.includes('light')),
    );
    live = await page.evaluate(() => {
      const sheet = (document.getElementById('sc') as HTMLStyleElement).sheet as CSSStyleSheet;
      // As styled-components in production: rules appended one by one, some in the middle; one removed.
      for (let i = 0; i < 50; i++) sheet.insertRule(`.sc-${i} { margin: ${i}px; }`, sheet.cssRules.length);
      sheet.insertRule('.mid { color: green; }', 10);
      sheet.deleteRule(3);
      sheet.insertRule('@media (min-width: 1px) { .m { color: blue; } }', sheet.cssRules.length);
      (sheet.cssRules[sheet.cssRules.length - 1] as CSSMediaRule).insertRule('.m2 { color: teal; }', 1);
      (sheet.cssRules[0] as CSSStyleRule).style.setProperty('background', 'yellow');
      (document.getElementById('v') as HTMLInputElement).value = 'SET-BY-SCRIPT';
      (document.getElementById('c') as HTMLInputElement).checked = true;
      return Array.from(sheet.cssRules, (r) => r.cssText);
    });
    await until('the changes reach the recording', async () => {
      const text = (await chunks(sessionId)).map((c) => c.text).join('');
      return text.includes('SET-BY-SCRIPT') && text.includes('teal');
    });
    // This tab's events alone (each tab's recorder numbers its nodes from 1).
    const batches = (await chunks(sessionId)).filter((c) => c.kind === 'rrweb').flatMap((c) => c.batches);
    const tab = batches.find((x) => JSON.stringify(x.events).includes('/scripted'))?.tab;
    const events = batches.filter((x) => x.tab === tab).flatMap((x) => x.events);
    // In another tab (a new snapshot of this one would hold its rules as they are): a shadow root attached late.
    const other = await b.browser.newPage();
    replayed = await replayedRules(other, events, 'sc');
    await other.goto(`http://127.0.0.1:${port}/scripted`);
    await until('the second page is recorded', async () =>
      (await chunks(sessionId)).some((c) =>
        c.batches.some((x) => x.tab !== tab && JSON.stringify(x).includes('light')),
      ),
    );
    await other.evaluate(() => {
      const root = (document.getElementById('host') as HTMLElement).attachShadow({ mode: 'open' });
      root.innerHTML = '<b>IN-SHADOW-ROOT</b>';
    });
    await until('the shadow root reaches the recording', async () =>
      (await chunks(sessionId)).some((c) => c.text.includes('IN-SHADOW-ROOT')),
    );
  });
  const events = recorded.flatMap((c) => (c.kind === 'rrweb' ? c.batches.flatMap((x) => x.events) : [])) as {
    type: number;
    data: { source?: number; text?: string; isChecked?: boolean };
  }[];
  const inputs = events.filter((e) => e.type === 3 && e.data.source === 5);
  assert.ok(
    inputs.some((e) => e.data.text === 'SET-BY-SCRIPT'),
    'a value a script set',
  );
  assert.ok(
    inputs.some((e) => e.data.isChecked === true),
    'a box a script checked',
  );
  assert.ok(live.length > 50);
  assert.deepEqual(replayed, live, "the stylesheet replays as the page's scripts left it");
  assert.ok(
    events.some((e) => e.type === 2 && JSON.stringify(e).includes('IN-SHADOW-ROOT')),
    'a shadow root attached after the snapshot',
  );
});

test("a constructed stylesheet's rules a script changes after it was adopted are recorded", async () => {
  await recordedSession(async (b, sessionId) => {
    const page = await b.browser.newPage();
    await page.goto(`http://127.0.0.1:${port}/scripted`);
    await page.evaluate(() => {
      const sheet = new CSSStyleSheet();
      sheet.replaceSync('.adopted-first { color: red; }');
      document.adoptedStyleSheets = [sheet];
    });
    await until('the adopted stylesheet is recorded', async () =>
      (await chunks(sessionId)).some((c) => c.text.includes('adopted-first')),
    );
    // No owner node, no mutation, the same array: only its rules changed.
    await page.evaluate(() => document.adoptedStyleSheets[0]?.insertRule('.adopted-later { color: blue; }'));
    await until('the rule added to it is recorded', async () =>
      (await chunks(sessionId)).some((c) => c.text.includes('adopted-later')),
    );
  });
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
