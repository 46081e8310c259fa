// Reads a text captcha's image (docs/connect.md, "Captchas") with tesseract.js,
// its English traineddata from the npm package and loaded from that package's
// path (nothing is downloaded at run time). Two workers for the host, started
// on first use: tesseract's LSTM model, and its older character classifier
// (the legacy engine), which reads a lone glyph far better. An outlined
// captcha is made into solid glyphs first (glyphs.ts) and read three ways:
// glyph by glyph by the classifier, and as a clean line by either engine; the
// answer is what two readings agree on, else each character's majority, and
// the other readings are what to answer next if the site says it was wrong.
// It is in lower case: c, s, v, w, x and z look the same in either case. A
// solid font (no faces inside outlines) is read as drawn, case and all.
import path from 'node:path';
import { createWorker, OEM, PSM, type Worker } from 'tesseract.js';
import { type Bitmap, characters, cut, glyphs, inkOf, setOut, toPng } from './glyphs.js';

/**
 * What captcha texts are made of: letters and digits, less those a person
 * confuses (0 O o, 1 I i l), which captcha makers leave out (the test site's
 * svg-captcha does). Allowing them read 123 of 150 images where this reads 127.
 */
const CHARACTERS = 'ABCDEFGHJKLMNPQRSTUVWXYZabcdefghjkmnpqrstuvwxyz23456789';
/**
 * Glyph ink over drawn ink above which an image was outlined: svg-captcha's
 * measured 0.65-1.37 (150 images), a plain font's (DejaVu Sans, its counters
 * taken for faces) 0.07 and 0.52 (K7WN3P, HB8A2Q).
 */
const OUTLINED = 0.6;
/** Paper round a glyph read alone, and round a line, pixels of the 3× capture. */
const GLYPH_MARGIN = 20;
const LINE_MARGIN = 24;
/** Paper between characters set out on a line. */
const GAP = 30;

const DATA = path.dirname(require.resolve('@tesseract.js-data/eng/package.json'));
/** The traineddata package's copies: `best_int`, the accurate LSTM model in integer form; `4.0.0`, with the legacy classifier. */
export const LANG_PATH = path.join(DATA, '4.0.0_best_int');
const LEGACY_LANG_PATH = path.join(DATA, '4.0.0');

type Engine = 'lstm' | 'legacy';
const workers: Partial<Record<Engine, Promise<Worker>>> = {};
/**
 * Workers unused this long are let go: the two hold about 250 MB (measured:
 * 87 MB the LSTM one alone), and a host meets text captchas seldom; the
 * next read starts them again in 1-2 s.
 */
const IDLE_MS = 60_000;
let reading = 0;
let idle: NodeJS.Timeout | undefined;

function ocrWorker(engine: Engine): Promise<Worker> {
  let started = workers[engine];
  if (!started) {
    started =
      engine === 'lstm'
        ? createWorker('eng', OEM.LSTM_ONLY, { langPath: LANG_PATH, cacheMethod: 'none', gzip: true })
        : createWorker('eng', OEM.TESSERACT_ONLY, {
            langPath: LEGACY_LANG_PATH,
            cacheMethod: 'none',
            gzip: true,
            legacyCore: true,
            legacyLang: true,
          });
    workers[engine] = started;
    started.catch(() => {
      if (workers[engine] === started) delete workers[engine];
    });
  }
  return started;
}

/** The letters and digits tesseract reads in `image` as page segmentation `mode` says. */
async function read(engine: Engine, image: Bitmap, mode: PSM, margin: number): Promise<string> {
  const ocr = await ocrWorker(engine);
  await ocr.setParameters({ tessedit_pageseg_mode: mode, tessedit_char_whitelist: CHARACTERS });
  const { data } = await ocr.recognize(toPng(image, margin));
  return data.text.replace(/[^A-Za-z0-9]/g, '');
}

const inkCount = (b: Bitmap) => b.ink.reduce((n, p) => n + p, 0);

/**
 * The answer of several readings of `count` characters: a reading two agree
 * on, else each position's majority among those of the right length, the
 * first reading's character on a tie ('?' where it has none).
 */
export function agreed(readings: string[], count: number): string {
  const lower = readings.map((r) => r.toLowerCase());
  const twice = lower.find((r, i) => r.length > 0 && !r.includes('?') && lower.some((o, j) => j !== i && o === r));
  if (twice) return twice;
  const whole = lower.filter((r) => r.length === count);
  if (whole.length === 0) return lower.at(-1) ?? '';
  let text = '';
  for (let k = 0; k < count; k++) {
    const votes = new Map<string, number>();
    for (const r of whole) if (r[k] !== '?') votes.set(r[k] as string, (votes.get(r[k] as string) ?? 0) + 1);
    const [top, n] = [...votes].sort((a, b) => b[1] - a[1])[0] ?? ['?', 0];
    const first = lower[0]?.length === count ? (lower[0][k] as string) : top;
    text += n > 1 || first === '?' ? top : first;
  }
  return text;
}

/**
 * The texts a captcha image (a PNG) may hold, likeliest first, letters and
 * digits only: the readings' vote, then each reading not already given (what
 * to answer next when the site says the first was wrong).
 */
export async function readTexts(png: Buffer): Promise<string[]> {
  reading++;
  clearTimeout(idle);
  try {
    return await readingsOf(png);
  } finally {
    if (--reading === 0) idle = setTimeout(() => void stopOcr(), IDLE_MS).unref();
  }
}

async function readingsOf(png: Buffer): Promise<string[]> {
  const drawn = inkOf(png);
  const solid = glyphs(png);
  if (inkCount(solid) < OUTLINED * inkCount(drawn)) return [await read('lstm', drawn, PSM.SINGLE_LINE, LINE_MARGIN)];
  const boxes = characters(solid);
  let one = '';
  for (const box of boxes) one += (await read('legacy', cut(solid, box), PSM.SINGLE_CHAR, GLYPH_MARGIN))[0] ?? '?';
  const line = setOut(solid, boxes, GAP);
  const classifier = await read('legacy', line, PSM.SINGLE_LINE, LINE_MARGIN);
  const lstm = await read('lstm', line, PSM.SINGLE_LINE, LINE_MARGIN);
  // The LSTM line first: its character breaks a tie (the classifier's two readings err alike).
  const texts = [agreed([lstm, one, classifier], boxes.length), lstm, one, classifier].map((t) => t.toLowerCase());
  return texts.filter((t, i) => t.length > 0 && !t.includes('?') && texts.indexOf(t) === i);
}

/** The likeliest text of a captcha image ('' when nothing could be read). */
export async function readText(png: Buffer): Promise<string> {
  return (await readTexts(png))[0] ?? '';
}

/** Lets the workers go (a host shutting down, a test done). */
export async function stopOcr(): Promise<void> {
  clearTimeout(idle);
  const running = Object.values(workers);
  for (const engine of Object.keys(workers) as Engine[]) delete workers[engine];
  await Promise.all(running.map(async (w) => (await w?.catch(() => undefined))?.terminate()));
}
