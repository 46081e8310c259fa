// What an action does to the element the model named, through Playwright's
// actionability (scrolled into view, visible, stable, enabled, the real
// mouse and keyboard). Each answers a short message for the model: never
// page HTML, never the text typed (it may be a secret).

import type { ElementHandle } from 'playwright-core';
import { isoDate } from '../domain/dates.js';
import { within } from './scan.js';
import type { RunFile } from './types.js';

/** How long one element action may wait for its element to become actionable. */
export const ACTION_TIMEOUT_MS = 5000;
/** Bytes of a file attach_file hands to a page (the size browser-agent clouds accept). */
export const MAX_FILE_BYTES = 10 * 1024 * 1024;
/** A file of the largest size takes a while to cross into the page and decode there. */
const ATTACH_TIMEOUT_MS = 20_000;
const MAX_TYPED_CHARS = 10_000;
const MAX_OPTION_CHARS = 500;

export interface Done {
  ok: boolean;
  message: string;
}

const fail = (message: string): Done => ({ ok: false, message });

/** Control and format characters out, whitespace collapsed, bounded: for anything a page or the model wrote. */
export function plain(text: string, max: number): string {
  const clean = text
    .replace(/[\p{Cc}\p{Cf}]/gu, ' ')
    .replace(/\s+/g, ' ')
    .trim();
  return clean.length > max ? `${clean.slice(0, max - 1)}…` : clean;
}

/** A Playwright error as one short line: what failed and, from its call log, why. */
export function brief(error: unknown): string {
  const text = error instanceof Error ? error.message : String(error);
  if (
    /not attached to the DOM|Execution context was destroyed|has been disposed|has been closed|Frame was detached|Cannot find context/i.test(
      text,
    )
  ) {
    return 'the element is gone: the page changed since it was observed';
  }
  const lines = text.split('\n').map((line) => line.trim());
  const first = (lines[0] ?? '').replace(/^[\w.]+: /, '');
  const why = lines.filter((line) => line.startsWith('- ') && !/^- (attempting|retrying|waiting for)/.test(line)).pop();
  return plain(why ? `${first} (${why.slice(2)})` : first || 'failed', 300);
}

/** The kind of control an element is, as the actions tell them apart. */
type Kind = 'select' | 'file' | 'checkable' | 'button' | 'editable';

/** A page's answer within the action's time: a page whose script spins never answers. */
const inPage = <T>(answer: Promise<T>, ms = ACTION_TIMEOUT_MS): Promise<T> => within(answer, ms, 'the page');

const kindOf = (element: ElementHandle<Element>): Promise<Kind> =>
  inPage(
    element.evaluate((el): Kind => {
      if (el instanceof HTMLSelectElement) return 'select';
      if (el instanceof HTMLInputElement) {
        if (el.type === 'file') return 'file';
        if (el.type === 'checkbox' || el.type === 'radio') return 'checkable';
        if (['submit', 'button', 'reset', 'image'].includes(el.type)) return 'button';
      }
      return 'editable';
    }),
  );

export async function click(element: ElementHandle<Element>, index: number): Promise<Done> {
  if ((await kindOf(element)) === 'file') return fail(`[${index}] is a file input: use attach_file`);
  await element.click({ timeout: ACTION_TIMEOUT_MS });
  return { ok: true, message: `clicked [${index}]` };
}

export async function type(
  element: ElementHandle<Element>,
  index: number,
  text: string,
  submit: boolean,
): Promise<Done> {
  if (typeof text !== 'string') return fail('type needs text');
  if (text.length > MAX_TYPED_CHARS) return fail(`text longer than ${MAX_TYPED_CHARS} characters`);
  const kind = await kindOf(element);
  if (kind === 'select') return fail(`[${index}] is a <select>: use select with an option`);
  if (kind === 'file') return fail(`[${index}] is a file input: use attach_file`);
  if (kind === 'checkable' || kind === 'button') return fail(`[${index}] takes no text: click it`);
  // A date input holds only YYYY-MM-DD: a date written out ("December 1, 2026") is put in that form.
  const dated = (await inPage(element.evaluate((el) => el instanceof HTMLInputElement && el.type === 'date')))
    ? isoDate(text)
    : undefined;
  await element.fill(dated ?? text, { timeout: ACTION_TIMEOUT_MS });
  if (submit) await element.press('Enter', { timeout: ACTION_TIMEOUT_MS });
  return { ok: true, message: `typed ${text.length} characters into [${index}]${submit ? ' and pressed Enter' : ''}` };
}

export async function select(element: ElementHandle<Element>, index: number, option: string): Promise<Done> {
  if (typeof option !== 'string' || option.length > MAX_OPTION_CHARS) return fail('select needs an option');
  const found = await inPage(
    element.evaluate((el, wanted) => {
      if (!(el instanceof HTMLSelectElement)) return { error: 'not a <select>: click it, then click the option' };
      const norm = (s: string) => s.replace(/\s+/g, ' ').trim().toLowerCase();
      const options = Array.from(el.options);
      let at = options.findIndex((o) => o.label.trim() === wanted.trim() || o.value === wanted);
      if (at < 0) at = options.findIndex((o) => norm(o.label) === norm(wanted) || norm(o.value) === norm(wanted));
      if (at < 0) return { error: `has no option "${wanted}"`, options: options.slice(0, 10).map((o) => o.label) };
      return { at, label: options[at]?.label ?? '' };
    }, option),
  );
  if ('error' in found) {
    const known = found.options?.length ? `; its options: ${found.options.join(' | ')}` : '';
    return fail(plain(`[${index}] ${found.error}${known}`, 300));
  }
  await element.selectOption({ index: found.at }, { timeout: ACTION_TIMEOUT_MS });
  return { ok: true, message: plain(`selected "${found.label}" in [${index}]`, 200) };
}

/** Scrolls the element's nearest scrollable box (or its frame's page) by about its height. */
export async function scrollElement(element: ElementHandle<Element>, index: number, down: boolean): Promise<Done> {
  const moved = await inPage(
    element.evaluate((el, down) => {
      const scrollable = (node: Element) => {
        const { overflowY } = getComputedStyle(node);
        return node.scrollHeight > node.clientHeight + 1 && /auto|scroll|overlay/.test(overflowY);
      };
      let box: Element | null = el;
      while (box && !scrollable(box)) {
        box = box.parentElement ?? ((box.getRootNode() as ShadowRoot).host || null);
      }
      const target = box ?? document.scrollingElement ?? document.documentElement;
      const before = target.scrollTop;
      const step = Math.max(100, Math.round((box ? target.clientHeight : window.innerHeight) * 0.8));
      target.scrollBy({ top: down ? step : -step, behavior: 'instant' });
      return Math.round(target.scrollTop - before);
    }, down),
  );
  if (moved === 0) return fail(`[${index}] cannot scroll ${down ? 'down' : 'up'}: at the end`);
  return { ok: true, message: `scrolled [${index}] ${down ? 'down' : 'up'} ${Math.abs(moved)} px` };
}

export async function attachFile(element: ElementHandle<Element>, index: number, file: RunFile): Promise<Done> {
  if (file.bytes.length > MAX_FILE_BYTES) return fail(`the file is larger than ${MAX_FILE_BYTES / 1024 / 1024} MB`);
  const name = plain(file.name.replace(/[/\\]/g, '_'), 200) || 'file';
  const mimeType = /^[\w.+-]+\/[\w.+-]+$/.test(file.mimeType) ? file.mimeType : 'application/octet-stream';
  // The host refuses DOM.setFileInputFiles (it names host paths): the bytes go in through the page.
  const answer = await inPage(
    element.evaluate(
      (el, file) => {
        let input: Element | null | undefined = el;
        if (el instanceof HTMLLabelElement) input = el.control;
        if (!(input instanceof HTMLInputElement && input.type === 'file')) {
          input = el.querySelector('input[type=file]') ?? el.shadowRoot?.querySelector('input[type=file]');
        }
        if (!(input instanceof HTMLInputElement && input.type === 'file')) return 'not a file input';
        const binary = atob(file.base64);
        const bytes = new Uint8Array(binary.length);
        for (let i = 0; i < binary.length; i++) bytes[i] = binary.charCodeAt(i);
        const transfer = new DataTransfer();
        if (input.multiple) for (const kept of Array.from(input.files ?? [])) transfer.items.add(kept);
        transfer.items.add(new File([bytes], file.name, { type: file.type }));
        input.files = transfer.files;
        input.dispatchEvent(new Event('input', { bubbles: true, composed: true }));
        input.dispatchEvent(new Event('change', { bubbles: true }));
        return 'attached';
      },
      { base64: file.bytes.toString('base64'), name, type: mimeType },
    ),
    ATTACH_TIMEOUT_MS,
  );
  if (answer !== 'attached') return fail(`[${index}] is ${plain(String(answer), 100)}`);
  return { ok: true, message: `attached ${JSON.stringify(name)} (${file.bytes.length} bytes) to [${index}]` };
}
