// The held-out detectors: public bot detectors run as their authors ship
// them, from their npm packages, on a page of the detection site
// (site.ts, `visit('held-out')`). None of them shaped the browser's face
// (docs/connect.md, "What a detector sees", says each one's origin and
// version): they check it. Each detector's own verdict is taken as it gives
// it, one check per signal it reports, so a failure names the detector and
// its signal.
import { readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { reportAnswers } from './page.js';
import type { Check, Verdict } from './verdict.js';

/** Where a package's file is, without going through its `main` (fpcollect's names a file it does not ship). */
const packageFile = (name: string, file: string) => join(dirname(require.resolve(`${name}/package.json`)), file);

/**
 * The detectors' browser scripts, by the file name the page loads them
 * under. fpCollect is a CommonJS module: it is given a `module` to fill.
 */
function loadScripts(): Record<string, string> {
  const fpCollect = readFileSync(packageFile('fpcollect', 'src/fpCollect.js'), 'utf8');
  return {
    'botd.js': readFileSync(packageFile('@fingerprintjs/botd', 'dist/botd.esm.js'), 'utf8'),
    'fpscanner.js': readFileSync(packageFile('fpscanner', 'dist/fpScanner.es.js'), 'utf8'),
    'fpcollect.js': `(() => { const module = {};\n${fpCollect}\nwindow.fpCollect = module.exports; })();`,
    'headless.js': readFileSync(packageFile('headless-detector', 'scripts/headless-detector.js'), 'utf8'),
  };
}

let scripts: Record<string, string> | undefined;
/** The detectors' scripts, read once. */
export const heldOutScripts = () => {
  scripts ??= loadScripts();
  return scripts;
};

/** The page of visit `base` (`/v/<id>/`): runs each detector in turn and posts what each said. */
export function heldOutPage(base: string): string {
  return `<!doctype html><html><head><title>held-out detectors</title></head><body><h1>held-out detectors</h1>
<script src="${base}fpcollect.js"></script>
<script src="${base}headless.js"></script>
<script type="module">
import { load } from '${base}botd.js';
import FingerprintScanner from '${base}fpscanner.js';
const within = (ms, promise) => Promise.race([promise, new Promise((r) => setTimeout(() => r({ error: 'no answer in ' + ms + ' ms' }), ms))]);
const safely = (make) => within(15000, (async () => make())().catch((e) => ({ error: String(e) })));
const answers = {};
answers.botd = await safely(async () => {
  const botd = await load({ monitoring: false });
  const result = botd.detect();
  return { result, detections: botd.getDetections() };
});
answers.fpscanner = await safely(async () => {
  const fingerprint = await new FingerprintScanner().collectFingerprint({ encrypt: false });
  return { bot: fingerprint.fastBotDetection, details: fingerprint.fastBotDetectionDetails };
});
answers.fpcollect = await safely(() => window.fpCollect.generateFingerprint());
answers.headless = await safely(async () => {
  const r = await window.detectHeadless();
  return { score: r.isHeadless, summary: r.summary };
});
${reportAnswers(base)}
</script></body></html>`;
}

interface HeldOutAnswers {
  botd?: {
    result?: { bot?: boolean; botKind?: string };
    detections?: Record<string, { bot?: boolean }>;
    error?: string;
  };
  fpscanner?: { bot?: boolean; details?: Record<string, { detected?: boolean; severity?: string }>; error?: string };
  fpcollect?: Record<string, unknown> & { error?: string };
  headless?: { score?: number; summary?: unknown; error?: string };
}

/** fpscanner 0.1.5's verdicts (the test table of the classic headless test pages): 1 inconsistent, 2 unsure, 3 consistent. */
const INCONSISTENT = 1;
/** headless-detector's score from which its README calls a browser "suspicious" (0.0 - 1.0). */
const HEADLESS_SCORE = 0.3;

/**
 * Signals every desktop Chrome of today gives, so they tell nothing: left
 * out of the count, and listed in the verdict with the reason.
 */
export const EVERY_CHROME_GIVES: Record<string, string> = {
  'fpscanner-classic.WEBDRIVER':
    "fpCollect asks `'webdriver' in navigator`, true in every Chrome of today (the property is always defined; its value is false unless automated)",
};

/**
 * What the held-out detectors still see in every engine, and why
 * (docs/connect.md, "What a detector sees"): tests require these and
 * nothing else to fail, so a new tell fails them.
 */
export const STILL_SEEN: Record<string, string> = {
  'fpscanner.hasSwiftshaderRenderer':
    "WebGL's renderer is SwiftShader: the hosts have no GPU, and Mesa's GL does not run in headless Chromium; renaming it means patching getParameter where a page sees it",
};

/**
 * What the held-out detectors see of a CDP client that has enabled Runtime
 * on the page (docs/connect.md, "What a detector sees"): a console call of
 * the page's is formatted for that client, getters and
 * Error.prepareStackTrace included. Stock Puppeteer and Playwright enable it
 * on every page they drive; the host's render pool and agent runs do not
 * (docs/decisions/0033-no-runtime-enable.md), so this is seen only where a
 * user's own client connects.
 */
export const SEEN_WITH_RUNTIME: Record<string, string> = {
  'fpscanner.hasCDP':
    'a console.debug of an object calls its getters (and Error.prepareStackTrace) once a CDP client has enabled Runtime on the page, as stock Puppeteer and Playwright do',
};

/** Judges a held-out visit: every signal of every detector must say "not a bot". */
export function judgeHeldOut(answers: HeldOutAnswers): Verdict {
  const checks: Check[] = [];
  const ignored: { name: string; why: string }[] = [];
  const check = (name: string, origin: Check['origin'], passed: boolean, detail?: unknown) => {
    const why = EVERY_CHROME_GIVES[name];
    if (why) ignored.push({ name, why });
    else
      checks.push({ name, origin, passed, ...(!passed && detail !== undefined && { detail: JSON.stringify(detail) }) });
  };

  const botd = answers.botd ?? { error: 'no answer' };
  check('botd', 'botd', !botd.error && botd.result?.bot === false, botd.error ?? botd.result);
  for (const [name, detection] of Object.entries(botd.detections ?? {}))
    check(`botd.${name}`, 'botd', detection.bot === false, detection);

  // Its own verdict (`fastBotDetection`) is any of these: each is a check.
  const scanner = answers.fpscanner ?? { error: 'no answer' };
  if (scanner.error || !scanner.details) check('fpscanner', 'fpscanner', false, scanner.error);
  for (const [name, detail] of Object.entries(scanner.details ?? {}))
    check(`fpscanner.${name}`, 'fpscanner', detail.detected === false, detail);

  const fingerprint = answers.fpcollect;
  if (!fingerprint || fingerprint.error) check('fpscanner-classic', 'fpscanner-classic', false, fingerprint?.error);
  else {
    const { analyseFingerprint } = require('fpscanner-classic') as {
      analyseFingerprint(fp: unknown): Record<string, { consistent: number; data: unknown }>;
    };
    for (const [name, result] of Object.entries(analyseFingerprint(fingerprint)))
      check(`fpscanner-classic.${name}`, 'fpscanner-classic', result.consistent !== INCONSISTENT, result.data);
  }

  const headless = answers.headless ?? { error: 'no answer' };
  check(
    'headless-detector',
    'headless-detector',
    !headless.error && typeof headless.score === 'number' && headless.score < HEADLESS_SCORE,
    headless.error ?? headless,
  );
  const passed = checks.filter((c) => c.passed).length;
  return { checks, passed, total: checks.length, ignored };
}
