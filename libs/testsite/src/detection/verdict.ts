// The detection site's judgement of one visit: what the page answered in its
// every context (page.ts), against the headers the site received. Each check
// names where it comes from, so a failure reads as a detector would report
// it. Pure: answers and requests in, checks out.

import { DESKTOP_FONTS } from './page.js';

/**
 * Where a check comes from: CreepJS's headless module, the classic headless
 * tests, this suite's own, or a held-out detector (held-out.ts).
 */
export type CheckOrigin =
  | 'creepjs'
  | 'classic'
  | 'own'
  | 'botd'
  | 'fpscanner'
  | 'fpscanner-classic'
  | 'headless-detector';

export interface Check {
  name: string;
  origin: CheckOrigin;
  passed: boolean;
  /** What was seen, when it failed. */
  detail?: string;
}

export interface Verdict {
  checks: Check[];
  passed: number;
  total: number;
  /** Signals a detector reports that every desktop Chrome gives too: not counted (held-out.ts). */
  ignored?: { name: string; why: string }[];
}

/** One request of the visit as the site received it: its path and its headers in their order and case. */
export interface Received {
  path: string;
  rawHeaders: string[];
}

interface Probe {
  userAgent?: string;
  webdriver?: unknown;
  platform?: string;
  languages?: string[];
  hints?: Record<string, unknown> | null;
  error?: string;
}

interface Answers {
  main?: Probe & {
    appVersion?: string;
    plugins?: number;
    mimeTypes?: number;
    pdfViewerEnabled?: boolean;
    chrome?: boolean;
    notification?: string;
    notificationQuery?: string;
  };
  dedicated?: Probe;
  shared?: Probe;
  service?: Probe;
  frame?: Probe;
  sizes?: { inner?: number[]; outer?: number[]; screen?: number[]; avail?: number[]; visual?: number[] | null };
  audit?: { seen?: number; found?: string[]; count?: number };
  extraGlobals?: string[];
  /** Elements added to the document by anyone but the page's script. */
  foreignNodes?: string[];
  fonts?: { present?: string[]; colourEmoji?: boolean };
  /** enumerateDevices(): [kind, label, deviceId] each. */
  media?: string[][] | { error?: string };
}

/** Desktop screens as StatCounter's desktop resolutions list them (2025), the common ones. */
export const COMMON_SCREENS = [
  '1920x1080',
  '1366x768',
  '1536x864',
  '1440x900',
  '1280x720',
  '1600x900',
  '2560x1440',
  '1280x800',
  '1680x1050',
  '1280x1024',
  '1920x1200',
  '3840x2160',
];

/** Headers a browser never sends to a site: a proxy's, or ones a proxy adds. */
const PROXY_HEADERS = ['proxy-connection', 'proxy-authorization', 'via', 'forwarded', 'x-forwarded-for'];

const brandList = (brands: unknown) =>
  Array.isArray(brands)
    ? brands.map((b: { brand?: string; version?: string }) => `"${b.brand}";v="${b.version}"`).join(', ')
    : '';

const header = (request: Received | undefined, name: string): string[] => {
  const values: string[] = [];
  const raw = request?.rawHeaders ?? [];
  for (let i = 0; i + 1 < raw.length; i += 2) if (raw[i]?.toLowerCase() === name) values.push(raw[i + 1] as string);
  return values;
};

const same = (a: unknown, b: unknown) => JSON.stringify(a) === JSON.stringify(b);

/** The platform a user agent's first parenthesis names, as userAgentData spells it. */
function uaPlatform(userAgent: string): string | undefined {
  const system = /\(([^)]*)\)/.exec(userAgent)?.[1] ?? '';
  if (/Android/.test(system)) return 'Android';
  if (/Windows/.test(system)) return 'Windows';
  if (/Macintosh/.test(system)) return 'macOS';
  if (/CrOS/.test(system)) return 'Chrome OS';
  if (/Linux|X11/.test(system)) return 'Linux';
  return undefined;
}

/**
 * Judges a visit. `document`: the page's own request; `later`: one made after
 * the page's Accept-CH (the report), which carries the high-entropy hints.
 */
export function judge(answers: Answers, requests: Received[]): Verdict {
  const checks: Check[] = [];
  const check = (name: string, origin: CheckOrigin, passed: boolean, detail?: unknown) =>
    checks.push({ name, origin, passed, ...(!passed && detail !== undefined && { detail: JSON.stringify(detail) }) });
  const main = answers.main ?? {};
  const contexts = {
    dedicated: answers.dedicated,
    shared: answers.shared,
    service: answers.service,
    frame: answers.frame,
  };
  const all: [string, Probe | undefined][] = [['main', main], ...Object.entries(contexts)];
  const sizes = answers.sizes ?? {};
  const [innerW = 0, innerH = 0] = sizes.inner ?? [];
  const [outerW = 0, outerH = 0] = sizes.outer ?? [];
  const [screenW = 0, screenH = 0] = sizes.screen ?? [];
  const [availW = 0, availH = 0] = sizes.avail ?? [];
  const document = requests.find((r) => r.path.endsWith('/page'));
  const later = requests.find((r) => r.path.endsWith('/report'));
  const userAgent = main.userAgent ?? '';
  const hints = main.hints ?? {};

  // CreepJS's headless module (abrahamjuliot/creepjs, src/headless/index.ts at 0f46ab2): its
  // "headless" and "like headless" signals that a browser's configuration decides.
  check('webDriverIsOn', 'creepjs', main.webdriver === false, main.webdriver);
  check('hasHeadlessUA', 'creepjs', !/HeadlessChrome/.test(`${userAgent} ${main.appVersion}`), userAgent);
  const workerUas = Object.entries(contexts).map(([k, p]) => [k, p?.userAgent ?? p?.error]);
  check(
    'hasHeadlessWorkerUA',
    'creepjs',
    workerUas.every(([, ua]) => typeof ua === 'string' && !/HeadlessChrome|no answer|Error/.test(ua)),
    workerUas,
  );
  check('noChrome', 'creepjs', main.chrome === true);
  check('hasPermissionsBug', 'creepjs', !(main.notificationQuery === 'prompt' && main.notification === 'denied'), [
    main.notification,
    main.notificationQuery,
  ]);
  check('noPlugins', 'creepjs', (main.plugins ?? 0) > 0);
  check('noMimeTypes', 'creepjs', (main.mimeTypes ?? 0) > 0);
  check('uaDataIsBlank', 'creepjs', typeof hints.platform === 'string' && hints.platform !== '', hints.platform);
  check('pdfIsDisabled', 'creepjs', main.pdfViewerEnabled !== false);
  check('noTaskbar', 'creepjs', availW < screenW || availH < screenH, sizes);
  check(
    'hasVvpScreenRes',
    'creepjs',
    !((innerW === screenW && outerH === screenH) || same(sizes.visual, sizes.screen)),
    sizes,
  );

  // The classic headless tests (Antoine Vastel, "Detecting Chrome headless", 2017-2018): what
  // those add to the above.
  check('languages', 'classic', (main.languages ?? []).length > 0, main.languages);

  // This suite's own: one browser in every context and on the wire, a desktop's window, natives.
  check(
    'userAgentEverywhere',
    'own',
    all.every(([, p]) => p?.userAgent === userAgent) &&
      requests.every((r) => header(r, 'user-agent').every((v) => v === userAgent)),
    [...all.map(([k, p]) => [k, p?.userAgent ?? p?.error]), ...requests.map((r) => [r.path, header(r, 'user-agent')])],
  );
  check(
    'noWebdriverInWorkers',
    'own',
    // A worker's navigator has no webdriver at all (null here); a frame's is the page's.
    Object.values(contexts).every((p) => p !== undefined && !p.error && p.webdriver !== true),
    Object.entries(contexts).map(([k, p]) => [k, p?.webdriver ?? p?.error]),
  );
  // Chrome on Android answers no architecture or bitness, and names its model.
  const expected = hints.mobile
    ? ['model', 'platform', 'uaFullVersion']
    : ['architecture', 'bitness', 'platform', 'uaFullVersion'];
  const filled = expected.every((k) => typeof hints[k] === 'string' && hints[k] !== '');
  const listed = ['brands', 'fullVersionList', 'formFactors'].every(
    (k) => Array.isArray(hints[k]) && (hints[k] as unknown[]).length > 0,
  );
  check('highEntropyHintsFilled', 'own', filled && listed, hints);
  check(
    'hintsEverywhere',
    'own',
    all.every(([, p]) => same(p?.hints, main.hints)),
    all.filter(([, p]) => !same(p?.hints, main.hints)).map(([k, p]) => [k, p?.hints ?? p?.error]),
  );
  const major = /Chrome\/(\d+)/.exec(userAgent)?.[1];
  const chromium = (hints.brands as { brand: string; version: string }[] | undefined)?.find(
    (b) => b.brand === 'Chromium',
  );
  check(
    'hintsMatchUserAgent',
    'own',
    !!major &&
      chromium?.version === major &&
      String(hints.uaFullVersion).split('.')[0] === major &&
      uaPlatform(userAgent) === hints.platform,
    [userAgent, chromium, hints.uaFullVersion, hints.platform],
  );
  const lowEntropy = {
    'sec-ch-ua': brandList(hints.brands),
    'sec-ch-ua-mobile': hints.mobile ? '?1' : '?0',
    'sec-ch-ua-platform': `"${hints.platform}"`,
  };
  const sentLow = Object.fromEntries(Object.keys(lowEntropy).map((k) => [k, header(document, k)[0]]));
  check('clientHintHeaders', 'own', same(sentLow, lowEntropy), { sent: sentLow, javascript: lowEntropy });
  const highEntropy = {
    'sec-ch-ua-full-version-list': brandList(hints.fullVersionList),
    'sec-ch-ua-arch': `"${hints.architecture}"`,
    'sec-ch-ua-bitness': `"${hints.bitness}"`,
    'sec-ch-ua-platform-version': `"${hints.platformVersion}"`,
    'sec-ch-ua-model': `"${hints.model}"`,
    'sec-ch-ua-wow64': hints.wow64 ? '?1' : '?0',
    'sec-ch-ua-form-factors': ((hints.formFactors as string[] | undefined) ?? []).map((f) => `"${f}"`).join(', '),
  };
  const sentHigh = Object.fromEntries(Object.keys(highEntropy).map((k) => [k, header(later, k)[0]]));
  check('highEntropyHintHeaders', 'own', same(sentHigh, highEntropy), { sent: sentHigh, javascript: highEntropy });
  const language = header(document, 'accept-language')[0]?.split(',')[0];
  check('acceptLanguage', 'own', !!language && language === main.languages?.[0], [language, main.languages]);
  check('windowAroundViewport', 'own', outerW >= innerW && outerH > innerH && innerW > 0, sizes);
  check('screenAroundWindow', 'own', screenW >= outerW && screenH >= outerH && outerW > 0, sizes);
  check('commonScreen', 'own', COMMON_SCREENS.includes(`${screenW}x${screenH}`), sizes.screen);
  const fonts = answers.fonts ?? {};
  check(
    'desktopFonts',
    'own',
    DESKTOP_FONTS.every((f) => fonts.present?.includes(f)) && fonts.colourEmoji === true,
    fonts,
  );
  // Before a page is granted a device, a desktop's Chrome lists one of each kind it has, unnamed.
  const media = Array.isArray(answers.media) ? answers.media : [];
  check(
    'mediaDevices',
    'own',
    ['audioinput', 'videoinput', 'audiooutput'].every((kind) => media.some(([k]) => k === kind)) &&
      media.every(([, label, id]) => label === '' && id === ''),
    answers.media,
  );
  const audit = answers.audit ?? {};
  check('nativesReadNative', 'own', audit.count === 0 && (audit.seen ?? 0) > 1_000, audit);
  check(
    'noExtraGlobals',
    'own',
    Array.isArray(answers.extraGlobals) && answers.extraGlobals.length === 0,
    answers.extraGlobals,
  );
  check(
    'noForeignNodes',
    'own',
    Array.isArray(answers.foreignNodes) && answers.foreignNodes.length === 0,
    answers.foreignNodes,
  );
  const proxied = requests.flatMap((r) =>
    PROXY_HEADERS.filter((h) => header(r, h).length > 0).map((h) => `${r.path}: ${h}`),
  );
  check('noProxyHeaders', 'own', proxied.length === 0, proxied);
  // Chromium's HTTP/1.1 request: Host first, one Connection: keep-alive right after it.
  const names = (document?.rawHeaders ?? []).filter((_, i) => i % 2 === 0).map((n) => n.toLowerCase());
  check(
    'browserHeaderOrder',
    'own',
    names[0] === 'host' && names[1] === 'connection' && same(header(document, 'connection'), ['keep-alive']),
    document?.rawHeaders,
  );
  const passed = checks.filter((c) => c.passed).length;
  return { checks, passed, total: checks.length };
}
