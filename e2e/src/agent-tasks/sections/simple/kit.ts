// What every simple kind is made of. A kind's page and task are drawn from a
// seed by a small PRNG (mulberry32), so each seed gives another page: other
// labels and words, another order, layout and distractors. A run that learnt
// one page's layout has learnt nothing about the next seed's. The seed is in
// the page's path (/simple/<seed>/<kind>), so the site serves any seed and
// the bench can ask for seeds the self-check never saw.
import type { Page } from 'playwright-core';
import type { SiteRecord } from '../../site.js';
import { esc, page, type Reply, type Route, type Visit } from '../../site.js';
import { type Acts, type AgentTask, fail, pass, type Solution, type TaskKind, type Verdict } from '../../task.js';

export type Rng = () => number;

/** mulberry32: 32 bits of state, small, and the same numbers on every machine. */
export function mulberry32(seed: number): Rng {
  let state = seed >>> 0;
  return () => {
    state = (state + 0x6d2b79f5) >>> 0;
    let t = state;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

/** FNV-1a: folds the kind's name into the seed, so the kinds of one seed do not draw the same numbers. */
function hash(text: string): number {
  let h = 0x811c9dc5;
  for (const c of text) h = Math.imul(h ^ (c.codePointAt(0) as number), 0x01000193);
  return h >>> 0;
}

/** The numbers `slug`'s instance of `seed` is drawn with. */
export const rngFor = (slug: string, seed: number): Rng => mulberry32(hash(`${slug}#${seed}`));

export const pick = <T>(r: Rng, items: readonly T[]): T => items[Math.floor(r() * items.length)] as T;

/** A whole number from `low` to `high`, both included. */
export const between = (r: Rng, low: number, high: number): number => low + Math.floor(r() * (high - low + 1));

export function shuffle<T>(r: Rng, items: readonly T[]): T[] {
  const out = [...items];
  for (let i = out.length - 1; i > 0; i--) {
    const j = Math.floor(r() * (i + 1));
    [out[i], out[j]] = [out[j] as T, out[i] as T];
  }
  return out;
}

/** `n` different items of `items`, in a drawn order. */
export const sample = <T>(r: Rng, items: readonly T[], n: number): T[] => shuffle(r, items).slice(0, n);

/** "A", "A and B", "A, B and C": a list as a sentence writes it. */
export function and(items: string[]): string {
  return items.length < 2 ? (items[0] ?? '') : `${items.slice(0, -1).join(', ')} and ${items.at(-1)}`;
}

/** A form field's name from its label: "Coupon code" is `coupon-code`. */
export const slug = (label: string): string => label.toLowerCase().replace(/[^a-z0-9]+/g, '-');

/** One generated task: the task, its scripted solution, and wrong ways to do it that its check must refuse. */
export interface Generated {
  task: AgentTask;
  solution: Solution;
  mistakes: Record<string, Solution>;
}

/** A kind of simple task: its pages (any seed) and the task of a seed. */
export interface SimpleKind {
  slug: string;
  routes: Route[];
  generate(seed: number): Generated;
}

/** The start page of `slug`'s instance of `seed`. */
export const pathOf = (slug: string, seed: number): string => `/simple/${seed}/${slug}`;

/** The fields every generated task has, from its kind and seed. */
export function taskOf(
  slug: string,
  seed: number,
  kind: TaskKind,
  acts: Acts,
): Pick<AgentTask, 'id' | 'kind' | 'path' | 'acts'> {
  return { id: `simple-${slug}-${seed}`, kind, path: pathOf(slug, seed), acts };
}

const NOT_FOUND: Reply = { status: 404, html: page('Not found', 'Page not found', '<p>There is no such page.</p>') };

/** A route under `/simple/:seed`, handed the instance the path's seed makes. */
export function seeded<T>(
  method: 'GET' | 'POST',
  path: string,
  make: (seed: number) => T,
  handle: (it: T, v: Visit) => Reply,
): Route {
  return {
    method,
    path: `/simple/:seed${path}`,
    handle(v) {
      const seed = Number(v.params.seed);
      return Number.isSafeInteger(seed) && seed >= 0 ? handle(make(seed), v) : NOT_FOUND;
    },
  };
}

/** What two instances of a kind share, drawn first: the site's name, the page's title, the chatter around the task. */
export interface Frame {
  brand: string;
  title: string;
  before: string[];
  after: string[];
  layout: Layout;
}

const BRANDS = [
  'Bramble & Birch',
  'Northwind Supplies',
  'Pocket Atlas',
  'Little Lantern Books',
  'Cobalt Cycles',
  'Sunday Pantry',
  'Harbour Lane Hotel',
  'Quarry Street Clinic',
  'Velvet Fern Studio',
  'Tidewater Travel',
  'Granite Ridge Bank',
  'Meadowlark Music',
  'Copperleaf Kitchens',
  'Orbit Office',
];

/** Sentences a page says that have nothing to do with the task. */
const CHATTER = [
  'Free delivery on orders over €40.',
  'Our team answers questions within one working day.',
  'Prices include VAT.',
  'We plant a tree for every order.',
  'New here? Take a look around.',
  'Opening hours: Monday to Friday, 9:00 to 17:00.',
  'Members get 10% off every second order.',
  'This page was updated last week.',
  'Need help? Call us on 0800 123 456.',
  'Thank you for choosing us.',
];

export const LAYOUTS = ['row', 'list', 'stack', 'grid'] as const;
export type Layout = (typeof LAYOUTS)[number];

export function frame(r: Rng, titles: readonly string[]): Frame {
  const [brand, title] = [pick(r, BRANDS), pick(r, titles)];
  // One draw for both, so a sentence is never said twice on a page.
  const chatter = sample(r, CHATTER, between(r, 0, 3));
  const split = between(r, 0, chatter.length);
  return {
    brand,
    title,
    before: chatter.slice(0, split),
    after: chatter.slice(split),
    layout: pick(r, LAYOUTS),
  };
}

/** The frame's page around `body`: its chatter before and after. */
export function framed(f: Frame, body: string, script = ''): string {
  const say = (lines: string[]) => lines.map((l) => `<p>${esc(l)}</p>`).join('');
  return page(f.brand, f.title, `${say(f.before)}${body}${say(f.after)}`, script);
}

/** Items (HTML) in the frame's layout: a line, a list, one under the other, or a two-column grid. */
export function arrange(layout: Layout, items: string[]): string {
  if (layout === 'row') return `<p>${items.join(' ')}</p>`;
  if (layout === 'list') return `<ul>${items.map((i) => `<li>${i}</li>`).join('')}</ul>`;
  if (layout === 'stack') return items.map((i) => `<div>${i}</div>`).join('');
  const rows: string[] = [];
  for (let i = 0; i < items.length; i += 2) rows.push(`<tr><td>${items[i]}</td><td>${items[i + 1] ?? ''}</td></tr>`);
  return `<table role="presentation">${rows.join('')}</table>`;
}

/** How a text box is labelled: wrapped by its label, or a label pointing at it, beside or above. */
export const LABEL_STYLES = ['wrap', 'beside', 'above'] as const;
export type LabelStyle = (typeof LABEL_STYLES)[number];

export function textBox(style: LabelStyle, label: string, name: string, attrs = 'type="text"'): string {
  const id = `f-${name}`;
  if (style === 'wrap') return `<label>${esc(label)} <input name="${name}" ${attrs}></label>`;
  const input = `<input id="${id}" name="${name}" ${attrs}>`;
  return `<div><label for="${id}" style="display:inline">${esc(label)}</label>${style === 'above' ? '<br>' : ' '}${input}</div>`;
}

/** The page after a form was sent: one status line saying what was done. */
export const donePage = (f: Frame, text: string): string =>
  page(f.brand, 'Thank you', `<p role="status">${esc(text)}</p>`);

/**
 * Every record of `kind` has `want` as its `key`, and there is one at least:
 * the right element was used and no other (using it again does no harm).
 */
export function everyOn(records: SiteRecord[], kind: string, key: string, want: string): Verdict {
  const got = records.filter((r) => r.kind === kind).map((r) => String(r.data[key]));
  if (got.length === 0) return fail(`no ${kind} recorded`);
  const wrong = got.find((g) => g !== want);
  return wrong === undefined
    ? pass(`${key}: ${want}`)
    : fail(`${key} ${JSON.stringify(wrong)} too, only ${JSON.stringify(want)} was asked for`);
}

/** A script's `tell(data)`: posts `data` to the kind's event endpoint, which records it. */
export const tellScript = (v: Visit, kind: string): string =>
  `const tell = (data) => fetch(${JSON.stringify(`${v.base}/simple/${v.params.seed}/${kind}/event`)}, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(data), keepalive: true });
const status = (text) => {
  let line = document.querySelector('[role=status]');
  if (!line) { line = document.createElement('p'); line.setAttribute('role', 'status'); document.querySelector('main').append(line); }
  line.textContent = text;
};`;

/** The first word of each person's name and the last: the rows, users and form values of the kinds. */
export const FIRST_NAMES = [
  'Mira',
  'Jonas',
  'Aisha',
  'Tomas',
  'Lena',
  'Omar',
  'Chloe',
  'Ravi',
  'Ingrid',
  'Mateo',
  'Yuki',
  'Nadia',
  'Felix',
  'Sofia',
];
export const LAST_NAMES = [
  'Holt',
  'Berg',
  'Okafor',
  'Novak',
  'Fischer',
  'Haddad',
  'Martin',
  'Iyer',
  'Lund',
  'Rossi',
  'Tanaka',
  'Petrova',
  'Byrne',
  'Costa',
];

/** Plain words to type: nothing a model could mistake for an instruction. */
export const WORDS = [
  'lantern',
  'harbour',
  'orchid',
  'pepper',
  'meadow',
  'granite',
  'velvet',
  'compass',
  'saffron',
  'willow',
  'tundra',
  'marble',
  'copper',
  'falcon',
  'nectar',
  'pebble',
  'juniper',
  'cobalt',
];

/** A password that passes the pages' rules: a capitalised word, a dash, four digits. */
export function password(r: Rng): string {
  const word = pick(r, WORDS);
  return `${word[0]?.toUpperCase()}${word.slice(1)}-${between(r, 1000, 9999)}`;
}

export const MONTHS = [
  'January',
  'February',
  'March',
  'April',
  'May',
  'June',
  'July',
  'August',
  'September',
  'October',
  'November',
  'December',
];

/** Waits for the status line a page shows once what was asked is done. */
export const statusShown = async (p: Page): Promise<void> => {
  await p.getByRole('status').waitFor();
};

/** Does `act` and waits until the page's script has told the site about it. */
export async function told(p: Page, act: () => Promise<unknown>): Promise<void> {
  await Promise.all([p.waitForResponse((res) => res.url().endsWith('/event') && res.ok()), act()]);
}

/** The mistake of doing the whole task twice: done, then done again from the start page. */
export function twice(solve: Solution): Solution {
  return async (p) => {
    const start = p.url();
    await solve(p);
    await p.goto(start);
    return solve(p);
  };
}
