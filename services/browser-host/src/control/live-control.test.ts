// A person's input reaches a session's page: batches asked on the session's
// input subject over real NATS are checked again and dispatched on the host's
// own CDP sessions of a real session browser; navigation stays on the link's
// site, asked for or started by a click, until control is released.
import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import { after, before, test } from 'node:test';
import { jetstreamManager } from '@nats-io/jetstream';
import {
  type ControlReply,
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
import { chunkSink, SessionRecording } from '../recording/recording.js';
import type { ScreenFrame } from '../recording/screencast.js';
import { chromiumVersion, launchSessionBrowser, type SessionBrowser } from '../sessions/session-browser.js';

const KEY = 'a-test-recording-key-of-at-least-32-chars';
const namespace = uniqueNamespace('control');
const names = sessionStreamNames(namespace);
let nats: NatsLink;
let site: Server;
let port: number;
/** Another site: the same pages on another address. */
let other: Server;
let otherPort: number;
/** Paths the site was asked for, in order. */
const served: string[] = [];

const HOME = (port: number) => `<!doctype html><html><body>
<h1>Home</h1>
<button id="go" onclick="document.getElementById('out').textContent = 'Clicked'">Go</button>
<p id="out">Not yet</p>
<form id="form" onsubmit="event.preventDefault(); document.getElementById('sent').textContent = 'Sent ' + document.getElementById('name').value">
<input id="name" type="text" autocomplete="off">
</form>
<p id="sent"></p>
<a id="away" href="http://localhost:${port}/elsewhere">Another site</a>
<a id="near" href="/second">Same site</a>
<a id="popup" href="http://127.0.0.2:${otherPort}/popped" target="_blank">Another site in a new tab</a>
</body></html>`;

before(async () => {
  nats = await testNats('control-test');
  // The recording's chunks need somewhere to go, or each session's end waits for them.
  await ensureStreams(nats.nc, sessionStreams(namespace));
  const serve = (req: IncomingMessage, res: ServerResponse) => {
    served.push(`${req.headers.host?.split(':')[0]}${req.url}`);
    if (req.url === '/redirect') {
      res.writeHead(302, { location: `http://localhost:${port}/redirected` });
      return void res.end();
    }
    res.writeHead(200, { 'content-type': 'text/html' });
    if (req.url === '/second') res.end('<!doctype html><h1>Second</h1>');
    else if (req.url === '/elsewhere') res.end('<!doctype html><h1>Elsewhere</h1>');
    else res.end(HOME(port));
  };
  site = createServer(serve);
  other = createServer(serve);
  await new Promise<void>((r) => site.listen(0, '127.0.0.1', r));
  await new Promise<void>((r) => other.listen(0, '127.0.0.2', r));
  port = (site.address() as { port: number }).port;
  otherPort = (other.address() as { port: number }).port;
});
after(async () => {
  await (await jetstreamManager(nats.nc)).streams.delete(names.stream).catch(() => undefined);
  await nats?.drain();
  site?.close();
  other?.close();
});

interface Driven {
  b: SessionBrowser;
  page: Page;
  sessionId: string;
  tab: number;
  ask(message: unknown): Promise<ControlReply>;
  batch(...actions: unknown[]): Promise<ControlReply>;
}

/** A recorded session browser on the site's home page, driven through the bus; closed after `drive`. */
async function driven(drive: (d: Driven) => Promise<void>): Promise<void> {
  const face = browserFace(sessionSettings(undefined), chromiumVersion('/usr/bin/chromium'));
  const b = await launchSessionBrowser('/usr/bin/chromium', AllowList.parse('127.0.0.0/8'), face, { record: true });
  const sessionId = randomUUID();
  const recording = new SessionRecording(
    sessionId,
    'ws-control',
    chunkSink(new Publisher(nats.nc), namespace, KEY, nats.nc, () => (b.browser.connected ? b.browser : undefined)),
    quietLog(),
  );
  b.recordTo(recording);
  // No screencast of the recording's own: every live frame comes from control's.
  await b.captureNetwork(recording, { bodies: false, screencastIntervalMs: 0 });
  try {
    const page = await b.browser.newPage();
    await page.goto(`http://127.0.0.1:${port}/`);
    const tab = recording.tabOf((page.target() as unknown as { _targetId: string })._targetId);
    const ask = async (message: unknown) =>
      (
        await nats.nc.request(names.liveInput(sessionId), JSON.stringify(message), { timeout: 15_000 })
      ).json<ControlReply>();
    const batch = (...actions: unknown[]) => ask({ site: '127.0.0.1', tab, actions });
    await drive({ b, page, sessionId, tab, ask, batch });
  } finally {
    await b.close();
    await recording.close();
  }
}

/** The middle of an element, in the page's CSS pixels. */
const middle = (page: Page, selector: string) =>
  page.$eval(selector, (el) => {
    const r = el.getBoundingClientRect();
    return { x: r.x + r.width / 2, y: r.y + r.height / 2 };
  });
const click = (at: { x: number; y: number }) => [
  { type: 'mouseDown', ...at, button: 'left', clickCount: 1 },
  { type: 'mouseUp', ...at, button: 'left', clickCount: 1 },
];
const key = (key: string, code: string, text?: string) => [
  { type: 'keyDown', key, code, ...(text && { text }) },
  { type: 'keyUp', key, code },
];
const text = (page: Page, selector: string) => page.$eval(selector, (el) => el.textContent);

test('a click presses the button, keys and a paste type into the field, Enter submits; frames go live', async () => {
  await driven(async ({ page, sessionId, tab, batch }) => {
    const frames: ScreenFrame[] = [];
    const sub = nats.nc.subscribe(names.liveFrames(sessionId), {
      callback: (_err, msg) => {
        frames.push(msg.json<ScreenFrame>());
      },
    });
    try {
      assert.equal(await text(page, '#out'), 'Not yet');
      const clicked = await batch(
        { type: 'mouseMove', ...(await middle(page, '#go')) },
        ...click(await middle(page, '#go')),
      );
      assert.deepEqual(clicked, { ok: true, url: `http://127.0.0.1:${port}/` });
      await until('the click reached the button', async () => (await text(page, '#out')) === 'Clicked');

      const typed = await batch(
        ...click(await middle(page, '#name')),
        ...key('H', 'KeyH', 'H'),
        ...key('i', 'KeyI', 'i'),
        { type: 'insertText', text: ' there!' },
        ...key('Backspace', 'Backspace'),
      );
      assert.equal(typed.ok, true);
      await until(
        'the typing landed in the field',
        async () => (await page.$eval('#name', (el) => (el as HTMLInputElement).value)) === 'Hi there',
      );
      assert.equal((await batch(...key('Enter', 'Enter'))).ok, true);
      await until('Enter submitted the form', async () => (await text(page, '#sent')) === 'Sent Hi there');
      await until('the driven tab streams frames of its own', async () => frames.some((f) => f.tab === tab));
    } finally {
      sub.unsubscribe();
    }
  });
});

test('navigation stays on the site: asked for, clicked or back, until control is released', async () => {
  await driven(async ({ page, batch, ask, tab }) => {
    const away = `http://localhost:${port}/elsewhere`;
    // The client was on another site before this one: back there is refused, as is going there.
    await page.goto(away);
    await page.goto(`http://127.0.0.1:${port}/`);
    served.length = 0;
    assert.deepEqual(await batch({ type: 'back' }), { ok: false, refused: 'cross_site', host: 'localhost' });
    assert.deepEqual(await batch({ type: 'navigate', url: away }), {
      ok: false,
      refused: 'cross_site',
      host: 'localhost',
    });
    assert.equal(page.url(), `http://127.0.0.1:${port}/`, 'the page did not move');

    // Same site: opened, then back.
    assert.equal((await batch({ type: 'navigate', url: `http://127.0.0.1:${port}/second` })).ok, true);
    await until('the second page is open', async () => page.url() === `http://127.0.0.1:${port}/second`);
    const back = await batch({ type: 'back' });
    assert.equal(back.ok, true);
    await until('back on the home page', async () => page.url() === `http://127.0.0.1:${port}/`);
    await page.waitForSelector('#away');

    // A click on a link to another site: the navigation is stopped before it leaves, and named.
    const clicked = await batch(...click(await middle(page, '#away')));
    assert.equal(clicked.ok, true);
    // Named in the answer of the batch that clicked, or of a later one when the request came after it.
    const blocked = clicked.ok ? (clicked.blocked ?? []) : [];
    await until('the guard names the host it kept the tab from', async () => {
      if (blocked.includes('localhost')) return true;
      const reply = await batch();
      blocked.push(...(reply.ok ? (reply.blocked ?? []) : []));
      return blocked.includes('localhost');
    });
    assert.equal(page.url(), `http://127.0.0.1:${port}/`);
    // A same-site address that redirects away, and a link to another site in a new tab: stopped too.
    blocked.length = 0;
    for (const reply of [
      await batch({ type: 'navigate', url: `http://127.0.0.1:${port}/redirect` }),
      await batch(...click(await middle(page, '#popup'))),
    ])
      blocked.push(...(reply.ok ? (reply.blocked ?? []) : []));
    await until('the redirect and the new tab are stopped', async () => {
      const reply = await batch();
      blocked.push(...(reply.ok ? (reply.blocked ?? []) : []));
      return blocked.includes('localhost') && blocked.includes('127.0.0.2');
    });
    assert.ok(served.includes('127.0.0.1/redirect'), 'the same-site hop was asked for');
    for (const path of ['localhost/elsewhere', 'localhost/redirected', '127.0.0.2/popped'])
      assert.ok(!served.includes(path), `nothing of the other sites was asked for (${path})`);
    assert.equal(page.url(), `http://127.0.0.1:${port}/`);

    // What the bus carries is checked again: a batch without a site, an unknown tab, a script.
    assert.deepEqual(await ask({ tab, actions: [] }), { ok: false, refused: 'invalid' });
    assert.deepEqual(await ask({ site: '127.0.0.1', tab: tab + 50, actions: [] }), { ok: false, refused: 'no_tab' });
    assert.deepEqual(await ask({ site: '127.0.0.1', tab, actions: [{ type: 'evaluate', expression: '1' }] }), {
      ok: false,
      refused: 'invalid',
    });

    // Released, the tab is the client's again: its own click leaves the site.
    assert.deepEqual(await ask({ release: true }), { ok: true });
    await Promise.all([page.waitForNavigation(), page.click('#away')]);
    assert.equal(page.url(), away);
  });
});

test('a session that ended answers no input: nobody listens on its subject', async () => {
  let sessionId = '';
  await driven(async (d) => {
    sessionId = d.sessionId;
    assert.equal((await d.batch()).ok, true);
  });
  await assert.rejects(
    nats.nc.request(names.liveInput(sessionId), JSON.stringify({ release: true }), { timeout: 5_000 }),
    (err: Error & { cause?: Error }) => /no responders/i.test(`${err.message} ${err.cause?.message}`),
  );
});
