// The actions on the active tab as a whole: open a URL, go back, scroll the
// page, read the part of it a query asks for.
import type { Page } from 'playwright-core';
import { relevantPart } from '../domain/relevant.js';
import { ACTION_TIMEOUT_MS, type Done, plain } from './actions.js';
import { within } from './scan.js';
import { isWebUrl } from './tabs.js';

/** An action's result before pageChanged is known; `acted` false when it was refused before touching the page. */
export type Result = Done & { acted: boolean; extracted?: string; unsent?: string[] };

/** Page HTML to markdown, for `extract`. */
export type Extractor = (html: string, url: string) => string | Promise<string>;

export const NAVIGATION_TIMEOUT_MS = 15_000;
const MAX_EXTRACT_CHARS = 4000;
/** HTML handed to the extractor at most (libs/extract bounds its input the same). */
const MAX_HTML_CHARS = 5_000_000;

/** Opens an http(s) URL in the tab; any other scheme is refused here, before the browser sees it. */
export async function navigate(page: Page, raw: string): Promise<Result> {
  let url: URL;
  try {
    url = new URL(String(raw));
  } catch {
    return { ok: false, message: 'navigate needs a full http(s) URL', acted: false };
  }
  if (!isWebUrl(url.href))
    return { ok: false, message: `cannot open ${url.protocol} URLs: http(s) only`, acted: false };
  const response = await page.goto(url.href, { waitUntil: 'domcontentloaded', timeout: NAVIGATION_TIMEOUT_MS });
  const status = response && response.status() >= 400 ? ` (HTTP ${response.status()})` : '';
  return { ok: true, message: `opened ${plain(page.url(), 200)}${status}`, acted: true };
}

export async function goBack(page: Page): Promise<Result> {
  const before = page.url();
  await page.goBack({ waitUntil: 'domcontentloaded', timeout: NAVIGATION_TIMEOUT_MS });
  if (page.url() === before) return { ok: false, message: 'no previous page in this tab', acted: true };
  return { ok: true, message: `back to ${plain(page.url(), 200)}`, acted: true };
}

/** Scrolls by about a viewport: the document, or the largest box that scrolls when the document does not. */
export async function scrollPage(page: Page, down: boolean): Promise<Done> {
  const moved = await within(
    page.evaluate((down) => {
      const root = document.scrollingElement ?? document.documentElement;
      let target: Element = root;
      if (root.scrollHeight <= root.clientHeight + 1) {
        let best = 0;
        for (const el of Array.from(document.querySelectorAll('body *')).slice(0, 5000)) {
          if (el.scrollHeight <= el.clientHeight + 1) continue;
          if (!/auto|scroll|overlay/.test(getComputedStyle(el).overflowY)) continue;
          const area = el.clientWidth * el.clientHeight;
          if (area > best) [best, target] = [area, el];
        }
      }
      const before = target.scrollTop;
      const step = Math.round((target === root ? window.innerHeight : target.clientHeight) * 0.8);
      target.scrollBy({ top: down ? step : -step, behavior: 'instant' });
      return Math.round(target.scrollTop - before);
    }, down),
    ACTION_TIMEOUT_MS,
    'the page',
  );
  if (moved === 0) return { ok: false, message: `cannot scroll ${down ? 'down' : 'up'}: at the end of the page` };
  return { ok: true, message: `scrolled ${down ? 'down' : 'up'} ${Math.abs(moved)} px` };
}

/** The page as markdown, cut to the paragraphs the query asks for: a summary's cost, not the page's. */
export async function extractPart(page: Page, query: string, extractor: Extractor): Promise<Result> {
  const html = await within(
    page.evaluate((max) => document.documentElement.outerHTML.slice(0, max), MAX_HTML_CHARS),
    ACTION_TIMEOUT_MS,
    'the page',
  );
  const markdown = await extractor(String(html).slice(0, MAX_HTML_CHARS), page.url());
  const part = relevantPart(String(markdown), query, MAX_EXTRACT_CHARS);
  const counts = `${part.text.length} characters (${part.kept} of ${part.total} paragraphs)`;
  return { ok: true, message: plain(`extracted ${counts} for "${query}"`, 200), extracted: part.text, acted: false };
}
