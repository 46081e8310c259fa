// A session browser wears the face its session asked for, in the page and
// on the wire: user agent and client hints, navigator.webdriver, languages
// and Accept-Language, Intl's locale, the time zone, the viewport and the
// screen; in a browser context the client makes too. Real Chromium, a
// loopback site.
import assert from 'node:assert/strict';
import { createServer, type IncomingHttpHeaders, type Server } from 'node:http';
import { after, before, test } from 'node:test';
import { AllowList } from '@wap/netguard';
import puppeteer, { type Page } from 'puppeteer-core';
import { acceptLanguages, browserFace, chromeUserAgent } from '../domain/browser-face.js';
import { sessionSettings } from '../domain/session-options.js';
import { chromiumVersion, launchSessionBrowser } from './session-browser.js';

const CHROMIUM = '/usr/bin/chromium';
let site: Server;
let url: string;
const seen: IncomingHttpHeaders[] = [];

before(async () => {
  site = createServer((req, res) => {
    seen.push(req.headers);
    res.writeHead(200, { 'content-type': 'text/html' }).end('<!doctype html><p>face');
  });
  await new Promise<void>((r) => site.listen(0, '127.0.0.1', r));
  url = `http://127.0.0.1:${(site.address() as { port: number }).port}/`;
});

after(() => site.close());

const probe = (page: Page) =>
  page.evaluate(() => ({
    ua: navigator.userAgent,
    brands: (navigator as { userAgentData?: { brands: { brand: string }[] } }).userAgentData?.brands.map(
      (b) => b.brand,
    ),
    webdriver: navigator.webdriver,
    languages: [...navigator.languages],
    intl: Intl.DateTimeFormat().resolvedOptions().locale,
    number: (1234.5).toLocaleString(),
    timezone: Intl.DateTimeFormat().resolvedOptions().timeZone,
    viewport: [innerWidth, innerHeight],
    screen: [screen.width, screen.height],
    notifications: Notification.permission,
  }));

/** Launches a session browser for `options` and reads its face from a page of the default context and of a new one. */
async function faceOf(options: Parameters<typeof sessionSettings>[0]) {
  const version = chromiumVersion(CHROMIUM);
  const launched = await launchSessionBrowser(
    CHROMIUM,
    AllowList.parse('127.0.0.0/8'),
    browserFace(sessionSettings(options), version),
  );
  // A client of its own, as a CDP client would connect: the host's puppeteer emulates nothing.
  const client = await puppeteer.connect({ transport: await launched.openChannel(), defaultViewport: null });
  try {
    const page = (await client.pages())[0] ?? (await client.newPage());
    seen.length = 0;
    await page.goto(url);
    const headers = { ...seen[0] };
    const context = await client.createBrowserContext();
    const other = await context.newPage();
    await other.goto(url);
    return { version, launched: launched.version, page: await probe(page), other: await probe(other), headers };
  } finally {
    await client.disconnect();
    await launched.close();
  }
}

test("by default a session looks like Chrome: its user agent, no webdriver, en-US, 1280 x 800 in a desktop's screen", async () => {
  const face = await faceOf(undefined);
  const ua = chromeUserAgent(face.version);
  assert.equal(face.page.ua, ua);
  assert.equal(face.headers['user-agent'], ua, 'the same on the wire');
  assert.equal(face.launched.userAgent, ua, "json/version's User-Agent says the same");
  assert.ok(!String(face.headers['sec-ch-ua']).includes('Headless'), `client hints: ${face.headers['sec-ch-ua']}`);
  assert.equal(face.page.webdriver, false);
  assert.equal(face.page.notifications, 'default', "a desktop's, not headless's denied");
  assert.deepEqual(face.page.languages, ['en-US', 'en']);
  assert.equal(face.headers['accept-language'], 'en-US,en;q=0.9');
  assert.deepEqual(face.page.viewport, [1280, 800]);
  assert.deepEqual(face.page.screen, [1920, 1080]);
  assert.deepEqual(face.other.viewport, [1280, 800], "a client's new context has the same window");
  assert.equal(face.other.webdriver, false);
});

test('locale, time zone and viewport reach the page, in a new browser context too', async () => {
  const face = await faceOf({
    idleTimeoutSeconds: 0,
    maxLifetimeSeconds: 0,
    viewportWidth: 1024,
    viewportHeight: 700,
    locale: 'de-DE',
    timezone: 'Asia/Tokyo',
  } as Parameters<typeof sessionSettings>[0]);
  for (const page of [face.page, face.other]) {
    assert.equal(page.languages[0], 'de-DE');
    assert.equal(page.intl.split('-')[0], 'de', `Intl's locale: ${page.intl}`);
    assert.equal(page.number, '1.234,5');
    assert.equal(page.timezone, 'Asia/Tokyo');
    assert.deepEqual(page.viewport, [1024, 700]);
  }
  assert.equal(face.headers['accept-language'], 'de-DE,de;q=0.9');
});

test('with stealth off a session is headless Chromium as it comes: its own user agent, webdriver true', async () => {
  const face = await faceOf({ stealth: false } as Parameters<typeof sessionSettings>[0]);
  assert.match(face.page.ua, /HeadlessChrome\//);
  assert.equal(face.page.webdriver, true);
});

test('Accept-Language of a locale: the locale, then its language', () => {
  assert.equal(acceptLanguages('pt-BR'), 'pt-BR,pt');
  assert.equal(acceptLanguages('fr'), 'fr');
});
