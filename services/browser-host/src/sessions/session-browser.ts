// One Chromium for one CDP session: its own user-data dir (nothing of an
// earlier session), its own egress proxy (the guard, and the session's byte
// count) and, where the host can build one, a network of its own whose one
// way out is that proxy (network-wall.ts); downloads denied, CDP on its pipe
// alone (chromium.ts), the face its session asked for
// (domain/browser-face.ts); and, when sessions are recorded, the recorder
// extension (docs/sessions.md), whose posts its egress proxy hands to the
// session's recording.
import { execFileSync } from 'node:child_process';
import { mkdtempSync } from 'node:fs';
import { rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import type { AllowList } from '@wap/netguard';
import puppeteer, { type Browser } from 'puppeteer-core';
import type { BrowserFace } from '../domain/browser-face.js';
import { EgressProxy } from '../egress/proxy.js';
import { writeChromiumPreferences } from '../pool/pool.js';
import type { Attached } from '../profiles/profiles.js';
import { RECORDING_HOST, RECORDING_TOKEN_HEADER, writeRecorderExtension } from '../recording/extension.js';
import { NetworkCapture } from '../recording/network.js';
import type { SessionRecording } from '../recording/recording.js';
import { Screencasts } from '../recording/screencasts.js';
import type { CdpChannel } from './cdp-hub.js';
import { type PipedChromium, spawnChromium } from './chromium.js';
import { keepFace } from './face-keeper.js';
import { type NetworkWalls, WALLED_PROXY } from './network-wall.js';
import { SESSION_DIR_PREFIX } from './orphans.js';
import { launchAs, type OsUser, type OsUsers } from './os-users.js';

/** How long a closing Chromium is given to exit before it is killed. */
const EXIT_GRACE_MS = 10_000;

export interface SessionBrowser {
  browser: Browser;
  egress: EgressProxy;
  /** A connection of its own to the browser, as a client's (cdp-hub.ts): what the host's CDP endpoint joins a client to. */
  openChannel(): Promise<CdpChannel>;
  /** The process the host started for it (Chromium, or the wall it runs in). */
  pid: number;
  /** Whether its network is walled (network-wall.ts). */
  walled: boolean;
  /** The recorder extension's targets (its worker): never shown to a client (cdp-filter.ts). */
  hiddenTargets(): ReadonlySet<string>;
  version: { browser: string; protocol: string; userAgent: string };
  /** Where the recorder extension's chunks go from now on (before this, they are dropped). */
  recordTo(recording: SessionRecording): void;
  /** Has the extension send what it holds (before the browser closes); nothing when it is not recording. */
  flushRecording(): Promise<void>;
  /**
   * Folds every page's requests into network log rows for `recording` from now on (recording/network.ts):
   * the host's own CDP sessions on every page. With them, when the interval is above 0, the
   * screencast of a page that shows what rrweb cannot see or while someone watches (recording/screencasts.ts).
   */
  captureNetwork(
    recording: SessionRecording,
    options: { bodies: boolean; screencastIntervalMs: number; screencastAlways?: boolean },
  ): Promise<void>;
  /**
   * Closes Chromium and removes its user-data dir. With a profile attached,
   * its state is saved first when `keepState` and Chromium exited cleanly;
   * otherwise its last good state stays. Either way its lease is let go.
   */
  close(options?: { keepState?: boolean }): Promise<void>;
}

const sleep = (ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms).unref());

/** The version of the Chromium at `executablePath` (`chromium --version`: "Chromium 156.0.8078.79 built on ..."). */
export function chromiumVersion(executablePath: string): string {
  const printed = execFileSync(executablePath, ['--version'], { encoding: 'utf8', timeout: 10_000 });
  const version = /\d+\.\d+\.\d+\.\d+/.exec(printed)?.[0];
  if (!version) throw new Error(`no version in "${printed.trim()}"`);
  return version;
}

/** The ids of a browser's extension targets, as its own connection knows them. */
function hiddenTargets(browser: Browser): Set<string> {
  const ids = new Set<string>();
  for (const target of browser.targets())
    if (target.url().startsWith('chrome-extension://'))
      // Puppeteer keeps the DevTools id private; it is the one thing of a target the filter can match on.
      ids.add((target as unknown as { _targetId: string })._targetId);
  return ids;
}

export async function launchSessionBrowser(
  executablePath: string,
  allow: AllowList,
  face: BrowserFace,
  options: { record?: boolean; profile?: Attached; users?: OsUsers; walls?: NetworkWalls } = {},
): Promise<SessionBrowser> {
  const userDataDir = mkdtempSync(SESSION_DIR_PREFIX);
  const { profile, walls } = options;
  // The walled browser's way to its proxy: a socket in a dir of its user's, beside its user-data dir.
  const socketDir = walls ? mkdtempSync(path.join(tmpdir(), 'wap-egress-')) : undefined;
  const socket = socketDir && path.join(socketDir, 'proxy.sock');
  let user: OsUser | undefined;
  let extension: ReturnType<typeof writeRecorderExtension> | undefined;
  try {
    await profile?.restore(userDataDir);
    extension = options.record ? writeRecorderExtension(userDataDir) : undefined;
    writeChromiumPreferences(userDataDir, extension ? [extension.id] : []);
    // Its own OS user where the host can give it one: its dir is that user's alone (os-users.ts).
    user = options.users?.take();
    user?.own(userDataDir);
    if (socketDir) user?.own(socketDir);
  } catch (err) {
    user?.release();
    await profile?.release(undefined).catch(() => undefined);
    await rm(userDataDir, { recursive: true, force: true });
    if (socketDir) await rm(socketDir, { recursive: true, force: true });
    throw err;
  }
  let recording: SessionRecording | undefined;
  const egress = new EgressProxy(allow, {
    owner: true,
    // Its own browser's user alone: another session's browser naming this proxy is refused by the kernel's account.
    ...(user && { peerUid: user.uid }),
    ...(socket && { socket }),
    ...(profile?.exit && { upstream: profile.exit.url }),
    ...(extension && {
      recording: {
        host: RECORDING_HOST,
        header: RECORDING_TOKEN_HEADER,
        token: extension.token,
        accept: (body: Buffer) => recording?.accept(body),
      },
    }),
  });
  await egress.start();
  let chromium: PipedChromium | undefined;
  let browser: Browser | undefined;
  let network: NetworkCapture | undefined;
  let released = false;
  const close = async ({ keepState = false }: { keepState?: boolean } = {}) => {
    await network?.stop();
    // Asked to close, Chromium exits without answering: its exit is the answer waited for.
    void browser?.close().catch(() => undefined);
    const clean =
      !!browser &&
      !!chromium &&
      (await Promise.race([chromium.exited.then(() => true), sleep(EXIT_GRACE_MS).then(() => false)]));
    if (!clean) chromium?.kill();
    await chromium?.exited;
    await egress.stop().catch(() => undefined);
    if (socketDir) await rm(socketDir, { recursive: true, force: true });
    try {
      if (profile && !released) {
        released = true;
        await profile.release(keepState && clean ? userDataDir : undefined);
      }
    } finally {
      await rm(userDataDir, { recursive: true, force: true });
      user?.release();
    }
  };
  try {
    chromium = await spawnChromium({
      userDataDir,
      args: [
        ...face.args,
        // Every request leaves through the egress proxy, loopback included (Chromium bypasses it for loopback by default).
        `--proxy-server=${socket ? WALLED_PROXY : egress.url}`,
        '--proxy-bypass-list=<-loopback>',
        // Cookies encrypted with Chromium's fixed key, not a keyring's: a profile's state opens on any host.
        '--password-store=basic',
        ...(extension?.args ?? []),
      ],
      ignoreDefaultArgs: face.ignoreDefaultArgs,
      command: (argv) => {
        const launch = launchAs(user, executablePath, userDataDir, argv, face.env);
        return walls && socket ? walls.wrap(launch, socket, user?.uid) : launch;
      },
    });
    const hub = chromium.hub;
    const piped = chromium;
    // A Chromium that exits at once (a bad flag, a missing library) closes its pipe: its last words say why.
    const transport = await hub.open().catch(async (err: Error) => {
      const said = (await piped.stderr()).trim().split('\n').at(-1) ?? '';
      throw new Error(`Chromium did not start (${err.message}): ${said}`);
    });
    // The face on every target before the host's puppeteer or any client sees one (face-keeper.ts).
    if (face.userAgent) await keepFace(await hub.open(), face.userAgent);
    browser = await puppeteer.connect({
      transport,
      // The window is the viewport (face.args): no per-page emulation the client did not ask for.
      defaultViewport: null,
      protocolTimeout: 30_000,
    });
    // The API has no downloads (docs/agent.md, Files): a page that starts one gets nothing on disk.
    const cdp = await browser.target().createCDPSession();
    await cdp.send('Browser.setDownloadBehavior', { behavior: 'deny' });
    const info = await cdp.send('Browser.getVersion');
    return {
      browser,
      egress,
      openChannel: () => hub.open(),
      pid: chromium.pid,
      walled: socket !== undefined,
      hiddenTargets: () => hiddenTargets(browser as Browser),
      version: { browser: info.product, protocol: info.protocolVersion, userAgent: info.userAgent },
      recordTo: (r) => {
        recording = r;
      },
      flushRecording: async () => {
        const live = browser;
        if (!extension || !live?.connected) return;
        // The worker has every frame hand over what it holds, posts it all, and is waited for.
        // A browser launched a moment ago may not have started the extension's worker yet: wait for it, briefly.
        const isWorker = (t: { type(): string; url(): string }) =>
          t.type() === 'service_worker' && t.url().includes(extension.id);
        const target =
          live.targets().find(isWorker) ??
          (await live.waitForTarget(isWorker, { timeout: 5_000 }).catch(() => undefined));
        const worker = await target?.worker().catch(() => null);
        await worker?.evaluate('self.wapFlush && self.wapFlush()').catch(() => undefined);
      },
      captureNetwork: async (r, { bodies, screencastIntervalMs, screencastAlways = false }) => {
        if (!browser) return;
        const screencasts =
          screencastIntervalMs > 0
            ? new Screencasts(screencastIntervalMs, (frame) => r.acceptFrame(frame), { always: screencastAlways })
            : undefined;
        if (screencasts) r.screenWith(screencasts);
        network = new NetworkCapture(browser, (row) => r.acceptNetwork(row), {
          bodies,
          addressOf: (host) => egress.addressOf(host),
          tabOf: (targetId) => r.tabOf(targetId),
          ...(screencasts && { screencasts }),
        });
        await network.start();
      },
      close,
    };
  } catch (err) {
    await close();
    throw err;
  }
}
