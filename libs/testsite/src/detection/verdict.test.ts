// The detection suite's judgement: a desktop Chrome's answers pass every
// check, and each tell a detector looks for fails the check that names it.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { DESKTOP_FONTS } from './page.js';
import { judge, type Received } from './verdict.js';

const UA = 'Mozilla/5.0 (X11; Linux x86_64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/156.0.0.0 Safari/537.36';
const brands = [
  { brand: 'Not:A-Brand', version: '8' },
  { brand: 'Chromium', version: '156' },
];
const hints = {
  architecture: 'x86',
  bitness: '64',
  brands,
  formFactors: ['Desktop'],
  fullVersionList: [
    { brand: 'Not:A-Brand', version: '8.0.0.0' },
    { brand: 'Chromium', version: '156.0.8078.108' },
  ],
  mobile: false,
  model: '',
  platform: 'Linux',
  platformVersion: '',
  uaFullVersion: '156.0.8078.108',
  wow64: false,
};
const probe = { userAgent: UA, webdriver: null, platform: 'Linux x86_64', languages: ['en-US', 'en'], hints };

function chrome() {
  const answers = {
    main: {
      ...probe,
      webdriver: false,
      appVersion: UA.slice(8),
      plugins: 5,
      mimeTypes: 2,
      pdfViewerEnabled: true,
      chrome: true,
      notification: 'default',
      notificationQuery: 'prompt',
    },
    dedicated: { ...probe },
    shared: { ...probe },
    service: { ...probe },
    frame: { ...probe, webdriver: false },
    sizes: { inner: [1280, 800], outer: [1280, 887], screen: [1920, 1080], avail: [1920, 1048], visual: [1280, 800] },
    audit: { seen: 10_000, found: [] as string[], count: 0 },
    extraGlobals: [] as string[],
    foreignNodes: [] as string[],
    fonts: { present: [...DESKTOP_FONTS], colourEmoji: true },
    media: [
      ['audioinput', '', ''],
      ['videoinput', '', ''],
      ['audiooutput', '', ''],
    ],
  };
  const low = ['sec-ch-ua', '"Not:A-Brand";v="8", "Chromium";v="156"', 'sec-ch-ua-mobile', '?0'];
  const requests: Received[] = [
    {
      path: '/v/1/page',
      rawHeaders: ['Host', 'a', 'Connection', 'keep-alive', ...low, 'sec-ch-ua-platform', '"Linux"'],
    },
    {
      path: '/v/1/report',
      rawHeaders: [
        'Host',
        'a',
        'Connection',
        'keep-alive',
        ...['sec-ch-ua-full-version-list', '"Not:A-Brand";v="8.0.0.0", "Chromium";v="156.0.8078.108"'],
        ...['sec-ch-ua-arch', '"x86"', 'sec-ch-ua-bitness', '"64"', 'sec-ch-ua-platform-version', '""'],
        ...['sec-ch-ua-model', '""', 'sec-ch-ua-wow64', '?0', 'sec-ch-ua-form-factors', '"Desktop"'],
      ],
    },
  ];
  for (const r of requests) r.rawHeaders.push('User-Agent', UA, 'Accept-Language', 'en-US,en;q=0.9');
  return { answers, requests };
}

const failing = ({ answers, requests }: ReturnType<typeof chrome>) =>
  judge(answers, requests)
    .checks.filter((c) => !c.passed)
    .map((c) => c.name);

test("a desktop Chrome's answers pass every check", () => {
  const verdict = judge(chrome().answers, chrome().requests);
  assert.deepEqual(failing(chrome()), []);
  assert.equal(verdict.passed, verdict.total);
  assert.ok(verdict.total >= 25);
});

test('each tell fails the check that names it', () => {
  const tells: [string, (c: ReturnType<typeof chrome>) => void][] = [
    [
      'webDriverIsOn',
      (c) => {
        c.answers.main.webdriver = true;
      },
    ],
    [
      'hasHeadlessWorkerUA',
      (c) => {
        c.answers.service.userAgent = UA.replace('Chrome/', 'HeadlessChrome/');
      },
    ],
    [
      'highEntropyHintsFilled',
      (c) => {
        c.answers.main.hints = { ...hints, architecture: '' };
      },
    ],
    [
      'hintsEverywhere',
      (c) => {
        c.answers.shared.hints = { ...hints, bitness: '' };
      },
    ],
    [
      'highEntropyHintHeaders',
      (c) => {
        c.requests[1]?.rawHeaders.splice(4, 2);
      },
    ],
    [
      'noTaskbar',
      (c) => {
        c.answers.sizes.avail = [1920, 1080];
      },
    ],
    [
      'windowAroundViewport',
      (c) => {
        c.answers.sizes.inner = [1366, 900];
      },
    ],
    [
      'desktopFonts',
      (c) => {
        c.answers.fonts = { present: ['DejaVu Sans'], colourEmoji: false };
      },
    ],
    [
      'mediaDevices',
      (c) => {
        c.answers.media = [];
      },
    ],
    [
      'commonScreen',
      (c) => {
        c.answers.sizes.screen = [800, 600];
      },
    ],
    [
      'nativesReadNative',
      (c) => {
        c.answers.audit = { seen: 10_000, found: ['Element.prototype.x'], count: 1 };
      },
    ],
    [
      'noForeignNodes',
      (c) => {
        c.answers.foreignNodes = ['IFRAME'];
      },
    ],
    [
      'noProxyHeaders',
      (c) => {
        c.requests[0]?.rawHeaders.push('Proxy-Connection', 'keep-alive');
      },
    ],
    [
      'browserHeaderOrder',
      (c) => {
        c.requests[0]?.rawHeaders.push('Connection', 'close');
      },
    ],
  ];
  for (const [name, tell] of tells) {
    const visit = chrome();
    tell(visit);
    assert.ok(failing(visit).includes(name), `${name}: ${failing(visit)}`);
  }
});
