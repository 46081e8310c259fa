// A PDF read with PDF.js (pdfjs-dist): its text with positions, its link
// annotations and its document information, page by page; layout.ts makes
// the blocks. Runs on a document thread (pool.ts): PDF.js's own "worker" is
// then this thread too. Nothing in the document runs: PDF.js never executes
// a document's JavaScript (that is its viewer's sandbox, not loaded here),
// and since version 5 it compiles nothing from a document (no eval).
import type { DocumentInitParameters, PDFDocumentProxy, PDFPageProxy } from 'pdfjs-dist/types/src/display/api.js';
import { type Block, render } from '../blocks.js';
import type { DocumentMetadata, ParsedDocument } from '../types.js';
import { type LaidPage, layoutDocument, sizesOf } from './layout.js';
import { type Line, linesOf, type PageText, type TextItem } from './lines.js';

type PdfJs = typeof import('pdfjs-dist/legacy/build/pdf.mjs');

let loaded: Promise<PdfJs> | undefined;
/** PDF.js is an ES module; this lib is CommonJS, so it comes in through import(). */
export const pdfjs = (): Promise<PdfJs> => {
  loaded ??= import('pdfjs-dist/legacy/build/pdf.mjs');
  return loaded;
};

/** Failures PDF.js names, and what they mean for the caller. */
export class PdfFailure extends Error {
  constructor(
    readonly reason: 'encrypted' | 'malformed',
    message: string,
  ) {
    super(message);
  }
}

const PARAMS: DocumentInitParameters = {
  disableFontFace: true,
  useSystemFonts: false,
  fontExtraProperties: true,
  enableXfa: false,
  useWasm: false,
  isOffscreenCanvasSupported: false,
  isImageDecoderSupported: false,
  // Images are never needed for text; a huge one is not decoded at all (pixels).
  maxImageSize: 4096 * 4096,
  stopAtErrors: false,
  verbosity: 0,
};

export interface PdfOptions {
  url: string;
  /** Pages read at most (the caller's maxPages under the service's limit). */
  maxPages: number;
}

/** PDF dates (`D:20240131120000+01'00'`) as ISO 8601; undefined when it is not one. */
export function pdfDate(value: unknown): string | undefined {
  if (typeof value !== 'string') return undefined;
  const m = /^D?:?(\d{4})(\d{2})?(\d{2})?(\d{2})?(\d{2})?(\d{2})?([Zz]|[+-]\d{2}'?\d{2}'?)?/.exec(value.trim());
  if (!m) return undefined;
  const [, y, mo = '01', d = '01', h = '00', mi = '00', s = '00', zone] = m;
  const offset = !zone || /z/i.test(zone) ? 'Z' : `${zone.slice(0, 3)}:${zone.replace(/'/g, '').slice(3, 5) || '00'}`;
  const date = new Date(`${y}-${mo}-${d}T${h}:${mi}:${s}${offset}`);
  return Number.isNaN(date.getTime()) ? undefined : date.toISOString();
}

const BOLD = /bold|black|heavy|semibold|demi/i;

/** The text pieces of a page in viewport space (top left origin, rotation applied), turned text left out. */
async function pageText(page: PDFPageProxy, number: number, base: string): Promise<PageText> {
  const viewport = page.getViewport({ scale: 1 });
  const [content, annotations] = await Promise.all([
    page.getTextContent({ disableNormalization: false }),
    page.getAnnotations({ intent: 'display' }),
  ]);
  const links = (annotations as { subtype?: string; url?: string; unsafeUrl?: string; rect?: number[] }[])
    .filter((a) => a.subtype === 'Link' && (a.url || a.unsafeUrl) && a.rect)
    .flatMap((a) => {
      const href = absolute(a.url ?? a.unsafeUrl ?? '', base);
      if (!href) return [];
      const [r0 = 0, r1 = 0, r2 = 0, r3 = 0] = a.rect as number[];
      const [x0 = 0, y0 = 0] = viewport.convertToViewportPoint(r0, r1) as number[];
      const [x1 = 0, y1 = 0] = viewport.convertToViewportPoint(r2, r3) as number[];
      return [{ href, x0: Math.min(x0, x1), x1: Math.max(x0, x1), y0: Math.min(y0, y1), y1: Math.max(y0, y1) }];
    });
  const items: TextItem[] = [];
  for (const raw of content.items) {
    if (!('str' in raw)) continue;
    // The glyphs' matrix on the viewport (rotation applied, y down): anything not upright is left out.
    const m = multiply(viewport.transform, raw.transform as number[]);
    if (Math.abs(m[1]) > 0.01 * Math.abs(m[0]) || m[0] <= 0) continue;
    const [x, y] = [m[4], m[5]];
    const size = Math.hypot(m[2], m[3]) || raw.height;
    const width = raw.width;
    const midX = x + width / 2;
    const midY = y - size / 3;
    const link = links.find((l) => midX >= l.x0 && midX <= l.x1 && midY >= l.y0 - 1 && midY <= l.y1 + 1);
    items.push({ str: raw.str, x, y, width, size, font: raw.fontName, ...(link && { href: link.href }) });
  }
  return { number, width: viewport.width, height: viewport.height, items };
}

function multiply(a: number[], b: number[]): [number, number, number, number, number, number] {
  const [a0 = 1, a1 = 0, a2 = 0, a3 = 1, a4 = 0, a5 = 0] = a;
  const [b0 = 1, b1 = 0, b2 = 0, b3 = 1, b4 = 0, b5 = 0] = b;
  return [
    a0 * b0 + a2 * b1,
    a1 * b0 + a3 * b1,
    a0 * b2 + a2 * b3,
    a1 * b2 + a3 * b3,
    a0 * b4 + a2 * b5 + a4,
    a1 * b4 + a3 * b5 + a5,
  ];
}

function absolute(href: string, base: string): string | undefined {
  try {
    const url = new URL(href, base);
    return ['http:', 'https:', 'mailto:'].includes(url.protocol) ? url.href : undefined;
  } catch {
    return undefined;
  }
}

/** Font names of a page, learnt from its operator list (which loads its fonts): only for pages that need them. */
async function boldFonts(page: PDFPageProxy, fonts: Set<string>): Promise<Set<string>> {
  const bold = new Set<string>();
  await page.getOperatorList();
  for (const font of fonts) {
    const loaded = page.commonObjs.has(font) ? (page.commonObjs.get(font) as { name?: string }) : undefined;
    if (loaded?.name && BOLD.test(loaded.name)) bold.add(font);
  }
  return bold;
}

/** Lines at the top or bottom of most pages, the same but for their numbers: running headers and footers. */
function runningLines(pages: { height: number; lines: Line[] }[], bodySize: number): Set<Line> {
  const running = new Set<Line>();
  if (pages.length < 2) return running;
  // Set no larger than the body: a chapter's heading at the top of each page is not a running header.
  const edge = (line: Line, height: number) =>
    line.size <= bodySize && (line.y < height * 0.08 || line.y > height * 0.92);
  const key = (line: Line) => line.text.replace(/\d+/g, '#').toLowerCase();
  const seen = new Map<string, number>();
  for (const page of pages) {
    const keys = new Set(page.lines.filter((l) => edge(l, page.height)).map(key));
    for (const k of keys) seen.set(k, (seen.get(k) ?? 0) + 1);
  }
  const needed = Math.max(2, Math.ceil(pages.length / 2));
  for (const page of pages)
    for (const line of page.lines) {
      if (!edge(line, page.height)) continue;
      // A bare page number, or a line most pages repeat.
      if ((seen.get(key(line)) ?? 0) >= needed || /^(page\s*)?#(\s*(of|\/)\s*#)?$/i.test(key(line))) running.add(line);
    }
  return running;
}

function info(meta: { info?: unknown } | undefined, numPages: number, parsed: number): DocumentMetadata {
  const i = (meta?.info ?? {}) as Record<string, unknown>;
  const text = (v: unknown) => (typeof v === 'string' && v.trim() ? v.trim() : undefined);
  const out: DocumentMetadata = { numPages, parsedPages: parsed };
  const fields: [string, string | undefined][] = [
    ['title', text(i.Title)],
    ['author', text(i.Author)],
    ['subject', text(i.Subject)],
    ['keywords', text(i.Keywords)],
    ['creator', text(i.Creator)],
    ['producer', text(i.Producer)],
    ['language', text(i.Language)],
    ['creationDate', pdfDate(i.CreationDate)],
    ['modificationDate', pdfDate(i.ModDate)],
  ];
  for (const [k, v] of fields) if (v) out[k] = v;
  return out;
}

/** Whether the document carries JavaScript (never run: reported so the caller knows). */
async function carriesScript(doc: PDFDocumentProxy): Promise<boolean> {
  const actions = await doc.getJSActions().catch(() => null);
  return (actions !== null && actions.size > 0) || (await doc.hasJSActions().catch(() => false));
}

/** Reads a PDF into the scrape formats. Throws PdfFailure for a document PDF.js cannot open. */
export async function readPdf(bytes: Uint8Array, options: PdfOptions): Promise<ParsedDocument> {
  const lib = await pdfjs();
  const task = lib.getDocument({ ...PARAMS, data: bytes });
  let doc: PDFDocumentProxy;
  try {
    doc = await task.promise;
  } catch (err) {
    await task.destroy().catch(() => undefined);
    const name = (err as { name?: string }).name;
    if (name === 'PasswordException') throw new PdfFailure('encrypted', 'the PDF needs a password');
    throw new PdfFailure('malformed', `not a readable PDF: ${(err as Error).message}`);
  }
  try {
    const warnings: string[] = [];
    const total = doc.numPages;
    const count = Math.min(total, options.maxPages);
    if (count < total) warnings.push(`only the first ${count} of ${total} pages were read`);
    const pages: (PageText & { lines: Line[]; proxy: PDFPageProxy })[] = [];
    for (let n = 1; n <= count; n++) {
      const proxy = await doc.getPage(n);
      const text = await pageText(proxy, n, options.url);
      pages.push({ ...text, lines: linesOf(text), proxy });
    }
    const running = runningLines(pages, sizesOf(pages.flatMap((p) => p.lines)).bodySize);
    for (const page of pages) page.lines = page.lines.filter((l) => !running.has(l));
    const all = pages.flatMap((p) => p.lines);
    const { bodySize, headingSizes } = sizesOf(all);
    // Bold fonts are asked for only on pages with a line that could be a bold heading.
    const bold = new Set<string>();
    for (const page of pages) {
      const candidates = page.lines.filter((l) => l.size === bodySize && l.text.split(/\s+/).length <= 15);
      if (candidates.length > 0)
        for (const f of await boldFonts(page.proxy, new Set(candidates.map((l) => l.font)))) bold.add(f);
      page.proxy.cleanup();
    }
    const vocabulary = new Set(all.flatMap((l) => l.text.toLowerCase().match(/\p{L}+/gu) ?? []));
    const laid: LaidPage[] = pages.map((p) => ({ number: p.number, width: p.width, lines: p.lines }));
    const blocks: Block[] = layoutDocument(laid, { bodySize, headingSizes, bold: (f) => bold.has(f), vocabulary });
    const rendered = render(blocks);
    const metadata = info(await doc.getMetadata().catch(() => undefined), total, count);
    const textless = pages.filter((p) => p.items.every((i) => !i.str.trim())).map((p) => p.number);
    if (textless.length > 0) {
      // Scanned pages carry images, not text: no OCR yet, and the answer says so instead of going quiet.
      metadata.ocr = false;
      metadata.pagesWithoutText = textless;
      warnings.push(
        `${textless.length} of ${count} pages have no text layer (scanned?); OCR is not done, so their content is missing`,
      );
    }
    if (!metadata.title) {
      const heading = blocks.find((b) => b.kind === 'heading');
      if (heading)
        metadata.title = heading.runs
          .map((r) => r.text)
          .join('')
          .trim();
    }
    if (await carriesScript(doc)) {
      metadata.javascript = true;
      warnings.push('the document carries JavaScript; it was not run');
    }
    return { ...rendered, metadata, warnings, pages: count };
  } finally {
    await task.destroy().catch(() => undefined);
  }
}
