// What the console test asks of every page it visits (docs/console.md's promise: no console
// errors, no failed requests, WCAG 2 A/AA, readable on a phone), and the steps a person takes
// on it, written with the accessible names of the console's contract only.
import assert from 'node:assert/strict';
import { writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import AxeBuilder from '@axe-core/playwright';
import type { Locator, Page, Request, Response } from 'playwright-core';

/** Something a person would call broken: a console error, an uncaught exception, a failed request. */
export interface Problem {
  kind: 'console' | 'pageerror' | 'requestfailed' | 'status';
  text: string;
}

/**
 * A failure the test provokes on purpose on a path (its console line "Failed to load resource" too):
 * a refusal's status, or `network` for a request made to fail before any answer.
 */
interface Provoked {
  status: number | 'network';
  path: RegExp;
}

/**
 * Watches a page from its first request: every console error, uncaught exception, failed request
 * and answer of 400 or more, in any of its frames. A request aborted because its page or frame
 * went away (a route left, an iframe removed, a reload) is no failure.
 */
export class PageWatch {
  private problems: Problem[] = [];
  private provoked: Provoked[] = [];
  /** What the checks found wrong so far, one line each: said all together at the end of a test. */
  readonly found: string[] = [];

  constructor(readonly page: Page) {
    page.on('console', (m) => {
      if (m.type() !== 'error') return;
      const at = m.location().url;
      if (/^Failed to load resource/.test(m.text()) && this.isProvoked(m.text(), at)) return;
      this.problems.push({ kind: 'console', text: `${m.text()} (${at})` });
    });
    page.on('pageerror', (e) => this.problems.push({ kind: 'pageerror', text: e.stack ?? e.message }));
    page.on('requestfailed', (r) => this.onFailed(r));
    page.on('response', (r) => this.onResponse(r));
  }

  private isProvoked(text: string, url: string): boolean {
    const path = url ? new URL(url).pathname : '';
    const status = /status of (\d+)/.exec(text)?.[1];
    const failure = status ? Number(status) : /net::ERR_/.test(text) ? 'network' : undefined;
    return this.provoked.some((p) => p.status === failure && p.path.test(path));
  }

  private onFailed(request: Request) {
    const error = request.failure()?.errorText ?? '';
    // Cancelled on purpose (an AbortController, EventSource.close(), a page or frame left): not a failure.
    if (error === 'net::ERR_ABORTED') return;
    const path = new URL(request.url()).pathname;
    if (this.provoked.some((p) => p.status === 'network' && p.path.test(path))) return;
    this.problems.push({ kind: 'requestfailed', text: `${request.method()} ${request.url()}: ${error}` });
  }

  private onResponse(response: Response) {
    if (response.status() < 400) return;
    const path = new URL(response.url()).pathname;
    if (this.provoked.some((p) => p.status === response.status() && p.path.test(path))) return;
    this.problems.push({
      kind: 'status',
      text: `${response.request().method()} ${response.url()} answered ${response.status()}`,
    });
  }

  /** The test provokes this failure on purpose (a wrong password, another workspace's id, a request aborted...). */
  provoke(status: number | 'network', path: RegExp): void {
    this.provoked.push({ status, path });
  }

  /** Nothing went wrong on the page since the last check; then starts again (provoked refusals forgotten). */
  assertClean(where: string): void {
    const seen = this.problems;
    this.problems = [];
    this.provoked = [];
    assert.deepEqual(seen, [], `${where}: no console error, no exception, no failed request`);
  }

  /**
   * The page as it stands passes: nothing went wrong since the last check, and no serious
   * accessibility violation (`exclude`: content that is not ours, as a recorded page). What
   * fails is kept for the end of the test, so one problem does not hide the steps after it.
   */
  async check(where: string, exclude: Excluded[] = []): Promise<void> {
    await this.keep(() => assertAccessible(this.page, where, exclude));
    await this.keep(async () => this.assertClean(where));
  }

  /** On a phone: the page fits the screen's width (kept for the end of the test as `check`). */
  async checkFits(where: string): Promise<void> {
    await this.keep(() => assertFitsWidth(this.page, where));
  }

  private async keep(check: () => Promise<void>): Promise<void> {
    try {
      await check();
    } catch (error) {
      if (!(error instanceof assert.AssertionError)) throw error;
      this.found.push(error.message);
    }
  }

  assertNothingFound(): void {
    assert.equal(this.found.length, 0, `what the pages showed wrong:\n${this.found.join('\n\n')}`);
  }
}

/** A selector in the page, or a path of them through frames (an iframe's selector, then one inside it...). */
export type Excluded = string | string[];

/**
 * The player's own frame inside a session's screen (a run's page and a session's page show one):
 * the recorded page is the site's, not ours, and axe cannot run in that sandboxed frame.
 */
export const RECORDED_PAGE: Excluded[] = [
  ['iframe[title="Live view"]', 'iframe'],
  ['iframe[title="Replay"]', 'iframe'],
];

/** Longest one accessibility check may take: a frame axe cannot run in would otherwise hang it for good. */
const AXE_TIMEOUT_MS = 60_000;

/** WCAG 2 A and AA (axe-core) on the page and its frames: no serious or critical violation. */
export async function assertAccessible(page: Page, where: string, exclude: Excluded[] = []): Promise<void> {
  let builder = new AxeBuilder({ page }).withTags(['wcag2a', 'wcag2aa']);
  for (const selector of exclude) builder = builder.exclude(selector);
  let timer: NodeJS.Timeout | undefined;
  const { violations } = await Promise.race([
    builder.analyze(),
    new Promise<never>((_, reject) => {
      timer = setTimeout(() => reject(new Error(`${where}: axe found no end in ${AXE_TIMEOUT_MS} ms`)), AXE_TIMEOUT_MS);
    }),
  ]).finally(() => clearTimeout(timer));
  const grave = violations
    .filter((v) => v.impact === 'serious' || v.impact === 'critical')
    .map((v) => ({
      rule: v.id,
      impact: v.impact,
      help: v.help,
      nodes: v.nodes.slice(0, 5).map((n) => `${n.target.join(' ')}: ${n.failureSummary?.split('\n')[1]?.trim()}`),
    }));
  assert.deepEqual(grave, [], `${where}: no serious or critical accessibility violation`);
}

/**
 * Nothing sticks out of the viewport to the right (the whole page would scroll sideways on a
 * phone, or, under an overflow: hidden body, be cut off) unless it sits in a box that scrolls
 * on its own, as a table's wrapper does.
 */
export async function assertFitsWidth(page: Page, where: string): Promise<void> {
  // A string: this package is compiled without the DOM's types.
  const found = (await page.evaluate(`(() => {
    const width = document.documentElement.clientWidth;
    // A box of the page's own that scrolls sideways (a table's wrapper); html and body do not count.
    const contained = (el) => {
      for (let p = el.parentElement; p && p !== document.body; p = p.parentElement) {
        const x = getComputedStyle(p).overflowX;
        if (x === 'auto' || x === 'scroll') return true;
      }
      return false;
    };
    const name = (el) =>
      el.tagName.toLowerCase() + (el.id ? '#' + el.id : '') + '[' + (el.textContent || '').trim().slice(0, 40) + ']';
    const sticking = [];
    const rightOf = new Map();
    for (const el of document.body.querySelectorAll('*')) {
      const r = el.getBoundingClientRect();
      if (r.width <= 1 || r.height <= 1) continue;
      // A box's own text runs past it (a long unbroken word) when its content is wider than the box.
      // (SVG boxes count in their own units: their drawn box alone is what shows.)
      const right =
        el instanceof HTMLElement && getComputedStyle(el).overflowX === 'visible'
          ? Math.max(r.right, r.left + el.scrollWidth)
          : r.right;
      if (right > width + 1 && !contained(el)) {
        sticking.push(el);
        rightOf.set(el, right);
      }
    }
    // The innermost culprits: an element whose child already sticks out says nothing more.
    const innermost = sticking.filter((el) => !sticking.some((other) => other !== el && el.contains(other)));
    return {
      width,
      scrollWidth: document.documentElement.scrollWidth,
      sticking: innermost.slice(0, 8).map((el) => name(el) + ' right=' + Math.round(rightOf.get(el))),
    };
  })()`)) as { width: number; scrollWidth: number; sticking: string[] };
  assert.deepEqual(
    { scrollWidth: found.scrollWidth <= found.width, sticking: found.sticking },
    { scrollWidth: true, sticking: [] },
    `${where}: the page fits ${found.width} px (scrollWidth ${found.scrollWidth})`,
  );
}

/** The page's one h1, once it shows `name`. */
export async function heading(page: Page, name: string | RegExp): Promise<void> {
  await page.getByRole('heading', { level: 1, name, exact: typeof name === 'string' }).waitFor();
  assert.equal(await page.getByRole('heading', { level: 1 }).count(), 1, `one h1 on ${page.url()}`);
}

/** Signs in on the sign-in page every console page sends a person to without a session. */
export async function signIn(page: Page, watch: PageWatch, url: string, email: string, password: string) {
  // With no session yet, the app's look at its session is refused: that is how it knows to ask.
  watch.provoke(401, /^\/console\/api\/session$/);
  await page.goto(url);
  await page.waitForURL(/\/console\/sign-in/);
  await page.getByLabel('Email', { exact: true }).fill(email);
  await page.getByLabel('Password', { exact: true }).fill(password);
  // By keyboard: Enter in the form signs in as the button does.
  await page.getByLabel('Password', { exact: true }).press('Enter');
  await page.getByRole('navigation', { name: 'Console' }).waitFor();
}

/** Follows a link of the console's navigation. */
export async function open(page: Page, link: string, h1: string): Promise<void> {
  await page.getByRole('navigation', { name: 'Console' }).getByRole('link', { name: link, exact: true }).click();
  await heading(page, h1);
}

/** The page once nothing on it says "Loading…" (what the console shows while its calls are out). */
export async function settled(page: Page): Promise<void> {
  await page.getByText('Loading…', { exact: true }).first().waitFor({ state: 'detached' });
}

/** The table captioned `caption`, once it has a row (besides its header) matching `text`. */
export async function rowOf(page: Page, caption: string, text: string | RegExp): Promise<Locator> {
  const row = page.getByRole('table', { name: caption }).getByRole('row').filter({ hasText: text });
  await row.first().waitFor();
  return row.first();
}

/** The table captioned `caption` once its rows came (the console says "Loading…" in it until then). */
export async function loaded(page: Page, caption: string): Promise<Locator> {
  const table = page.getByRole('table', { name: caption });
  await table.waitFor();
  await table.getByRole('row').filter({ hasText: 'Loading…' }).waitFor({ state: 'detached' });
  return table;
}

/** The text of each row of the table captioned `caption`, header row first. */
export async function rowsOf(page: Page, caption: string): Promise<string[]> {
  const table = await loaded(page, caption);
  return (await table.getByRole('row').allInnerTexts()).map((t) => t.replace(/\s+/g, ' ').trim());
}

/** A number as the console writes it ("1,234.5"), read back. */
export const creditsIn = (text: string): number => Number(text.replace(/[^\d.-]/g, ''));

/** A fleet's admin CLI, as `fleet.admin` runs it. */
type Admin = <T = unknown>(...args: string[]) => Promise<T>;

/** A pro workspace `name` with an API key and `email` as its owner, signing in with `password`; its key. */
export async function workspaceWithOwner(admin: Admin, name: string, email: string, password: string): Promise<string> {
  const passwordFile = path.join(tmpdir(), `wap-console-${name}-${process.pid}`);
  writeFileSync(passwordFile, `${password}\n`);
  await admin('workspace', 'create', name, '--plan', 'pro');
  const [{ apiKey }] = await Promise.all([
    admin<{ apiKey: string }>('key', 'create', name, '--name', 'fixtures'),
    admin('user', 'create', email, '--password-file', passwordFile),
  ]);
  await admin('member', 'add', name, email, '--role', 'owner');
  return apiKey;
}
