// The run's browser (docs/agent.md, "The loop"): a browser-host session placed
// as /connect places sessions, or the one an earlier replica drove, reached
// with Playwright over the host's CDP endpoint; the page as the model is shown
// it and the site the run is on; the page's own actions and what extract
// reads; each document the tabs commit, billed as a page; and the wheel handed
// back to the loop after a person drove.
import { create } from '@bufbuild/protobuf';
import { type BrowserHosts, openOnHosts } from '@wap/browser-hosts';
import { isApiError } from '@wap/errors';
import { browser as proto } from '@wap/proto';
import type { BrowserDriver, CaptchaOutcome, PageState, RunFile } from '../../browser/types.js';
import { unsealFile } from '../../domain/files.js';
import { siteOf } from '../../domain/site.js';
import { browserAction, describeAction, type StepAction } from '../../domain/step.js';
import type { RunStore } from '../../store/runs.js';
import { type RunContext, SESSION_LIFETIME_SECONDS, Stop } from './context.js';
import type { MeteringSystem } from './metering.js';

/** A session waits this long for the run's next replica after one stops (killed, redeployed). */
const SESSION_IDLE_SECONDS = 300;
/** A run waiting for a browser slot is tried again this often. */
const SLOT_RETRY_MS = 5_000;

/** The run's browser as the loop drives it, and the session behind it. */
export type SessionDriver = BrowserDriver & { endSession(): Promise<void> };

export interface BrowserDeps {
  hosts: BrowserHosts;
  /** Connects to the run's session and wraps it for the loop (Playwright over the host's CDP endpoint). */
  openDriver(webSocketUrl: string): Promise<SessionDriver>;
  /** Tells the session's host a person handed the wheel back: its guard on the person's navigations ends at once. */
  releaseControl(sessionId: string): Promise<void>;
  /** The run's handed files (attach_file), and the key they are sealed with. */
  store: RunStore;
  filesKey: string | undefined;
}

/** What one of the page's own actions did: 'changed' when the page changed, and the time the browser took. */
export interface Acted {
  done: 'ok' | 'failed' | 'changed';
  actMs: number;
  /** New documents the act loaded (a link followed, a form sent). */
  documents: number;
  /** A send the browser refused: the fields that kept the form (driver's `unsent`). */
  unsent?: string[];
}

/** Two URLs of one document (a fragment apart): navigating from one to the other reloads nothing useful. */
function sameDocument(a: string, b: string): boolean {
  try {
    const [x, y] = [new URL(a), new URL(b)];
    x.hash = '';
    y.hash = '';
    return x.href === y.href;
  } catch {
    return false;
  }
}

export class BrowserSystem {
  private session: SessionDriver | undefined;
  /** The page the model saw last. */
  pageUrl = '';
  /** Hands the wheel to a person when a page stays behind a captcha the host could not solve (pauses.ts). */
  onBlocked: ((captcha: CaptchaOutcome, url: string) => Promise<void>) | undefined;

  constructor(
    private readonly run: RunContext,
    private readonly metering: MeteringSystem,
    private readonly deps: BrowserDeps,
  ) {
    run.onEnd('after', async () => {
      await this.session?.endSession().catch((err) => run.log.warn({ err }, 'run session not closed; it idles out'));
    });
  }

  /** The driver of the run's browser, once it has one. */
  get driver(): BrowserDriver {
    if (!this.session) throw new Error('the run has no browser yet');
    return this.session;
  }

  /**
   * The run's browser: a new session, or the one an earlier replica drove; answers its id. Ends the
   * run when it cannot have one, or lets it go (Stop) to wait queued while the plan's browsers are busy.
   */
  async open(): Promise<string> {
    const opened = await this.place();
    await this.connect(opened.webSocketUrl);
    return opened.sessionId;
  }

  /** Drives the session at `webSocketUrl`, the host's CDP endpoint. */
  async connect(webSocketUrl: string): Promise<void> {
    this.session = await this.deps.openDriver(webSocketUrl);
  }

  private async place() {
    const row = this.run.row;
    try {
      return await openOnHosts(this.deps.hosts, {
        workspaceId: row.workspaceId,
        // Its hold (proxy bytes) is keyed apart from the run's own.
        requestId: `${row.id}:${row.attempt}:session`,
        sessionId: row.sessionId ?? '',
        options: create(proto.SessionOptionsSchema, {
          idleTimeoutSeconds: SESSION_IDLE_SECONDS,
          maxLifetimeSeconds: SESSION_LIFETIME_SECONDS,
          profileId: row.profileId ?? '',
        }),
        task: create(proto.SessionTaskSchema, { kind: 'agent', runId: row.id }),
      });
    } catch (err) {
      if (isApiError(err) && err.code === 'concurrency_limit') {
        // Every browser of the plan is busy: the run waits in the queue for one, holding nothing, said once.
        await this.metering.giveBack();
        if (this.run.memory.waiting !== 'browser') {
          this.run.memory.waiting = 'browser';
          await this.run.saveProgress();
          await this.run.event('summary', 'waiting', "waiting for a browser slot: the plan's browsers are all in use", {
            for: 'browser',
          });
        }
        await this.run.fenced.postpone(SLOT_RETRY_MS);
        throw new Stop();
      }
      if (isApiError(err) && err.code === 'not_found' && row.sessionId)
        return this.run.end('failed', {
          code: 'page_lost',
          message: "The run's browser ended while no replica drove it.",
        });
      this.run.log.warn({ err }, 'the run cannot have its browser');
      if (isApiError(err)) return this.run.end('failed', { code: err.code, message: err.message });
      throw err;
    }
  }

  /** Opens the run's start page; told to the model only when it failed. */
  async startPage(url: string): Promise<void> {
    const outcome = await this.driver.act({ action: 'navigate', url }, () => Promise.resolve(undefined), {
      detectChange: false,
    });
    // Said only when it failed: "navigate" among the last actions invites a small model to repeat it.
    if (!outcome.ok) this.run.memory.results.push(`The start page could not be opened: ${outcome.message}`);
    if ((await this.countPages()) > 0) await this.captchas(this.run.memory.results);
  }

  /**
   * A new page's captcha, solved by the host if it can (docs/connect.md, "Captchas"; never metered);
   * one it cannot, which the page stays behind, hands the wheel to a person.
   */
  private async captchas(results: string[]): Promise<void> {
    const captcha = await this.session?.solveCaptcha?.().catch(() => undefined);
    if (!captcha || captcha.outcome === 'none') return;
    const kind = captcha.kind ?? captcha.found[0] ?? 'captcha';
    await this.run.event('step', 'captcha', `${kind}: ${captcha.outcome}`, { ...captcha });
    if (captcha.outcome === 'solved') {
      results.push(`A ${kind} captcha on the page was solved.`);
      return;
    }
    if (captcha.blocked) await this.onBlocked?.(captcha, await this.activeUrl());
  }

  private async activeUrl(): Promise<string> {
    return (await this.session?.observe({ screenshot: false }).catch(() => undefined))?.url ?? this.pageUrl;
  }

  /** The page as the model is shown it; the site the run is on is kept as it changes. */
  async observe(screenshot: boolean): Promise<PageState> {
    const page = await this.driver.observe({ screenshot });
    this.pageUrl = page.url;
    const site = siteOf(page.url) ?? this.run.site;
    // Kept as it changes, so a take-over at any moment links to the site the run is on.
    if (site !== this.run.site) await this.run.fenced.site(site);
    this.run.site = site;
    return page;
  }

  /**
   * Runs one of the page's own actions (navigate, click, type ... extract, attach_file). Whether the
   * page changed is looked for only when `more` actions follow; a navigation ends the step anyway.
   */
  async act(action: StepAction, results: string[], more: boolean): Promise<Acted> {
    const act = browserAction(action);
    if (!act) return { done: 'failed', actMs: 0, documents: 0 };
    if (act.action === 'navigate' && sameDocument(act.url, this.pageUrl)) {
      results.push(`${describeAction(action)}: not done, the browser is on that page already; act on its elements`);
      return { done: 'failed', actMs: 0, documents: 0 };
    }
    const acting = performance.now();
    const moved = act.action === 'navigate' || act.action === 'go_back' || act.action === 'switch_tab';
    const outcome = await this.driver.act(act, (handle) => this.file(handle), { detectChange: more && !moved });
    const actMs = performance.now() - acting;
    results.push(`${describeAction(action)}: ${outcome.message}`.slice(0, 500));
    if (outcome.extracted) {
      const extracted = this.run.policy.scrub(outcome.extracted);
      if (extracted !== outcome.extracted)
        await this.run.event('step', 'dead_end', 'a secret value in the extracted text was taken out', {
          code: 'secret_in_answer',
        });
      this.run.memory.extracted = extracted;
      await this.run.event('step', 'finding', `extracted ${extracted.length} characters`, {
        query: action.action === 'extract' ? action.query : undefined,
        excerpt: extracted.slice(0, 500),
      });
    }
    await this.run.event('debug', 'action', `${describeAction(action)}: ${outcome.ok ? 'ok' : 'failed'}`, {
      ok: outcome.ok,
      message: outcome.message.slice(0, 300),
    });
    const documents = await this.countPages();
    if (documents > 0) await this.captchas(results);
    if (!outcome.ok) return { done: 'failed', actMs, documents };
    const unsent = outcome.unsent?.map((name) => this.run.policy.scrub(name));
    // A navigation ends the step whatever it changed: what the model saw is of the page before.
    return { done: outcome.pageChanged || moved ? 'changed' : 'ok', actMs, documents, ...(unsent && { unsent }) };
  }

  /** A person drove the browser and handed it back: the host's guard on them ends, and their pages are theirs. */
  async handBack(sessionId: string | null): Promise<void> {
    if (sessionId)
      await this.deps
        .releaseControl(sessionId)
        .catch((err) => this.run.log.warn({ err }, "the host's control guard was not released; it lapses"));
    // Pages a person opened are not billed to the run.
    this.session?.takeNavigations();
  }

  /** This replica lets the run go: the session waits for the next replica (SESSION_IDLE_SECONDS). */
  async letGo(): Promise<void> {
    await this.session?.close().catch(() => undefined);
  }

  /** Each document the run's tabs committed is a page load; how many there were. */
  private async countPages(): Promise<number> {
    const urls = this.session?.takeNavigations() ?? [];
    for (const url of urls) {
      this.metering.add('page_load', 1n);
      await this.run.event('debug', 'page', `page ${url.slice(0, 200)}`, { url: url.slice(0, 2_048) });
    }
    return urls.length;
  }

  private async file(handle: string): Promise<RunFile | undefined> {
    const key = this.deps.filesKey;
    if (!key) return undefined;
    const runId = this.run.row.id;
    const row = await this.deps.store.file(runId, handle);
    if (!row) return undefined;
    return { handle, name: row.name, mimeType: row.mimeType, bytes: unsealFile(key, runId, row.sealed) };
  }
}
