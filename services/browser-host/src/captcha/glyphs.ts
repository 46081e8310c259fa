// A text captcha's image made into glyphs OCR can read (docs/connect.md,
// "Captchas"), from its pixels alone. Captcha fonts are drawn as outlines
// (often with a solid drop shadow) and struck through by thin noise curves;
// what a person reads is the face inside each outline. So: ink is what is
// darker than paper; a face is a paper region one thin stroke in from the
// paper round the image (a counter, one more stroke in, is not); a region a
// noise curve closed off against a glyph is far thicker than the faces and
// is dropped; the faces are grown back to strokes, and specks left by the
// curve are dropped. The glyphs are then split into characters by connected
// pieces that share columns, and set out again on a clean line.
import { PNG } from 'pngjs';

export type Bitmap = { w: number; h: number; ink: Uint8Array };
/** A character's box on a bitmap, inclusive. */
export type Box = { x0: number; x1: number; y0: number; y1: number };

/** Below this luminance (0-1) a pixel is ink: high, so a thin antialiased outline stays closed. */
const INK = 0.9;
/** Outlines closed by these radii before faces are looked for: 1 keeps faces full, 2 closes a broken outline. */
const CLOSINGS = [1, 2];
/** The thickest ink a face is reached across, pixels of the 3× capture: an outline is 3-6, a shadow more. */
const STROKE = 8;
/** A face region thicker than this many times the median face's is a region a noise curve closed off. */
const POCKET = 1.8;
/** Faces grown by this to give their outline back. */
const GROW = 2;
/** Then closed by this: the gaps a noise curve cut (more fills a small s). */
const CLOSE = 1;
/** A piece smaller than this share of the largest is a speck of noise. */
const SPECK = 0.08;
/** Pieces sharing more than this share of the narrower one's columns are one character (i's dot, a broken stroke). */
const SAME_COLUMNS = 0.3;
/**
 * Pieces this close (pixels apart, or overlapping) that together are no wider
 * than NARROW times the median piece's height are one character too: an N or
 * a W a noise curve cut across.
 */
const TOUCH = 4;
const NARROW = 1.1;

/** Ink of a PNG (transparency read as white paper). */
export function inkOf(png: Buffer, threshold = INK): Bitmap {
  const { width: w, height: h, data } = PNG.sync.read(png);
  const ink = new Uint8Array(w * h);
  for (let i = 0; i < w * h; i++) {
    const alpha = (data[i * 4 + 3] ?? 255) / 255;
    const lum = ((data[i * 4] ?? 0) * 0.299 + (data[i * 4 + 1] ?? 0) * 0.587 + (data[i * 4 + 2] ?? 0) * 0.114) / 255;
    ink[i] = lum * alpha + (1 - alpha) < threshold ? 1 : 0;
  }
  return { w, h, ink };
}

/** Ink grown (or, `shrink`, worn) by `r` pixels each way: a square's reach, rows then columns. */
export function morph({ w, h, ink }: Bitmap, r: number, shrink: boolean): Bitmap {
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

/** Connected regions of pixels equal to `value`, as a label per pixel (-1 elsewhere) and each region's size. */
function regions({ w, h, ink }: Bitmap, value: 0 | 1, diagonal: boolean): { label: Int32Array; sizes: number[] } {
  const label = new Int32Array(w * h).fill(-1);
  const sizes: number[] = [];
  const stack: number[] = [];
  for (let s = 0; s < w * h; s++) {
    if (ink[s] !== value || (label[s] as number) >= 0) continue;
    const id = sizes.length;
    let size = 0;
    label[s] = id;
    stack.push(s);
    while (stack.length > 0) {
      const i = stack.pop() as number;
      size++;
      const x = i % w;
      const y = (i - x) / w;
      for (let dy = -1; dy <= 1; dy++)
        for (let dx = -1; dx <= 1; dx++) {
          if ((!dx && !dy) || (!diagonal && dx && dy)) continue;
          const nx = x + dx;
          const ny = y + dy;
          if (nx < 0 || ny < 0 || nx >= w || ny >= h) continue;
          const j = ny * w + nx;
          if (ink[j] === value && (label[j] as number) < 0) {
            label[j] = id;
            stack.push(j);
          }
        }
    }
    sizes.push(size);
  }
  return { label, sizes };
}

/**
 * The faces: paper regions an odd number of thin strokes in from the paper
 * round the image. Regions are neighbours when a straight run of at most
 * STROKE ink pixels (across, down or diagonal) joins them.
 */
export function faces(bitmap: Bitmap): Bitmap {
  const { w, h, ink } = bitmap;
  const { label, sizes } = regions(bitmap, 0, false);
  const near = sizes.map(() => new Set<number>());
  for (let y = 0; y < h; y++)
    for (let x = 0; x < w; x++) {
      const a = label[y * w + x] as number;
      if (a < 0) continue;
      for (const [dx, dy] of [
        [1, 0],
        [0, 1],
        [1, 1],
        [1, -1],
      ] as const) {
        let nx = x + dx;
        let ny = y + dy;
        let run = 0;
        while (run <= STROKE && nx < w && ny >= 0 && ny < h && ink[ny * w + nx]) {
          run++;
          nx += dx;
          ny += dy;
        }
        if (run === 0 || run > STROKE || nx >= w || ny < 0 || ny >= h) continue;
        const b = label[ny * w + nx] as number;
        if (b >= 0 && b !== a) {
          near[a]?.add(b);
          near[b]?.add(a);
        }
      }
    }
  const depth = new Int32Array(sizes.length).fill(-1);
  const queue: number[] = [];
  const edge = (i: number) => {
    const r = label[i] as number;
    if (r >= 0 && depth[r] === -1) {
      depth[r] = 0;
      queue.push(r);
    }
  };
  for (let x = 0; x < w; x++) {
    edge(x);
    edge((h - 1) * w + x);
  }
  for (let y = 0; y < h; y++) {
    edge(y * w);
    edge(y * w + w - 1);
  }
  for (let q = 0; q < queue.length; q++) {
    const a = queue[q] as number;
    for (const b of near[a] ?? [])
      if (depth[b] === -1) {
        depth[b] = (depth[a] as number) + 1;
        queue.push(b);
      }
  }
  const out = new Uint8Array(w * h);
  for (let i = 0; i < w * h; i++) {
    const r = label[i] as number;
    if (r >= 0 && (depth[r] as number) % 2 === 1) out[i] = 1;
  }
  return { w, h, ink: out };
}

/** Each ink pixel's distance to the nearest paper (chamfer 1 / √2). */
function depthOfInk({ w, h, ink }: Bitmap): Float32Array {
  const d = new Float32Array(w * h);
  for (let i = 0; i < w * h; i++) d[i] = ink[i] ? 1e9 : 0;
  const at = (x: number, y: number) => (x < 0 || y < 0 || x >= w || y >= h ? 0 : (d[y * w + x] as number));
  for (let y = 0; y < h; y++)
    for (let x = 0; x < w; x++)
      if (d[y * w + x])
        d[y * w + x] = Math.min(
          d[y * w + x] as number,
          at(x - 1, y) + 1,
          at(x, y - 1) + 1,
          at(x - 1, y - 1) + Math.SQRT2,
          at(x + 1, y - 1) + Math.SQRT2,
        );
  for (let y = h - 1; y >= 0; y--)
    for (let x = w - 1; x >= 0; x--)
      if (d[y * w + x])
        d[y * w + x] = Math.min(
          d[y * w + x] as number,
          at(x + 1, y) + 1,
          at(x, y + 1) + 1,
          at(x + 1, y + 1) + Math.SQRT2,
          at(x - 1, y + 1) + Math.SQRT2,
        );
  return d;
}

/** `bitmap` without its regions far thicker than the median region (of more than 50 pixels). */
function withoutPockets(bitmap: Bitmap): Bitmap {
  const { label, sizes } = regions(bitmap, 1, false);
  const depth = depthOfInk(bitmap);
  const thickest = sizes.map(() => 0);
  for (let i = 0; i < label.length; i++) {
    const r = label[i] as number;
    if (r >= 0) thickest[r] = Math.max(thickest[r] as number, depth[i] as number);
  }
  const typical = thickest.filter((_, r) => (sizes[r] as number) > 50).sort((a, b) => a - b);
  const median = typical[Math.floor(typical.length / 2)] ?? 3;
  const ink = new Uint8Array(label.length);
  for (let i = 0; i < label.length; i++) {
    const r = label[i] as number;
    if (r >= 0 && (thickest[r] as number) <= POCKET * median) ink[i] = 1;
  }
  return { ...bitmap, ink };
}

/** `bitmap` without the pieces (8-connected) smaller than SPECK of its largest. */
function withoutSpecks(bitmap: Bitmap): Bitmap {
  const { label, sizes } = regions(bitmap, 1, true);
  const largest = Math.max(0, ...sizes);
  const ink = bitmap.ink.map((p, i) => (p && (sizes[label[i] as number] as number) >= SPECK * largest ? 1 : 0));
  return { ...bitmap, ink };
}

/** The glyphs of an outlined captcha image, solid on clean paper (see the head of this file). */
export function glyphs(png: Buffer): Bitmap {
  const drawn = inkOf(png);
  const found = new Uint8Array(drawn.ink.length);
  for (const r of CLOSINGS) {
    const face = faces(morph(drawn, r, false));
    for (let i = 0; i < found.length; i++) found[i] = (found[i] as number) | (face.ink[i] as number);
  }
  const grown = morph(withoutPockets({ ...drawn, ink: found }), GROW, false);
  return withoutSpecks(morph(morph(grown, CLOSE, false), CLOSE, true));
}

/** The characters of `bitmap`, left to right: its pieces, those sharing columns taken as one. */
export function characters(bitmap: Bitmap): Box[] {
  const { label, sizes } = regions(bitmap, 1, true);
  const boxes: Box[] = sizes.map(() => ({ x0: bitmap.w, x1: -1, y0: bitmap.h, y1: -1 }));
  for (let i = 0; i < label.length; i++) {
    const b = boxes[label[i] as number];
    if (!b) continue;
    const x = i % bitmap.w;
    const y = (i - x) / bitmap.w;
    b.x0 = Math.min(b.x0, x);
    b.x1 = Math.max(b.x1, x);
    b.y0 = Math.min(b.y0, y);
    b.y1 = Math.max(b.y1, y);
  }
  const sorted = boxes.sort((p, q) => p.x0 - q.x0);
  const heights = sorted.map((b) => b.y1 - b.y0 + 1).sort((p, q) => p - q);
  const height = heights[Math.floor(heights.length / 2)] ?? 0;
  const out: Box[] = [];
  for (const b of sorted) {
    const last = out.at(-1);
    const shared = last ? Math.min(last.x1, b.x1) - Math.max(last.x0, b.x0) : 0;
    const joined = last ? Math.max(last.x1, b.x1) - Math.min(last.x0, b.x0) + 1 : 0;
    if (
      last &&
      (shared > SAME_COLUMNS * Math.min(last.x1 - last.x0, b.x1 - b.x0) ||
        (shared >= -TOUCH && joined <= NARROW * height))
    ) {
      last.x0 = Math.min(last.x0, b.x0);
      last.x1 = Math.max(last.x1, b.x1);
      last.y0 = Math.min(last.y0, b.y0);
      last.y1 = Math.max(last.y1, b.y1);
    } else out.push({ ...b });
  }
  return out;
}

/** One character of `bitmap` alone. */
export function cut(bitmap: Bitmap, box: Box): Bitmap {
  const w = box.x1 - box.x0 + 1;
  const h = box.y1 - box.y0 + 1;
  const ink = new Uint8Array(w * h);
  for (let y = 0; y < h; y++)
    for (let x = 0; x < w; x++) ink[y * w + x] = bitmap.ink[(y + box.y0) * bitmap.w + x + box.x0] as number;
  return { w, h, ink };
}

/** The characters set out on one line, `gap` apart, each at its own height (a g's tail stays below the line). */
export function setOut(bitmap: Bitmap, boxes: Box[], gap: number): Bitmap {
  const w = boxes.reduce((sum, b) => sum + b.x1 - b.x0 + 1 + gap, gap);
  const ink = new Uint8Array(w * bitmap.h);
  let left = gap;
  for (const b of boxes) {
    for (let y = b.y0; y <= b.y1; y++)
      for (let x = b.x0; x <= b.x1; x++) ink[y * w + left + x - b.x0] = bitmap.ink[y * bitmap.w + x] as number;
    left += b.x1 - b.x0 + 1 + gap;
  }
  return { w, h: bitmap.h, ink };
}

/** Black on white, with `margin` pixels of paper all round (tesseract drops a glyph that touches the edge). */
export function toPng({ w, h, ink }: Bitmap, margin: number): Buffer {
  const m = margin;
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
