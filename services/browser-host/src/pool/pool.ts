import { mkdirSync, mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { ApiError } from '@wap/errors';
import type { Logger } from '@wap/log';
import puppeteer, { type Browser } from 'puppeteer-core';
import { launchAs, type OsUser, type OsUsers } from '../sessions/os-users.js';

export interface PoolSettings {
  executablePath: string;
  size: number;
  pagesPerBrowser: number;
  recycleAfterPages: number;
  log: Logger;
  /** OS users the browsers run as, one each, when the host can give them (sessions/os-users.ts). */
  users?: OsUsers;
}

/** Flags for a headless Chromium on a closed network (see the machine notes). */
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

/**
 * Writes the preferences every browser starts with into `userDataDir`,
 * merged into what is there (a profile's restored preferences are kept):
 * WebRTC sends UDP only through a proxy, and a browser's proxy is its egress
 * guard, which relays no UDP, so no STUN or TURN packet leaves past the guard
 * (in every browser context: a client's own contexts read the same
 * preference; Chromium 156 has no command-line flag for it); and the
 * extensions in `extensionIds` are allowed in off-the-record contexts.
 */
export function writeChromiumPreferences(userDataDir: string, extensionIds: readonly string[] = []): void {
  const file = path.join(userDataDir, 'Default', 'Preferences');
  let preferences: { webrtc?: object; extensions?: { settings?: Record<string, unknown> } } = {};
  try {
    preferences = JSON.parse(readFileSync(file, 'utf8'));
  } catch {}
  preferences.webrtc = { ...preferences.webrtc, ip_handling_policy: 'disable_non_proxied_udp' };
  if (extensionIds.length > 0)
    preferences.extensions = {
      ...preferences.extensions,
      settings: {
        ...preferences.extensions?.settings,
        ...Object.fromEntries(extensionIds.map((id) => [id, { incognito: true }])),
      },
    };
  mkdirSync(path.dirname(file), { recursive: true });
  writeFileSync(file, JSON.stringify(preferences));
}

interface Slot {
  browser: Promise<Browser>;
  userDataDir: string;
  user: OsUser | undefined;
  active: number;
  served: number;
  retiring: boolean;
}

/**
 * Chromium processes shared by renders. A slot takes up to `pagesPerBrowser`
 * renders at once; it is replaced after `recycleAfterPages` (bounding leaks)
 * and at once when it crashes. Callers queue when every slot is full.
 */
export class BrowserPool {
  private readonly slots: Slot[] = [];
  private readonly waiting: (() => void)[] = [];
  private closed = false;

  constructor(private readonly settings: PoolSettings) {}

  private launch(): Slot {
    const userDataDir = mkdtempSync(path.join(tmpdir(), 'wap-chromium-'));
    writeChromiumPreferences(userDataDir);
    // A page it renders is anyone's: as a user of its own, a browser taken over reads none of the host's files.
    const user = this.settings.users?.take();
    user?.own(userDataDir);
    const launch = launchAs(user, this.settings.executablePath, userDataDir, CHROMIUM_ARGS);
    const slot: Slot = {
      userDataDir,
      user,
      active: 0,
      served: 0,
      retiring: false,
      browser: Promise.resolve(null as never),
    };
    slot.browser = puppeteer
      .launch({
        executablePath: launch.executablePath,
        args: launch.args,
        env: launch.env,
        userDataDir,
        headless: true,
        protocolTimeout: 60_000,
        handleSIGINT: false,
        handleSIGTERM: false,
        handleSIGHUP: false,
      })
      .then((browser) => {
        browser.on('disconnected', () => {
          if (!slot.retiring && !this.closed) this.settings.log.warn('chromium exited; replacing it');
          this.retire(slot);
        });
        return browser;
      });
    slot.browser.catch((err) => {
      this.settings.log.error({ err }, 'chromium failed to start');
      this.retire(slot);
    });
    this.slots.push(slot);
    return slot;
  }

  private retire(slot: Slot) {
    slot.retiring = true;
    const at = this.slots.indexOf(slot);
    if (at >= 0) this.slots.splice(at, 1);
    if (slot.active === 0) void this.dispose(slot);
    this.wake();
  }

  /**
   * Closes a slot's browser and removes its profile. Never rejects: after a
   * crash, Chromium's helper processes may still be writing into the profile,
   * so removal retries, and a leftover folder is logged rather than thrown.
   */
  private async dispose(slot: Slot) {
    await slot.browser.then((b) => b.close()).catch(() => undefined);
    await rm(slot.userDataDir, { recursive: true, force: true, maxRetries: 5, retryDelay: 100 }).catch((err) =>
      this.settings.log.warn({ err, dir: slot.userDataDir }, 'could not remove a chromium profile'),
    );
    slot.user?.release();
  }

  private wake() {
    this.waiting.shift()?.();
  }

  private pick(): Slot | undefined {
    const open = this.slots.filter((s) => !s.retiring && s.active < this.settings.pagesPerBrowser);
    if (open.length > 0) return open.reduce((a, b) => (b.active < a.active ? b : a));
    return this.slots.length < this.settings.size ? this.launch() : undefined;
  }

  /** Runs `work` with a browser from the pool, waiting for room if needed. */
  async with<T>(work: (browser: Browser) => Promise<T>, signal?: AbortSignal): Promise<T> {
    let slot = this.pick();
    while (!slot) {
      if (this.closed) throw new ApiError('no_capacity');
      await new Promise<void>((resolve, reject) => {
        this.waiting.push(resolve);
        signal?.addEventListener('abort', () => reject(new ApiError('deadline_exceeded')), { once: true });
      });
      slot = this.pick();
    }
    slot.active++;
    slot.served++;
    try {
      return await work(await slot.browser);
    } finally {
      slot.active--;
      if (slot.served >= this.settings.recycleAfterPages && !slot.retiring) this.retire(slot);
      else if (slot.retiring && slot.active === 0) void this.dispose(slot);
      this.wake();
    }
  }

  /** Whether a browser can be started or is running. */
  async healthy(): Promise<boolean> {
    if (this.closed) return false;
    const slot = this.slots[0];
    if (!slot) return true; // none started yet: started on first use
    return slot.browser.then((b) => b.connected).catch(() => false);
  }

  async close(): Promise<void> {
    this.closed = true;
    for (const wake of this.waiting.splice(0)) wake();
    await Promise.all(this.slots.splice(0).map((s) => this.dispose(s)));
  }
}
