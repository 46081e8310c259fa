// The recorder of one pool browser (docs/sessions.md, "Scrapes"): the same
// extension and network log as a session browser's, shared by the renders the
// browser runs at once, each of them a browser context of its own. The
// extension's worker posts through a proxy of the browser's own (its default
// context's: a render's context names the shared egress instead), and every
// batch and every request is routed to the recording of the context its page
// belongs to, by the page's DevTools target id. No screencast: a render is
// over in a second or two, and its frames would cost more than the page.
import type { Logger } from '@wap/log';
import type { AllowList } from '@wap/netguard';
import type { Browser, WebWorker } from 'puppeteer-core';
import { EgressProxy } from '../egress/proxy.js';
import { RECORDING_HOST, RECORDING_TOKEN_HEADER, type RecorderExtension, writeRecorderExtension } from './extension.js';
import { NetworkCapture } from './network.js';
import { parseBatch, type SessionRecording } from './recording.js';

/** A render's flush waits this long at most: what is not in by then is lost, not its answer. */
export const RENDER_FLUSH_MS = 3_000;

export class PoolRecorder {
  /** Each render's recording, by its browser context. */
  private readonly contexts = new Map<string, SessionRecording>();
  /** The browser context of each page target the host attached to. */
  private readonly targets = new Map<string, string>();
  private network: NetworkCapture | undefined;
  private browser: Browser | undefined;
  private worker: Promise<WebWorker | undefined> | undefined;

  private constructor(
    private readonly extension: RecorderExtension,
    private readonly ingest: EgressProxy,
    private readonly log: Logger,
  ) {}

  /**
   * Writes the extension into the browser's user-data dir and starts the
   * proxy its worker posts through (`peerUid`: the browser's OS user, the only
   * one whose connections it takes).
   */
  static async prepare(
    userDataDir: string,
    allow: AllowList,
    log: Logger,
    peerUid: number | undefined,
  ): Promise<PoolRecorder> {
    const extension = writeRecorderExtension(userDataDir, { startWhenAsked: true });
    const recorder: { current?: PoolRecorder } = {};
    const ingest = new EgressProxy(allow, {
      owner: true,
      ...(peerUid !== undefined && { peerUid }),
      recording: {
        host: RECORDING_HOST,
        header: RECORDING_TOKEN_HEADER,
        token: extension.token,
        accept: (body: Buffer) => recorder.current?.accept(body),
      },
    });
    await ingest.start();
    recorder.current = new PoolRecorder(extension, ingest, log);
    return recorder.current;
  }

  /** Chromium's id for the extension, allowed in off-the-record contexts (writeChromiumPreferences). */
  get extensionId(): string {
    return this.extension.id;
  }

  /** The launch flags: the extension, and the default context's proxy (the worker's way out). */
  get args(): string[] {
    return [...this.extension.args, `--proxy-server=${this.ingest.url}`, '--proxy-bypass-list=<-loopback>'];
  }

  /** Attaches the network log to every page of `browser` (`addressOf`: what the renders' egress reached). */
  async attach(browser: Browser, addressOf: (host: string) => string | undefined): Promise<void> {
    this.browser = browser;
    this.network = new NetworkCapture(browser, (row, targetId) => this.recordingOf(targetId)?.acceptNetwork(row), {
      bodies: false,
      addressOf,
      tabOf: (targetId, browserContextId) => {
        this.targets.set(targetId, browserContextId);
        return this.recordingOf(targetId)?.tabOf(targetId) ?? 0;
      },
    });
    await this.network.start();
  }

  private recordingOf(targetId: string): SessionRecording | undefined {
    const context = this.targets.get(targetId);
    return context === undefined ? undefined : this.contexts.get(context);
  }

  /** Records the pages of a browser context into `recording` until the returned call (before any page opens in it). */
  track(browserContextId: string, recording: SessionRecording): () => void {
    this.contexts.set(browserContextId, recording);
    return () => {
      this.contexts.delete(browserContextId);
      for (const [target, context] of this.targets) if (context === browserContextId) this.targets.delete(target);
    };
  }

  /** A batch the worker posted: to its page's render; one of a page no render tracks is dropped. */
  private accept(body: Buffer): void {
    const batch = parseBatch(body);
    if (batch?.target) this.recordingOf(batch.target)?.acceptBatch(batch, body.length);
  }

  /**
   * Has the pages of a context hand over what they hold, and waits until it
   * is posted (RENDER_FLUSH_MS at most): called before the context closes.
   */
  async flush(browserContextId: string): Promise<void> {
    const pages = [...this.targets].filter(([, context]) => context === browserContextId).map(([target]) => target);
    if (pages.length === 0) return;
    let timer: NodeJS.Timeout | undefined;
    const late = new Promise<boolean>((resolve) => {
      timer = setTimeout(() => resolve(false), RENDER_FLUSH_MS);
    });
    const flushed = this.evaluate(`self.wapFlush && self.wapFlush(${JSON.stringify(pages)})`).then(
      () => true,
      (err: unknown) => {
        this.log.warn({ err }, "a render's last recording events were not flushed");
        return true;
      },
    );
    if (!(await Promise.race([flushed, late])))
      this.log.warn({ waitedMs: RENDER_FLUSH_MS }, "a render's last recording events were not in on time");
    clearTimeout(timer);
  }

  /** Runs `script` in the extension's worker: the one found (or waited for) once, again if it went. */
  private async evaluate(script: string): Promise<void> {
    for (let attempt = 0; attempt < 2; attempt++) {
      this.worker ??= this.findWorker();
      const worker = await this.worker;
      if (!worker) {
        this.worker = undefined;
        return;
      }
      try {
        await worker.evaluate(script);
        return;
      } catch (err) {
        this.worker = undefined;
        if (attempt === 1) throw err;
      }
    }
  }

  private async findWorker(): Promise<WebWorker | undefined> {
    const browser = this.browser;
    if (!browser?.connected) return undefined;
    const isWorker = (t: { type(): string; url(): string }) =>
      t.type() === 'service_worker' && t.url().includes(this.extension.id);
    const target =
      browser.targets().find(isWorker) ??
      (await browser.waitForTarget(isWorker, { timeout: RENDER_FLUSH_MS }).catch(() => undefined));
    return (await target?.worker().catch(() => null)) ?? undefined;
  }

  async close(): Promise<void> {
    await this.network?.stop();
    await this.ingest.stop().catch(() => undefined);
  }
}
