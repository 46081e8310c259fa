// Reads a text captcha's image (docs/connect.md, "Captchas"): tesseract.js
// with English traineddata from its npm package, loaded from that package's
// path (nothing is downloaded at run time), one worker for the host, started
// on first use. The image is made black on white first, with the insides of
// outlined letters filled: captcha fonts are often hollow, and tesseract
// reads solid glyphs far better; both readings are tried.
import path from 'node:path';
import { PNG } from 'pngjs';
import { createWorker, PSM, type Worker } from 'tesseract.js';

/** What captcha texts are made of: letters and digits. */
const CHARACTERS = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789';
/** Below this luminance (0-1) a pixel is ink. */
const INK = 0.7;

/** The traineddata package's own copy: `best_int`, the accurate model in integer form. */
export const LANG_PATH = path.join(
  path.dirname(require.resolve('@tesseract.js-data/eng/package.json')),
  '4.0.0_best_int',
);

let worker: Promise<Worker> | undefined;

function ocrWorker(): Promise<Worker> {
  worker ??= createWorker('eng', 1, { langPath: LANG_PATH, cacheMethod: 'none', gzip: true }).then(async (w) => {
    await w.setParameters({ tessedit_pageseg_mode: PSM.SINGLE_LINE, tessedit_char_whitelist: CHARACTERS });
    return w;
  });
  worker.catch(() => {
    worker = undefined;
  });
  return worker;
}

/**
 * Ink black, the rest white; with `fill`, every white region the border
 * cannot reach (a hollow glyph's inside) inked too.
 */
export function inkOnly(png: Buffer, fill: boolean): Buffer {
  const { width: w, height: h, data } = PNG.sync.read(png);
  const ink = new Uint8Array(w * h);
  for (let i = 0; i < w * h; i++) {
    const alpha = (data[i * 4 + 3] ?? 255) / 255;
    const lum = ((data[i * 4] ?? 0) * 0.299 + (data[i * 4 + 1] ?? 0) * 0.587 + (data[i * 4 + 2] ?? 0) * 0.114) / 255;
    ink[i] = lum * alpha + (1 - alpha) < INK ? 1 : 0;
  }
  // Paper is what the border reaches without crossing ink.
  const paper = new Uint8Array(w * h);
  const stack: number[] = [];
  for (let x = 0; x < w; x++) stack.push(x, (h - 1) * w + x);
  for (let y = 0; y < h; y++) stack.push(y * w, y * w + w - 1);
  while (stack.length > 0) {
    const i = stack.pop() as number;
    if (paper[i] || ink[i]) continue;
    paper[i] = 1;
    const x = i % w;
    if (x > 0) stack.push(i - 1);
    if (x < w - 1) stack.push(i + 1);
    if (i >= w) stack.push(i - w);
    if (i < w * (h - 1)) stack.push(i + w);
  }
  const out = new PNG({ width: w, height: h });
  for (let i = 0; i < w * h; i++) {
    const v = (fill ? paper[i] : !ink[i]) ? 255 : 0;
    out.data[i * 4] = v;
    out.data[i * 4 + 1] = v;
    out.data[i * 4 + 2] = v;
    out.data[i * 4 + 3] = 255;
  }
  return PNG.sync.write(out);
}

/**
 * The text of a captcha image (a PNG), letters and digits only: read as
 * drawn and with its glyphs filled, whichever tesseract is surer of (filling
 * spoils a solid font's counters, as in A, B or 8; it rescues a hollow one).
 */
export async function readText(png: Buffer): Promise<string> {
  const ocr = await ocrWorker();
  let best = { text: '', confidence: -1 };
  for (const fill of [false, true]) {
    const { data } = await ocr.recognize(inkOnly(png, fill));
    const text = data.text.replace(/[^A-Za-z0-9]/g, '');
    if (text.length > 0 && data.confidence > best.confidence) best = { text, confidence: data.confidence };
  }
  return best.text;
}

/** Lets the worker go (a host shutting down, a test done). */
export async function stopOcr(): Promise<void> {
  const running = worker;
  worker = undefined;
  await (await running?.catch(() => undefined))?.terminate();
}
