// Runs the page script in a page's frames (cross-origin ones included:
// Playwright reaches out-of-process iframes) and puts each child frame's scan
// under the iframe that shows it. What comes back from a page is checked and
// bounded here: the page can rewrite the script's built-ins and answer
// anything.
import type { ElementHandle, Frame, JSHandle, Page } from 'playwright-core';
import type { FrameNode } from './element-list.js';
import { type ElementInfo, type FrameScan, type PageItem, type ScanLimits, scanFrame } from './page-script.js';

export type ScanHandle = JSHandle<FrameScan>;

export interface PageScan {
  root: FrameNode<ScanHandle>;
  scroll: { above: number; below: number };
  /** Every frame's handle, to release when the scan is replaced. */
  handles: ScanHandle[];
  /** The page shows an open modal dialog (its items are the dialog's alone). */
  modal: boolean;
}

const LIMITS: ScanLimits = {
  textChars: 80,
  lineChars: 160,
  attrChars: 60,
  options: 25,
  items: 1200,
  visits: 60_000,
  levels: 250,
};
/** Frames scanned besides the page's own, and how deep they may nest. */
const MAX_FRAMES = 20;
const MAX_FRAME_DEPTH = 4;
/** A frame that does not answer in this long (a busy or hostile script) is left out. */
const FRAME_TIMEOUT_MS = 5000;
const MAX_LINE_CHARS = 1000;
const MAX_DEPTH = 60;

/** Settles `promise` within `ms`; what arrives late is handed to `late` (to release it). */
export async function within<T>(promise: Promise<T>, ms: number, what: string, late?: (value: T) => void): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  let timedOut = false;
  const timeout = new Promise<never>((_, reject) => {
    timer = setTimeout(() => {
      timedOut = true;
      reject(new Error(`${what} did not answer within ${ms / 1000} s`));
    }, ms);
  });
  promise.then(
    (value) => {
      if (timedOut) late?.(value);
    },
    () => {},
  );
  try {
    return await Promise.race([promise, timeout]);
  } finally {
    clearTimeout(timer);
  }
}

const release = (handle: { dispose(): Promise<void> }): void => {
  handle.dispose().catch(() => {});
};

export function releaseAll(handles: ScanHandle[]): void {
  for (const handle of handles) release(handle);
}

const isCount = (value: unknown, max: number): value is number =>
  typeof value === 'number' && Number.isInteger(value) && value >= 0 && value <= max;

const bounded = (value: unknown): string | undefined =>
  typeof value === 'string' ? value.slice(0, MAX_LINE_CHARS) : undefined;

const ROLES = new Set<ElementInfo['role']>([
  'textbox',
  'select',
  'checkbox',
  'radio',
  'file',
  'button',
  'link',
  'tab',
  'option',
  'other',
]);

/** A name or value as the page answered it, made plain again (the page may have rewritten the script's cleaning). */
function plainText(value: unknown): string | undefined {
  if (typeof value !== 'string') return undefined;
  const text = value
    .replace(/[\p{Cc}\p{Cf}\p{Zl}\p{Zp}]/gu, ' ')
    .replace(/\s+/g, ' ')
    .trim()
    .replace(/\[(\d+)\]/g, '($1)')
    .replace(/["<>]/g, "'");
  return text.length > LIMITS.attrChars ? `${text.slice(0, LIMITS.attrChars - 1)}…` : text;
}

/** An element's role, name and state as the page answered them, only what has their shape. */
function checkInfo(raw: unknown): ElementInfo {
  const r = (typeof raw === 'object' && raw !== null ? raw : {}) as Record<string, unknown>;
  const role = ROLES.has(r.role as ElementInfo['role']) ? (r.role as ElementInfo['role']) : 'other';
  const info: ElementInfo = { role, name: plainText(r.name) ?? '' };
  const value = plainText(r.value);
  if (value) info.value = value;
  const context = plainText(r.context);
  if (context) info.context = context;
  const hint = plainText(r.hint);
  if (hint && role === 'textbox') info.hint = hint;
  for (const flag of ['checked', 'disabled', 'expanded', 'required', 'incomplete', 'current', 'readonly'] as const)
    if (typeof r[flag] === 'boolean') info[flag] = r[flag];
  if (Array.isArray(r.options))
    info.options = r.options
      .slice(0, LIMITS.options)
      .map(plainText)
      .filter((o): o is string => o !== undefined);
  return info;
}

/** The items as the page answered them, less anything not of their shape. */
function checkItems(raw: unknown): PageItem[] {
  if (!Array.isArray(raw)) return [];
  const items: PageItem[] = [];
  for (const item of raw.slice(0, LIMITS.items)) {
    if (typeof item !== 'object' || item === null) continue;
    const { kind, depth, slot } = item as Record<string, unknown>;
    if (!isCount(depth, MAX_DEPTH)) continue;
    if (kind === 'text') {
      const text = bounded((item as Record<string, unknown>).text);
      if (text) items.push({ kind, depth, text });
      continue;
    }
    const line = bounded((item as Record<string, unknown>).line);
    if (!line || !isCount(slot, LIMITS.items)) continue;
    if (kind === 'frame') items.push({ kind, depth, line, slot });
    if (kind === 'element') {
      const key = bounded((item as Record<string, unknown>).key);
      if (key !== undefined)
        items.push({ kind, depth, line, key, slot, info: checkInfo((item as Record<string, unknown>).info) });
    }
  }
  return items;
}

/** A child frame's key: its URL without the fragment, so its elements keep their keys while it stays. */
const frameKey = (url: string): string => url.split('#')[0]?.slice(0, 300) ?? '';

async function scanTree(
  frame: Frame,
  key: string,
  depth: number,
  budget: { frames: number },
  handles: ScanHandle[],
): Promise<{ node: FrameNode<ScanHandle>; scroll: PageScan['scroll']; modal: boolean }> {
  const handle = await within(frame.evaluateHandle(scanFrame, LIMITS), FRAME_TIMEOUT_MS, 'the page', release);
  handles.push(handle);
  const data: unknown = await within(
    handle.evaluate((scan) => ({ items: scan.items, scroll: scan.scroll, cut: scan.cut, modal: scan.modal })),
    FRAME_TIMEOUT_MS,
    'the page',
  );
  const { items, scroll, cut, modal } = (data ?? {}) as Record<string, unknown>;
  const { above, below } = (scroll ?? {}) as Record<string, unknown>;
  const node: FrameNode<ScanHandle> = {
    key,
    items: checkItems(items),
    cut: isCount(cut, 1e9) ? cut : 0,
    children: new Map(),
    source: handle,
  };
  const frameSlots = new Set(node.items.flatMap((item) => (item.kind === 'frame' ? [item.slot] : [])));
  if (depth < MAX_FRAME_DEPTH && frameSlots.size > 0) {
    const children = frame.childFrames().slice(0, budget.frames);
    budget.frames -= children.length;
    await Promise.all(
      children.map(async (child) => {
        try {
          const owner = (await within(
            child.frameElement(),
            FRAME_TIMEOUT_MS,
            'a frame',
            release,
          )) as ElementHandle<Element>;
          const slot = await within(
            handle.evaluate((scan, element) => scan.frames.indexOf(element), owner),
            FRAME_TIMEOUT_MS,
            'the page',
          ).finally(() => release(owner));
          if (!frameSlots.has(slot) || node.children.has(slot)) return;
          const sub = await scanTree(child, frameKey(child.url()), depth + 1, budget, handles);
          node.children.set(slot, sub.node);
        } catch {
          // A frame that went away or does not answer is left out; its iframe's line stays.
        }
      }),
    );
  }
  return {
    node,
    scroll: { above: isCount(above, 1e9) ? above : 0, below: isCount(below, 1e9) ? below : 0 },
    modal: modal === true,
  };
}

/** Scans the page's main frame and the frames it shows. Throws when the main frame does not answer. */
export async function scanPage(page: Page): Promise<PageScan> {
  const handles: ScanHandle[] = [];
  try {
    const { node, scroll, modal } = await scanTree(page.mainFrame(), '', 0, { frames: MAX_FRAMES }, handles);
    return { root: node, scroll, handles, modal };
  } catch (error) {
    releaseAll(handles);
    throw error;
  }
}
