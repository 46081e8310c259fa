// Human control of a live browser session (docs/sessions.md, "Human control"):
// what a person's input may be, checked by the gateway before it forwards a
// batch and again by the browser host before it dispatches it (nothing on the
// bus is trusted blindly), what the host answers, and the one same-site rule
// both apply. The subject is `sessionStreamNames(ns).liveInput(id)` (@wap/events).
import { z } from 'zod';

/** Actions in one batch, at most. */
export const MAX_CONTROL_ACTIONS = 64;
/** Characters one insertText (a paste) carries, at most. */
export const MAX_INSERT_CHARS = 4_096;
export const MAX_URL_CHARS = 2_048;

/** CSS pixels of the frame the person sees (its `width` by `height`); far past any viewport is refused. */
const coordinate = z.number().min(-1_000).max(20_000);
/** A wheel's scroll, in CSS pixels. */
const delta = z.number().min(-20_000).max(20_000);
/** Held modifier keys, as CDP's bits: Alt 1, Control 2, Meta 4, Shift 8. */
const modifiers = z.int().min(0).max(15).optional();
const button = z.enum(['left', 'middle', 'right']);
const clickCount = z.int().min(1).max(3);
const noControl = /^[^\p{Cc}]+$/u;
/** A key as KeyboardEvent names it (`Enter`, `a`, `ArrowLeft`) and its physical key (`KeyA`, `Digit1`, `Enter`). */
const key = z.string().min(1).max(32).regex(noControl, 'holds a control character');
const code = z
  .string()
  .max(32)
  .regex(/^[A-Za-z0-9]*$/, 'is not a KeyboardEvent code');
/** What a key types: one character (a surrogate pair at most), never a control character. */
const keyText = z.string().min(1).max(2).regex(noControl, 'holds a control character');

/** Whether `value` parses as an http: or https: URL. */
export function isHttpUrl(value: string): boolean {
  try {
    const { protocol } = new URL(value);
    return protocol === 'http:' || protocol === 'https:';
  } catch {
    return false;
  }
}

const httpUrl = z.string().max(MAX_URL_CHARS).refine(isHttpUrl, 'must be an http or https URL');

export const controlAction = z.discriminatedUnion('type', [
  /** `buttons`: those held (a drag), as MouseEvent.buttons: left 1, right 2, middle 4. */
  z.strictObject({
    type: z.literal('mouseMove'),
    x: coordinate,
    y: coordinate,
    buttons: z.int().min(0).max(7).optional(),
    modifiers,
  }),
  z.strictObject({ type: z.literal('mouseDown'), x: coordinate, y: coordinate, button, clickCount, modifiers }),
  z.strictObject({ type: z.literal('mouseUp'), x: coordinate, y: coordinate, button, clickCount, modifiers }),
  z.strictObject({ type: z.literal('wheel'), x: coordinate, y: coordinate, deltaX: delta, deltaY: delta, modifiers }),
  z.strictObject({ type: z.literal('keyDown'), key, code, text: keyText.optional(), modifiers }),
  z.strictObject({ type: z.literal('keyUp'), key, code, modifiers }),
  z.strictObject({
    type: z.literal('insertText'),
    text: z
      .string()
      .min(1)
      .max(MAX_INSERT_CHARS)
      .regex(/^[^\0]*$/, 'holds a NUL'),
  }),
  /** Opens an http(s) URL of the link's site in the tab. */
  z.strictObject({ type: z.literal('navigate'), url: httpUrl }),
  /** The tab's history back, when the entry before is of the link's site. */
  z.strictObject({ type: z.literal('back') }),
]);
export type ControlAction = z.infer<typeof controlAction>;

const batchFields = {
  /** The tab the actions go to, numbered as the frames are; the host brings it to the front. No actions: only that. */
  tab: z.int().min(1).max(10_000),
  actions: z.array(controlAction).max(MAX_CONTROL_ACTIONS),
};

/** What the control page posts: `POST /replay/{id}/control/input`. */
export const controlBatch = z.strictObject(batchFields);
export type ControlBatch = z.infer<typeof controlBatch>;

/** A site as a control link binds it: a lower-case host name (the registrable domain the run was on) or an IPv4 address. */
export const controlSite = z
  .string()
  .max(253)
  .regex(/^(?:[a-z0-9](?:[a-z0-9-]{0,61}[a-z0-9])?\.)+[a-z0-9](?:[a-z0-9-]{0,61}[a-z0-9])?$/, 'is not a host name');

/**
 * What the session's host is asked on the bus: a batch, with the site its
 * link binds; or `release`, from whoever hands the run back, which ends the
 * host's guard at once instead of when input stops.
 */
export const controlRequest = z.union([
  z.strictObject({ site: controlSite, ...batchFields }),
  z.strictObject({ release: z.literal(true) }),
]);
export type ControlRequest = z.infer<typeof controlRequest>;

/** Why the host did not do a batch (or all of it: it stops at the first refusal). */
export const CONTROL_REFUSALS = ['not_live', 'cross_site', 'no_tab', 'invalid', 'unresponsive'] as const;

/** The host's answer: done, with the tab's URL then and the hosts its guard kept the tab from; or refused. */
export const controlReply = z.discriminatedUnion('ok', [
  z.strictObject({
    ok: z.literal(true),
    url: z.string().max(8_192).optional(),
    blocked: z.array(z.string().max(253)).max(16).optional(),
  }),
  z.strictObject({ ok: z.literal(false), refused: z.enum(CONTROL_REFUSALS), host: z.string().max(253).optional() }),
]);
export type ControlReply = z.infer<typeof controlReply>;

const IPV4 = /^\d{1,3}(?:\.\d{1,3}){3}$/;

/**
 * Whether `url` is an http(s) URL on `site` or under it: a registrable
 * domain covers its subdomains (`shop.example.com` is on `example.com`);
 * an address covers only itself.
 */
export function sameSite(url: string, site: string): boolean {
  let parsed: URL;
  try {
    parsed = new URL(url);
  } catch {
    return false;
  }
  if (parsed.protocol !== 'http:' && parsed.protocol !== 'https:') return false;
  const host = parsed.hostname.replace(/\.$/, '');
  return host === site || (!IPV4.test(site) && host.endsWith(`.${site}`));
}

/** The host a refusal names: the URL's host name, or the URL cut short when it has none. */
export function refusedHost(url: string): string {
  try {
    return new URL(url).hostname.slice(0, 253) || url.slice(0, 253);
  } catch {
    return url.slice(0, 253);
  }
}
