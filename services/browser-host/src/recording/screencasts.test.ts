// When a page's screencast runs, in a real Chromium: while someone watches (and
// not after), and while its document shows what rrweb cannot see.
import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import { until } from '@wap/testkit';
import puppeteer, { type Browser } from 'puppeteer-core';
import type { ScreenFrame } from './screencast.js';
import { Screencasts, showsMedia } from './screencasts.js';

let browser: Browser;

before(async () => {
  browser = await puppeteer.launch({
    executablePath: '/usr/bin/chromium',
    args: ['--no-sandbox', '--headless=new'],
  });
});

after(async () => {
  await browser?.close();
});

test('a watched page has a screencast until the watch lapses; a page showing media has one until it stops', async () => {
  const page = await browser.newPage();
  await page.setContent('<h1>Still</h1>');
  const cdp = await page.createCDPSession();
  const frames: ScreenFrame[] = [];
  const screencasts = new Screencasts(50, (f) => frames.push(f), { watchMs: 400 });
  try {
    screencasts.add(7, cdp);
    assert.deepEqual(screencasts.running(), [], 'a plain page, unwatched: no screencast');

    screencasts.watch();
    assert.deepEqual(screencasts.running(), [7], 'watched: the page runs its screencast');
    await until('a frame of the page comes', async () => frames.some((f) => f.tab === 7));
    await until('the watch lapses', async () => screencasts.running().length === 0);

    screencasts.media(7, true);
    assert.deepEqual(screencasts.running(), [7], 'a canvas on the page: the screencast runs unwatched');
    const before = frames.length;
    await page.evaluate(() => {
      document.body.append(Object.assign(document.createElement('p'), { textContent: 'changed' }));
    });
    await until('the change comes as a frame', async () => frames.length > before);
    screencasts.media(7, false);
    assert.deepEqual(screencasts.running(), [], 'its next document shows none: the screencast stops');
  } finally {
    screencasts.close();
    await page.close();
  }
});

test("a page's events show media by an element's tag; text that reads like one does not", () => {
  const batch = (events: unknown[]) => Buffer.from(JSON.stringify({ tab: 1, events }));
  const element = (tagName: string) => ({ type: 2, data: { node: { type: 2, tagName, attributes: {} } } });
  for (const tag of ['canvas', 'video', 'embed', 'object']) assert.ok(showsMedia(batch([element(tag)])), tag);
  assert.equal(showsMedia(batch([element('div'), element('img')])), false);
  assert.equal(
    showsMedia(batch([{ type: 3, data: { texts: [{ value: '"tagName":"canvas"' }] } }])),
    false,
    "a page's text cannot pass for an element",
  );
});
