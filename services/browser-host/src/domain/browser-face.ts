// What a session's settings make of its Chromium at launch: the face pages
// see (docs/connect.md, "Stealth"). Applied by flags and environment, so it
// holds in every frame, worker and browser context the client opens, not
// only in the pages the host knows of. Pure.
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

export interface BrowserFace {
  args: string[];
  env: Record<string, string>;
  /** Puppeteer's default flags left out. */
  ignoreDefaultArgs: string[];
  /** Browsers launched with the same key look the same: a warm one serves any session of that key. */
  key: string;
}

/** The platform token of Chrome's user agent on Linux. */
const PLATFORM: Record<string, string> = { x64: 'X11; Linux x86_64', arm64: 'X11; Linux aarch64' };

/**
 * Chrome's own user agent for `major` (the reduced form every Chrome sends
 * since 2023: minor, build and patch are zeros), not headless Chromium's
 * "HeadlessChrome/...".
 */
export function chromeUserAgent(major: number, arch: string = process.arch): string {
  const platform = PLATFORM[arch] ?? PLATFORM.x64;
  return `Mozilla/5.0 (${platform}) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/${major}.0.0.0 Safari/537.36`;
}

/** The Accept-Language a browser set to `locale` sends: the locale, then its language alone. */
export function acceptLanguages(locale: string): string {
  const language = locale.split('-')[0] as string;
  return language === locale ? locale : `${locale},${language}`;
}

export function browserFace(
  settings: Pick<SessionSettings, 'viewport' | 'locale' | 'timezone' | 'stealth'>,
  chromiumMajor: number,
): BrowserFace {
  const { width, height } = settings.viewport;
  const screen = { width: Math.max(width, SCREEN.width), height: Math.max(height + WINDOW_UI_HEIGHT, SCREEN.height) };
  const args = [
    `--window-size=${width},${height + WINDOW_UI_HEIGHT}`,
    `--screen-info={${screen.width}x${screen.height}}`,
    `--lang=${settings.locale}`,
    `--accept-lang=${acceptLanguages(settings.locale)}`,
  ];
  // Chromium takes its UI locale (and so Intl's default) from LANGUAGE on Linux; --lang alone is ignored there.
  const env: Record<string, string> = { LANGUAGE: settings.locale.replace('-', '_') };
  if (settings.timezone) env.TZ = settings.timezone;
  const ignoreDefaultArgs: string[] = [];
  if (settings.stealth) {
    // No navigator.webdriver, no "HeadlessChrome" in the user agent or its client hints.
    ignoreDefaultArgs.push('--enable-automation');
    args.push('--disable-blink-features=AutomationControlled', `--user-agent=${chromeUserAgent(chromiumMajor)}`);
  }
  const key = JSON.stringify([settings.viewport, settings.locale, settings.timezone, settings.stealth]);
  return { args, env, ignoreDefaultArgs, key };
}
