// Finds the captchas in a page (domain/captcha-kinds.ts) from the host's own
// world in it (page-world.ts): the scripts it loaded (its resource timing
// too, so a script that removed its tag is still seen), its frames, and the
// elements only a widget puts there.
import {
  type CaptchaKind,
  type FoundCaptcha,
  type PageTraces,
  recognise,
  SIGNATURES,
  TEXT_IMAGE,
} from '../domain/captcha-kinds.js';
import { openPageWorld, type PageTarget, type PageWorld } from './page-world.js';

const SELECTORS: [CaptchaKind, string][] = SIGNATURES.flatMap((s) => (s.selector ? [[s.kind, s.selector]] : []));

/** Runs in the host's world: what the page shows of its captchas. */
const GATHER = `(() => {
  const visible = (e) => { if (!e) return false; const r = e.getBoundingClientRect(); return r.width > 0 && r.height > 0; };
  const scripts = [...document.querySelectorAll('script[src]')].map((s) => s.src);
  for (const e of performance.getEntriesByType('resource'))
    if (e.initiatorType === 'script') scripts.push(e.name);
  const frames = [...document.querySelectorAll('iframe[src], frame[src]')].map((f) => f.src);
  const selectors = ${JSON.stringify(SELECTORS)}.filter(([, s]) => document.querySelector(s)).map(([k]) => k);
  const textImage = visible(document.querySelector(${JSON.stringify(TEXT_IMAGE.image)})) &&
    !!document.querySelector(${JSON.stringify(TEXT_IMAGE.field)});
  return { scripts, frames, selectors, textImage, text: (document.body && document.body.innerText || '').length };
})()`;

export interface Detection {
  found: FoundCaptcha[];
  /** How much text the page shows: a page of little more than its captcha is behind it. */
  textLength: number;
}

export async function detectCaptchas(world: PageWorld): Promise<Detection> {
  const traces = await world.evaluate<PageTraces & { text: number }>(GATHER);
  return { found: recognise(traces), textLength: traces.text };
}

/** The kinds a page shows, from a world opened for the look alone. */
export async function findCaptchas(page: PageTarget): Promise<CaptchaKind[]> {
  const world = await openPageWorld(page);
  try {
    return (await detectCaptchas(world)).found.map((f) => f.kind);
  } finally {
    await world.close();
  }
}
