import { mkdirSync, mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { ApiError } from '@wap/errors';
import type { Logger } from '@wap/log';
import type { AllowList } from '@wap/netguard';
import puppeteer, { type Browser } from 'puppeteer-core';
import type { BrowserFace } from '../domain/browser-face.js';
import { PoolRecorder } from '../recording/pool-recorder.js';
import { type PipedChromium, spawnChromium } from '../sessions/chromium.js';
import { type FaceKeeper, keepFace } from '../sessions/face-keeper.js';
import { launchAs, type OsUser, type OsUsers } from '../sessions/os-users.js';
import { quietRuntime } from '../sessions/quiet-runtime.js';

/** How long a closing Chromium is given to exit before it is killed. */
const EXIT_GRACE_MS = 5_000;

export interface PoolSettings {
  executablePath: string;
  /** What every browser wears (domain/browser-face.ts): a desktop's window, Chrome's user agent. */
  face: BrowserFace;
  size: number;
  pagesPerBrowser: number;
  recycleAfterPages: number;
  log: Logger;
  /** OS users the browsers run as, one each, when the host can give them (sessions/os-users.ts). */
  users?: OsUsers;
  /**
   * Renders are recorded (docs/sessions.md, "Scrapes"): every browser loads the
   * recorder extension and keeps a network log (recording/pool-recorder.ts).
   * `addressOf`: the address the renders' egress reached for a host.
   */
  recording?: { allow: AllowList; addressOf(host: string): string | undefined };
}

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

/** What `with` hands its work besides the browser. */
export interface PoolSlot {
  /** The browser's recorder, when renders are recorded. */
  recorder: PoolRecorder | undefined;
  /** What sets the user agent of its targets (a mobile render's context wears another). */
  faces: FaceKeeper | undefined;
  /**
   * Keeps the browser's place taken until `done` settles, after the work
   * answered (a render's context closing once its page is answered). Called
   * while the work runs.
   */
  linger(done: Promise<unknown>): void;
}

interface Slot {
  browser: Promise<Browser>;
  /** Its recorder, once prepared (before the browser launched), when renders are recorded. */
  recorder: PoolRecorder | undefined;
  chromium: PipedChromium | undefined;
  faces: FaceKeeper | undefined;
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
    // A page it renders is anyone's: as a user of its own, a browser taken over reads none of the host's files.
    const user = this.settings.users?.take();
    const slot: Slot = {
      userDataDir,
      user,
      recorder: undefined,
      chromium: undefined,
      faces: undefined,
      active: 0,
      served: 0,
      retiring: false,
      browser: Promise.resolve(null as never),
    };
    slot.browser = this.start(slot);
    slot.browser.catch((err) => {
      this.settings.log.error({ err }, 'chromium failed to start');
      this.retire(slot);
    });
    this.slots.push(slot);
    return slot;
  }

  /**
   * Prepares the slot's dir (and recorder), launches its Chromium on its pipe
   * as a session's is (sessions/chromium.ts), puts the face on every target it
   * will make, and attaches the recorder's network log.
   */
  private async start(slot: Slot): Promise<Browser> {
    const { recording, log, face, executablePath } = this.settings;
    const { userDataDir, user } = slot;
    slot.recorder = recording ? await PoolRecorder.prepare(userDataDir, recording.allow, log, user?.uid) : undefined;
    writeChromiumPreferences(userDataDir, slot.recorder ? [slot.recorder.extensionId] : []);
    user?.own(userDataDir);
    // CDP on its pipe: a render browser listens on no port another browser could be told to reach.
    const chromium = await spawnChromium({
      userDataDir,
      args: [...face.args, ...(slot.recorder?.args ?? [])],
      ignoreDefaultArgs: face.ignoreDefaultArgs,
      command: (argv) => launchAs(user, executablePath, userDataDir, argv, face.env),
    });
    slot.chromium = chromium;
    const transport = await chromium.hub.open().catch(async (err: Error) => {
      const said = (await chromium.stderr()).trim().split('\n').at(-1) ?? '';
      throw new Error(`Chromium did not start (${err.message}): ${said}`);
    });
    if (face.userAgent) slot.faces = await keepFace(await chromium.hub.open(), face.userAgent);
    // The window is the viewport (face.args): a page is not emulated into another size. Runtime is never
    // enabled on a page, so a page cannot tell it is driven from what its console calls (quiet-runtime.ts).
    const browser = await puppeteer.connect({
      transport: quietRuntime(transport),
      defaultViewport: null,
      protocolTimeout: 60_000,
    });
    browser.on('disconnected', () => {
      if (!slot.retiring && !this.closed) log.warn('chromium exited; replacing it');
      this.retire(slot);
    });
    await slot.recorder?.attach(browser, recording?.addressOf ?? (() => undefined));
    return browser;
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
    // Asked to close, Chromium exits without answering: its exit is what is waited for.
    void slot.browser.then((b) => b.close()).catch(() => undefined);
    const { chromium } = slot;
    if (chromium) {
      const exited = await Promise.race([
        chromium.exited.then(() => true),
        new Promise<boolean>((resolve) => setTimeout(() => resolve(false), EXIT_GRACE_MS).unref()),
      ]);
      if (!exited) chromium.kill();
      await chromium.exited;
    }
    await slot.recorder?.close();
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

  /** Runs `work` with a browser from the pool, waiting for room if needed; its place is taken until what it lingers on settles. */
  async with<T>(work: (browser: Browser, slot: PoolSlot) => Promise<T>, signal?: AbortSignal): Promise<T> {
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
    const taken = slot;
    const lingering: Promise<unknown>[] = [];
    const release = () => {
      taken.active--;
      if (taken.served >= this.settings.recycleAfterPages && !taken.retiring) this.retire(taken);
      else if (taken.retiring && taken.active === 0) void this.dispose(taken);
      this.wake();
    };
    try {
      const browser = await slot.browser;
      return await work(browser, {
        recorder: slot.recorder,
        faces: slot.faces,
        linger: (done) => lingering.push(done),
      });
    } finally {
      if (lingering.length === 0) release();
      else void Promise.allSettled(lingering).then(release);
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
