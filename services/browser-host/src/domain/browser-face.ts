// The one face every browser of the host wears (docs/connect.md, "Stealth"):
// session browsers (/connect, agent runs) as their session asks, the render
// pool's (scrapes, crawls, search renders, monitors) as a desktop's. Set below
// the page wherever Chromium allows it: launch flags and environment for what
// a page reads of the window, the screen, the languages and the time zone, and
// the user agent with its full client hints metadata set over CDP on every
// target before its first script runs (sessions/face-keeper.ts). Pure.
import { browserIdentity } from '@wap/fetch';
import type { PlaceFace } from './exit-place.js';
import type { SessionSettings } from './session-options.js';

/**
 * The height of the browser UI headless Chromium emulates around the page
 * (outerHeight - innerHeight): a window this much taller than the viewport
 * gives pages exactly the viewport asked for. Chromium 156, 2026-11-24; the
 * browser-host test of the face fails if it changes.
 */
export const WINDOW_UI_HEIGHT = 87;
/** The smallest screen reported: a common desktop's, or the window's when larger. */
const SCREEN = { width: 1920, height: 1080 };
/** The height of the desktop's panel above the work area (screen.availHeight = height - this). */
const PANEL_HEIGHT = 32;
/** The render pool's window: a laptop's viewport (the most common desktop one after 1920 x 1080's). */
export const DESKTOP_VIEWPORT = { width: 1366, height: 900 };
/** navigator.platform of the mobile profile: what an Android phone's Chrome says. */
export const MOBILE_PLATFORM = 'Linux armv81';

/** Flags for a headless Chromium on a closed network (see the machine notes), every browser's. */
export const CHROMIUM_ARGS = [
  '--headless=new',
  '--no-sandbox', // root in a container; the browser is isolated by its egress proxy and its own process
  '--disable-gpu',
  '--disable-dev-shm-usage',
  '--disable-background-networking',
  '--disable-component-update',
  '--disable-sync',
  '--disable-quic',
  '--no-first-run',
  '--no-default-browser-check',
  '--mute-audio',
  '--hide-scrollbars',
  '--disable-features=Translate,MediaRouter,OptimizationHints',
];

/** Emulation.setUserAgentOverride's parameters: the user agent and the client hints behind navigator.userAgentData. */
export interface UserAgentOverride {
  userAgent: string;
  platform?: string;
  userAgentMetadata: ReturnType<typeof browserIdentity>['metadata'];
}

export interface BrowserFace {
  /** Every flag of the launch but puppeteer's defaults and what the launcher adds (its proxy, the recorder). */
  args: string[];
  env: Record<string, string>;
  /** Puppeteer's default flags left out. */
  ignoreDefaultArgs: string[];
  /** Set on every target over CDP (sessions/face-keeper.ts); none with stealth off (headless Chromium as it comes). */
  userAgent: UserAgentOverride | undefined;
  /** Browsers launched with the same key look the same: a warm one serves any session of that key. */
  key: string;
}

/**
 * Chrome's user agent and client hints for Chromium `version` ("156.0.8078.108",
 * the browser's own: a claimed version the engine does not have is the
 * easiest lie to catch), as libs/fetch's identity spells them for both engines.
 */
export function userAgentOverride(version: string | undefined, mobile = false): UserAgentOverride {
  const { userAgent, metadata } = browserIdentity(mobile, version);
  return { userAgent, ...(mobile && { platform: MOBILE_PLATFORM }), userAgentMetadata: metadata };
}

/** Chrome's own user agent for `version`, not headless Chromium's "HeadlessChrome/...". */
export function chromeUserAgent(version: string): string {
  return userAgentOverride(version).userAgent;
}

/** The Accept-Language a browser set to `locale` sends: the locale, then its language alone. */
export function acceptLanguages(locale: string): string {
  const language = locale.split('-')[0] as string;
  return language === locale ? locale : `${locale},${language}`;
}

/** `chromiumVersion`: the installed Chromium's ("156.0.8078.108"), read at start. */
export function browserFace(
  settings: Pick<SessionSettings, 'viewport' | 'locale' | 'timezone' | 'stealth'>,
  chromiumVersion: string,
): BrowserFace {
  const { width, height } = settings.viewport;
  const screen = { width: Math.max(width, SCREEN.width), height: Math.max(height + WINDOW_UI_HEIGHT, SCREEN.height) };
  const args = [
    ...CHROMIUM_ARGS,
    // A window around the viewport, in a screen around the window, as a desktop's.
    `--window-size=${width},${height + WINDOW_UI_HEIGHT}`,
    // A desktop's screen keeps a strip for its panel (GNOME's top bar): its work area is smaller.
    `--screen-info={${screen.width}x${screen.height} workAreaTop=${PANEL_HEIGHT}}`,
    `--lang=${settings.locale}`,
    `--accept-lang=${acceptLanguages(settings.locale)}`,
  ];
  // Chromium takes its UI locale (and so Intl's default) from LANGUAGE on Linux; --lang alone is ignored there.
  const env: Record<string, string> = { LANGUAGE: settings.locale.replace('-', '_') };
  if (settings.timezone) env.TZ = settings.timezone;
  const ignoreDefaultArgs: string[] = [];
  let userAgent: UserAgentOverride | undefined;
  if (settings.stealth) {
    userAgent = userAgentOverride(chromiumVersion);
    // No navigator.webdriver. The flag's user agent is what a target starts with before the face
    // keeper reaches it (a service worker's own navigator.userAgent is set from it alone); the keeper
    // then fills the client hints the flag leaves empty.
    ignoreDefaultArgs.push('--enable-automation');
    args.push('--disable-blink-features=AutomationControlled', `--user-agent=${userAgent.userAgent}`);
    // A microphone, a camera and speakers, as a laptop has: a page sees their kinds and no label until it is
    // granted access, which a page cannot grant itself (headless Chromium denies it); a client that grants it
    // gets Chromium's fake devices, named so. Without them enumerateDevices() is empty, as no desktop's is.
    args.push('--use-fake-device-for-media-stream');
  }
  const key = JSON.stringify([settings.viewport, settings.locale, settings.timezone, settings.stealth]);
  return { args, env, ignoreDefaultArgs, userAgent, key };
}

/**
 * `settings` in the time zone and locale of where the browser's traffic
 * comes out (domain/exit-place.ts), for what the session did not ask itself:
 * a site sees one place in the clock, the language and the IP address.
 */
export function atPlace<T extends Pick<SessionSettings, 'locale' | 'timezone'>>(
  settings: T,
  asked: { locale?: string; timezone?: string } | undefined,
  place: PlaceFace,
): T {
  return {
    ...settings,
    ...(!asked?.locale && place.locale && { locale: place.locale }),
    ...(!asked?.timezone && place.timezone && { timezone: place.timezone }),
  };
}

/**
 * What the render pool's browsers wear (scrapes, crawls, search renders,
 * monitors): a desktop Chrome's face, in the time zone and locale of where the
 * host's traffic comes out when the operator says (EGRESS_PLACE).
 */
export function renderFace(chromiumVersion: string, place: PlaceFace = {}): BrowserFace {
  const settings = atPlace({ locale: 'en-US', timezone: '' }, undefined, place);
  return browserFace({ viewport: DESKTOP_VIEWPORT, ...settings, stealth: true }, chromiumVersion);
}
