// What the host does with a page's captchas (docs/connect.md, "Captchas"):
// finds them (detect.ts) and solves the one it can, proof of work by letting
// it run and waiting for its answer, a text image by reading it (ocr.ts), the
// token widgets by the operator's provider (provider.ts), then waits for the
// page to let it through. Every step is told to `events` (a /connect
// client's Captcha domain). A solve is never metered (docs/billing.md).
import {
  type CaptchaKind,
  type FoundCaptcha,
  type SolveMethod,
  signatureOf,
  TEXT_IMAGE,
} from '../domain/captcha-kinds.js';
import { type Detection, detectCaptchas } from './detect.js';
import { readTexts } from './ocr.js';
import { openPageWorld, type PageTarget, type PageWorld } from './page-world.js';
import type { SolverProvider } from './provider.js';

/** A page of less text than this, still showing a captcha, is the captcha's page: the site is behind it. */
const WALL_TEXT = 600;
/** How often a wait looks again: each look is one small evaluate in the host's world. */
const POLL_MS = 50;
/** How long a page is given to move on once its captcha is answered. */
const SETTLE_MS = 5_000;

export type CaptchaEvent =
  | { type: 'found'; kinds: CaptchaKind[] }
  | { type: 'solving'; kind: CaptchaKind; method: SolveMethod }
  | { type: 'solved'; kind: CaptchaKind; method: SolveMethod; durationMs: number }
  | { type: 'failed'; kind: CaptchaKind; reason: string };

/** What happened, as a scrape's `metadata.captcha` says it. */
export interface CaptchaReport {
  found: CaptchaKind[];
  outcome: 'none' | 'solved' | 'failed' | 'unsupported';
  kind?: CaptchaKind;
  method?: SolveMethod;
  durationMs: number;
  /** The page stayed behind a captcha. */
  blocked: boolean;
  reason?: string;
}

export interface SolveOptions {
  provider?: SolverProvider | undefined;
  /** When the caller needs the page back, solved or not (epoch ms). */
  deadline: number;
  /** The document's HTTP status: a challenge page often answers 403 or 503. */
  status?: number;
  events?: (event: CaptchaEvent) => void;
  signal?: AbortSignal;
}

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/** Whether what `detection` shows is a page the site keeps its content behind. */
function walled(detection: Detection, status: number | undefined): boolean {
  if (detection.found.length === 0) return false;
  return (
    detection.found.some((f) => f.wall) || detection.textLength < WALL_TEXT || (status !== undefined && status >= 400)
  );
}

/** The captcha to work on: one solvable here first, then one the provider takes. */
function choose(found: FoundCaptcha[], provider: SolverProvider | undefined): FoundCaptcha | undefined {
  return (
    found.find((f) => f.method === 'pow') ??
    found.find((f) => f.method === 'ocr') ??
    found.find((f) => f.method === 'provider' && provider) ??
    undefined
  );
}

/** Polls `check` in the host's world until it answers truthy or `until` passes. */
async function waitFor(world: PageWorld, check: string, until: number): Promise<boolean> {
  while (Date.now() < until) {
    if (await world.evaluate<boolean>(check).catch(() => false)) return true;
    await sleep(POLL_MS);
  }
  return false;
}

/** Proof of work: started as a person would (its checkbox) if it did not start itself, and waited for. */
async function solvePow(world: PageWorld, kind: CaptchaKind, until: number): Promise<void> {
  const signature = signatureOf(kind);
  const field = JSON.stringify(signature?.field ?? '');
  const widget = JSON.stringify(signature?.selector ?? '');
  // Answered, or gone: a page behind it moves on the moment it is (Friendly Captcha's field holds a dot-led
  // placeholder until then).
  const answered = `(() => {
    if (!document.querySelector(${widget})) return true;
    const f = document.querySelector(${field});
    return !!f && !!f.value && !f.value.startsWith('.');
  })()`;
  // One that starts itself (ALTCHA's auto="onload", Friendly Captcha's data-start="auto") is only waited for.
  const starts = await world.evaluate<boolean>(`(() => {
    const w = document.querySelector(${widget});
    const a = (w && (w.getAttribute('auto') || w.getAttribute('data-start'))) || '';
    return a === 'onload' || a === 'auto';
  })()`);
  if (starts || (await world.evaluate<boolean>(answered))) {
    if (await waitFor(world, answered, until)) return;
    throw new Error('its proof of work did not finish in time');
  }
  const box = await world.evaluate<{ x: number; y: number } | null>(`(() => {
    const w = document.querySelector('altcha-widget, .frc-captcha, .mcaptcha__widget');
    const root = (w && (w.shadowRoot || w)) || document;
    const c = root.querySelector('input[type="checkbox"], button');
    if (!c) return null;
    c.scrollIntoView({ block: 'center' });
    const r = c.getBoundingClientRect();
    return { x: r.left + r.width / 2, y: r.top + r.height / 2 };
  })()`);
  if (box) await world.click(box.x, box.y);
  if (!(await waitFor(world, answered, until))) throw new Error('its proof of work did not finish in time');
}

/** Answers given to one text captcha at most: the likeliest reading, then the next, while the site shows it again. */
const TEXT_TRIES = 3;
/** Set in the host's world when an answer is sent: a document without it is the site's answer. */
const ANSWERED = 'globalThis.__captchaAnswered';

/** The text captcha's image as shown (3× its CSS size), once loaded; undefined when the page has none. */
async function textImage(world: PageWorld, until: number): Promise<Buffer | undefined> {
  const image = JSON.stringify(TEXT_IMAGE.image);
  await waitFor(
    world,
    `(() => { const i = document.querySelector(${image}); return !i || (i.complete && i.naturalWidth > 0); })()`,
    until,
  );
  const clip = await world.evaluate<{ x: number; y: number; width: number; height: number } | null>(`(() => {
    const i = document.querySelector(${image});
    if (!i) return null;
    i.scrollIntoView({ block: 'center' });
    const r = i.getBoundingClientRect();
    return { x: r.left + scrollX, y: r.top + scrollY, width: r.width, height: r.height };
  })()`);
  return clip ? world.capture(clip, 3) : undefined;
}

/**
 * A text captcha: its image read, the text typed into its field, and the form
 * sent with Enter. A site that answers with the same image again (it was
 * wrong) is given the next reading, a new image is read anew.
 */
async function solveText(world: PageWorld, until: number): Promise<void> {
  let shown: Buffer | undefined;
  let texts: string[] = [];
  for (let sent = 0; ; sent++) {
    const image = await textImage(world, until);
    if (!image) {
      if (sent === 0) throw new Error('its image is gone');
      return;
    }
    if (!shown?.equals(image)) texts = await readTexts(image);
    else texts.shift();
    shown = image;
    const text = texts[0];
    if (sent === 0 && text === undefined) throw new Error('its image could not be read');
    // Turned back with no reading left, or as often as a site is answered: it stays behind its captcha.
    if (text === undefined || sent === TEXT_TRIES) throw new Error(`the site turned back every answer (${sent})`);
    const focused = await world.evaluate<boolean>(`(() => {
      const f = document.querySelector(${JSON.stringify(TEXT_IMAGE.field)});
      if (!f) return false;
      f.focus();
      f.select && f.select();
      ${ANSWERED} = true;
      return document.activeElement === f;
    })()`);
    if (!focused) throw new Error('its field cannot take text');
    await world.type(text, true);
    // The site's answer: a new document, or the image gone from this one.
    const answered = `!${ANSWERED} || !document.querySelector(${JSON.stringify(TEXT_IMAGE.image)})`;
    if (!(await waitFor(world, answered, Math.min(until, Date.now() + SETTLE_MS)))) return;
  }
}

/** A token widget: the provider's token put in the widget's field, and the widget's callback called with it. */
async function solveByProvider(
  world: PageWorld,
  kind: CaptchaKind,
  provider: SolverProvider,
  signal: AbortSignal,
): Promise<void> {
  const signature = signatureOf(kind);
  if (!signature?.task || !signature.widget || !signature.field) throw new Error('no provider task for it');
  const widget = await world.evaluate<{ siteKey: string; callback: string; url: string } | null>(`(() => {
    const w = document.querySelector(${JSON.stringify(signature.widget)});
    return w && { siteKey: w.dataset.sitekey || '', callback: w.dataset.callback || '', url: location.href };
  })()`);
  if (!widget?.siteKey) throw new Error('its site key is not in the page');
  const token = await provider.solve(
    { type: signature.task, websiteURL: widget.url, websiteKey: widget.siteKey },
    signal,
  );
  // Every field of the kind (a page may hold one per widget, and hCaptcha fills reCAPTCHA's too).
  await world.evaluate(`(() => {
    for (const f of document.querySelectorAll(${JSON.stringify(`${signature.field}, textarea[name="g-recaptcha-response"]`)}))
      f.value = ${JSON.stringify(token)};
  })()`);
  // The one step in the page's own world: the page named the function its widget calls with the token.
  if (/^[A-Za-z_$][\w$]*(\.[A-Za-z_$][\w$]*)*$/.test(widget.callback))
    await world.callPage(`(() => {
      const f = ${JSON.stringify(widget.callback)}.split('.').reduce((o, k) => o && o[k], globalThis);
      if (typeof f === 'function') f(${JSON.stringify(token)});
    })()`);
}

/** Finds and solves the captchas of `page`; never throws for a captcha (its failure is in the report). */
export async function handleCaptchas(page: PageTarget, options: SolveOptions): Promise<CaptchaReport> {
  const started = Date.now();
  const world = await openPageWorld(page);
  const report = (r: Omit<CaptchaReport, 'durationMs'>): CaptchaReport => ({ ...r, durationMs: Date.now() - started });
  try {
    const detection = await detectCaptchas(world);
    const found = detection.found.map((f) => f.kind);
    if (found.length === 0) return report({ found, outcome: 'none', blocked: false });
    options.events?.({ type: 'found', kinds: found });
    const target = choose(detection.found, options.provider);
    if (!target) {
      const kind = detection.found[0]?.kind;
      const reason = detection.found.some((f) => f.method === 'provider')
        ? 'no solver provider is configured'
        : 'not solvable here';
      if (kind) options.events?.({ type: 'failed', kind, reason });
      return report({
        found,
        outcome: 'unsupported',
        ...(kind && { kind }),
        blocked: walled(detection, options.status),
        reason,
      });
    }
    const { kind, method } = target;
    options.events?.({ type: 'solving', kind, method });
    const until = options.deadline;
    const controller = new AbortController();
    const timer = setTimeout(() => controller.abort(), Math.max(until - Date.now(), 0));
    const abort = () => controller.abort();
    options.signal?.addEventListener('abort', abort, { once: true });
    try {
      if (method === 'pow') await solvePow(world, kind, until);
      else if (method === 'ocr') await solveText(world, until);
      else if (options.provider) await solveByProvider(world, kind, options.provider, controller.signal);
    } catch (err) {
      const reason = controller.signal.aborted ? 'out of time' : err instanceof Error ? err.message : String(err);
      options.events?.({ type: 'failed', kind, reason });
      return report({ found, outcome: 'failed', kind, method, blocked: walled(detection, options.status), reason });
    } finally {
      clearTimeout(timer);
      options.signal?.removeEventListener('abort', abort);
    }
    // A page behind its captcha moves on once answered: given a moment, it shows what it kept.
    // Looked at at once (a wall that submits on its answer is often through already), then every POLL_MS.
    let after = detection;
    if (walled(detection, options.status)) {
      const settle = Math.min(until, Date.now() + SETTLE_MS);
      for (;;) {
        after = await detectCaptchas(world).catch(() => after);
        if (!walled(after, undefined) || Date.now() >= settle) break;
        await sleep(POLL_MS);
      }
    }
    const blocked = walled(after, undefined);
    if (blocked) {
      const reason = 'the page still shows its captcha';
      options.events?.({ type: 'failed', kind, reason });
      return report({ found, outcome: 'failed', kind, method, blocked, reason });
    }
    options.events?.({ type: 'solved', kind, method, durationMs: Date.now() - started });
    return report({ found, outcome: 'solved', kind, method, blocked: false });
  } finally {
    await world.close();
  }
}
