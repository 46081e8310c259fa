// A browser-engine render recorded as a session of kind `scrape` (docs/sessions.md,
// "Scrapes"): a row that goes live as the render starts and ends with it, and the
// recording of its browser context in a pool browser. It holds no slot and no
// credit, and meters no browser time: the crawl service holds the slot and
// bills the page; the session is the page's evidence, one a charge points to.
import { randomUUID } from 'node:crypto';
import type { Logger } from '@wap/log';
import type { PoolRecorder } from '../recording/pool-recorder.js';
import { type ChunkSink, SessionRecording } from '../recording/recording.js';
import type { SessionStore } from '../store/sessions.js';
import type { SessionOutcome } from './session.js';

export class RenderSession {
  readonly id = randomUUID();
  readonly recording: SessionRecording;
  /** Whether its row was written: only then is it ended. */
  private readonly opened: Promise<boolean>;
  /** Its row is written and not yet being ended: the host's heartbeat keeps it alive. */
  rowLive = false;
  private context: string | undefined;
  private untrack: (() => void) | undefined;
  private ending: Promise<void> | undefined;

  constructor(
    readonly workspaceId: string,
    readonly requestId: string,
    private readonly recorder: PoolRecorder,
    sink: ChunkSink,
    private readonly store: SessionStore | undefined,
    host: string,
    private readonly log: Logger,
    private readonly hooks: { ended(session: RenderSession): void },
  ) {
    this.recording = new SessionRecording(this.id, workspaceId, sink, log, { live: false });
    const row = {
      id: this.id,
      workspaceId,
      operationId: requestId,
      host,
      options: { task: { kind: 'scrape', requestId } },
      startedAt: new Date(),
    };
    // Written while the page loads: the render does not wait for it.
    this.opened = store
      ? store.opened(row).then(
          () => {
            this.rowLive = !this.ending;
            return true;
          },
          (err: unknown) => {
            log.warn({ err, sessionId: this.id }, "a render's session row was not written; it is recorded unlisted");
            return false;
          },
        )
      : Promise.resolve(false);
  }

  /** Its end under way (or done); undefined while it runs. */
  get ended(): Promise<void> | undefined {
    return this.ending;
  }

  /** Records the pages of the render's browser context: before its first page opens. */
  watch(browserContextId: string): void {
    this.context = browserContextId;
    this.untrack = this.recorder.track(browserContextId, this.recording);
  }

  /** Has the render's pages hand over what they hold: before its context closes. */
  async flush(): Promise<void> {
    if (this.context !== undefined) await this.recorder.flush(this.context);
  }

  /** Ends it once (after its context closed): the last chunks out, then its row ended with the render's egress bytes. */
  end(outcome: Extract<SessionOutcome, 'closed' | 'crashed'>, proxyBytes: number): Promise<void> {
    this.ending ??= this.finish(outcome, proxyBytes);
    return this.ending;
  }

  private async finish(outcome: SessionOutcome, proxyBytes: number): Promise<void> {
    this.untrack?.();
    await this.recording.close();
    const opened = await this.opened;
    this.rowLive = false;
    if (opened)
      await this.store
        ?.ended(this.id, { outcome, seconds: 0, chargedMc: 0n, proxyBytes })
        .catch((err) =>
          this.log.error({ err, sessionId: this.id }, "a render's session row not ended; the sweep will"),
        );
    this.hooks.ended(this);
  }
}
