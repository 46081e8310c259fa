// A session's options: defaults and caps (docs/connect.md). Pure.
import type { browser } from '@wap/proto';

export interface SessionSettings {
  idleTimeoutSeconds: number;
  maxLifetimeSeconds: number;
  viewport: { width: number; height: number };
  locale: string;
  timezone: string;
  /** Chrome's face rather than headless Chromium's (docs/connect.md, "Stealth"); on unless asked off. */
  stealth: boolean;
  /** The network log keeps small text bodies (docs/sessions.md, "Network"); off unless asked. */
  networkBodies: boolean;
  /** A profile of the workspace to attach (docs/profiles.md); undefined: a fresh identity. */
  profileId: string | undefined;
}

/**
 * How long a session waits, once its client has gone, for a client to
 * reconnect (landing on the same pages). 0 by default: the session ends when
 * its client disconnects, as Playwright's and Puppeteer's browser.close() do.
 * Before its first client, a session waits for its ticket's 30 s at least.
 */
export const IDLE_TIMEOUT = { default: 0, min: 0, max: 3_600 };
/** A session ends after this long in all. */
export const MAX_LIFETIME = { default: 3_600, min: 30, max: 6 * 3_600 };
export const VIEWPORT = { width: 1280, height: 800, min: 100, max: 7_680 };

/** Fills the defaults; the gateway has already refused values out of range. */
export function sessionSettings(options: browser.SessionOptions | undefined): SessionSettings {
  const pick = (value: number | undefined, fallback: number) => (value && value > 0 ? value : fallback);
  return {
    idleTimeoutSeconds: Math.max(0, options?.idleTimeoutSeconds ?? IDLE_TIMEOUT.default),
    maxLifetimeSeconds: pick(options?.maxLifetimeSeconds, MAX_LIFETIME.default),
    viewport: {
      width: pick(options?.viewportWidth, VIEWPORT.width),
      height: pick(options?.viewportHeight, VIEWPORT.height),
    },
    locale: options?.locale || 'en-US',
    timezone: options?.timezone || '',
    stealth: options?.stealth ?? true,
    networkBodies: options?.networkBodies ?? false,
    profileId: options?.profileId || undefined,
  };
}
