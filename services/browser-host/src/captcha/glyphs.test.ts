// A text captcha's image made into glyphs and read (glyphs.ts, ocr.ts): an
// svg-captcha image with a noise curve where the test knows it, as Chromium
// renders it and the host captures it, is cleaned of the curve, split into
// its characters and read; the pieces (faces inside outlines, the vote of
// the readings) on bitmaps and readings made by hand.
import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import { AllowList } from '@wap/netguard';
import { type CaptchaSite, startCaptchaSite } from '@wap/testsite';
import { browserFace } from '../domain/browser-face.js';
import { sessionSettings } from '../domain/session-options.js';
import { chromiumVersion, launchSessionBrowser, type SessionBrowser } from '../sessions/session-browser.js';
import { type Bitmap, characters, faces, glyphs, inkOf } from './glyphs.js';
import { agreed, readText, stopOcr } from './ocr.js';
import { openPageWorld } from './page-world.js';

const CHROMIUM = '/usr/bin/chromium';
/** A noise curve from the left edge to the right, through the middle of every character (150×50 image). */
const LINE = 'M4 31 C50 12,100 42,146 20';
let site: CaptchaSite;
let launched: SessionBrowser;

before(async () => {
  site = await startCaptchaSite();
  const face = browserFace(sessionSettings({} as Parameters<typeof sessionSettings>[0]), chromiumVersion(CHROMIUM));
  launched = await launchSessionBrowser(CHROMIUM, AllowList.parse('127.0.0.0/8'), face);
});
after(async () => {
  await launched?.close();
  await site?.close();
  await stopOcr();
});

/** The captcha's image as the host captures it: its element, at 3× scale. */
async function captured(text: string): Promise<Buffer> {
  const page = await launched.browser.newPage();
  try {
    await page.goto(site.textCaptcha({ text, line: LINE }).url);
    await page.waitForFunction(() => (document.querySelector('#captcha-image') as HTMLImageElement | null)?.complete);
    const box = await (await page.$('#captcha-image'))?.boundingBox();
    assert.ok(box);
    const world = await openPageWorld(page);
    try {
      return await world.capture(box, 3);
    } finally {
      await world.close();
    }
  } finally {
    await page.close();
  }
}

const inkIn = (b: Bitmap, x0: number, x1: number) => {
  let n = 0;
  for (let y = 0; y < b.h; y++) for (let x = x0; x <= x1; x++) n += b.ink[y * b.w + x] as number;
  return n;
};

test('a noise curve through an outlined captcha is cleaned away and its characters come apart', async () => {
  const png = await captured('Kd7P');
  const drawn = inkOf(png);
  const solid = glyphs(png);
  const boxes = characters(solid);
  assert.equal(boxes.length, 4);
  // Left of the first character, and between each two, the curve is drawn and cleaned away.
  const gaps = [[0, (boxes[0]?.x0 ?? 0) - 1], ...boxes.slice(1).map((b, i) => [(boxes[i]?.x1 ?? 0) + 1, b.x0 - 1])];
  for (const [x0 = 0, x1 = 0] of gaps) {
    assert.ok(x1 >= x0, `characters ${x0}-${x1} overlap`);
    assert.ok(inkIn(drawn, x0, x1) > 0, `no curve drawn in columns ${x0}-${x1}`);
    assert.equal(inkIn(solid, x0, x1), 0, `curve left in columns ${x0}-${x1}`);
  }
  // Each character is a glyph's size: about a third of the image high, none a sliver.
  for (const b of boxes) assert.ok(b.y1 - b.y0 > solid.h / 4 && b.x1 - b.x0 > solid.w / 40, JSON.stringify(b));
});

test('an outlined captcha struck through by a curve is read', async () => {
  for (const text of ['Kd7P', 'HmE3']) assert.equal(await readText(await captured(text)), text.toLowerCase());
});

/** A bitmap from rows of '#' (ink) and '.' (paper). */
const drawnAs = (rows: string[]): Bitmap => ({
  w: rows[0]?.length ?? 0,
  h: rows.length,
  ink: Uint8Array.from(rows.join('').split(''), (c) => (c === '#' ? 1 : 0)),
});

test('a face is the paper inside an outline; its counter and the paper outside are not', () => {
  const found = faces(
    drawnAs([
      '...........',
      '.#########.',
      '.#.......#.',
      '.#.#####.#.',
      '.#.#...#.#.',
      '.#.#####.#.',
      '.#.......#.',
      '.#########.',
      '...........',
    ]),
  );
  const rows = Array.from({ length: found.h }, (_, y) =>
    Array.from({ length: found.w }, (_, x) => (found.ink[y * found.w + x] ? 'f' : '.')).join(''),
  );
  assert.deepEqual(rows, [
    '...........',
    '...........',
    '..fffffff..',
    '..f.....f..',
    '..f.....f..',
    '..f.....f..',
    '..fffffff..',
    '...........',
    '...........',
  ]);
});

test('readings are voted: two that agree win, else each character by majority, the first on a tie', () => {
  assert.equal(agreed(['abxd', 'AB', 'ab'], 4), 'ab');
  assert.equal(
    agreed(
      ['a9cd', 'agcx', 'agcd'].map((r) => r.toUpperCase()),
      4,
    ),
    'agcd',
  );
  assert.equal(agreed(['abcd', 'wxyz', 'pqrs'], 4), 'abcd');
  assert.equal(agreed(['a?cd', 'xbcz', 'pqr'], 4), 'abcd');
  assert.equal(agreed(['ab', 'xyz', 'pqrs'], 5), 'pqrs');
});
