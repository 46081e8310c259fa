// Reads a text captcha's image (docs/connect.md, "Captchas"): tesseract.js
// with English traineddata from its npm package, loaded from that package's
// path (nothing is downloaded at run time), one worker for the host, started
// on first use. The image is made black on white first, with the insides of
// outlined letters filled: captcha fonts are often hollow, and tesseract
// reads solid glyphs far better; the image is read several ways (readings).
import path from 'node:path';
import { PNG } from 'pngjs';
import { createWorker, PSM, type Worker } from 'tesseract.js';

/** What captcha texts are made of: letters and digits. */
const CHARACTERS = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789';
/**
 * Cleaned ink over drawn ink from which an image was outlined: svg-captcha's
 * measured 1.37-1.99, a plain font's 0.71-1.46 (2026-11-29, 12 of each).
 */
const OUTLINED = 1.35;
/** Paper added round an image, pixels. */
const MARGIN = 24;
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

type Bitmap = { w: number; h: number; ink: Uint8Array };

function inkOf(png: Buffer): Bitmap {
  const { width: w, height: h, data } = PNG.sync.read(png);
  const ink = new Uint8Array(w * h);
  for (let i = 0; i < w * h; i++) {
    const alpha = (data[i * 4 + 3] ?? 255) / 255;
    const lum = ((data[i * 4] ?? 0) * 0.299 + (data[i * 4 + 1] ?? 0) * 0.587 + (data[i * 4 + 2] ?? 0) * 0.114) / 255;
    ink[i] = lum * alpha + (1 - alpha) < INK ? 1 : 0;
  }
  return { w, h, ink };
}

/** Every paper region the border cannot reach (a hollow glyph's inside) inked. */
function filled({ w, h, ink }: Bitmap): Bitmap {
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
  return { w, h, ink: paper.map((p) => 1 - p) };
}

/** Ink grown (or, `shrink`, worn) by `r` pixels each way: a square's reach, rows then columns. */
function morph({ w, h, ink }: Bitmap, r: number, shrink: boolean): Bitmap {
  const pass = (src: Uint8Array, step: number, len: number, lines: number, stride: number) => {
    const out = new Uint8Array(w * h);
    for (let l = 0; l < lines; l++)
      for (let i = 0; i < len; i++) {
        let v = shrink ? 1 : 0;
        for (let k = Math.max(0, i - r); k <= Math.min(len - 1, i + r); k++) {
          const p = src[l * stride + k * step] as number;
          if (shrink ? !p : p) {
            v = shrink ? 0 : 1;
            break;
          }
        }
        out[l * stride + i * step] = v;
      }
    return out;
  };
  return { w, h, ink: pass(pass(ink, 1, w, h, w), w, h, w, 1) };
}

/**
 * The readings of a captcha image worth trying: as drawn, and cleaned (its
 * outlines' gaps closed and hollow glyphs filled, then every stroke thinner
 * than a glyph, noise lines, worn away). Cleaning spoils a plain font's
 * counters (A, B, 8) but is the only reading of an outlined, struck-through
 * one; an image whose cleaning adds much ink was outlined, and is read
 * cleaned alone (tesseract's confidence does not tell the two apart).
 */
export function readings(png: Buffer): Buffer[] {
  const drawn = inkOf(png);
  const closed = morph(filled(morph(drawn, 2, false)), 2, true);
  const clean = morph(morph(closed, 3, true), 3, false);
  const count = (b: Bitmap) => b.ink.reduce((n, p) => n + p, 0);
  const outlined = count(clean) >= OUTLINED * count(drawn);
  return outlined ? [toPng(clean)] : [toPng(drawn), toPng(clean)];
}

/** Black on white, with a margin of paper all round (tesseract drops a glyph that touches the edge). */
function toPng({ w, h, ink }: Bitmap): Buffer {
  const m = MARGIN;
  const out = new PNG({ width: w + 2 * m, height: h + 2 * m });
  out.data.fill(255);
  for (let y = 0; y < h; y++)
    for (let x = 0; x < w; x++)
      if (ink[y * w + x]) {
        const j = ((y + m) * (w + 2 * m) + x + m) * 4;
        out.data[j] = 0;
        out.data[j + 1] = 0;
        out.data[j + 2] = 0;
      }
  return PNG.sync.write(out);
}

/** The text of a captcha image (a PNG), letters and digits only: of its readings, the one tesseract is surest of. */
export async function readText(png: Buffer): Promise<string> {
  const ocr = await ocrWorker();
  let best = { text: '', confidence: -1 };
  for (const image of readings(png)) {
    const { data } = await ocr.recognize(image);
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
