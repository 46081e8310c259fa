// What the run loop asks of the browser: the page as the model reads it, and
// the actions a step may take. The driver (driver.ts) implements it over a
// Playwright connection to the run's browser-host session (CDP through the
// host's filter, so every command the agent sends passes the same rules a
// /connect client's do).
import type { OutlineEntry } from './element-list.js';

export type { OutlineEntry } from './element-list.js';
export type { ElementInfo } from './page-script.js';

/** One tab of the run's browser. */
export interface TabState {
  /** Stable for the life of the tab; what `switch_tab` names. */
  tab: number;
  url: string;
  title: string;
  active: boolean;
}

/** The active page as the model reads it. */
export interface PageState {
  url: string;
  title: string;
  tabs: TabState[];
  /** Pixels of the page above and below the viewport. */
  scroll: { above: number; below: number };
  /**
   * The compact indexed list, one element per line:
   * `[12]<button>Sign in</button>`, `*[13]<input type=email placeholder="Email">` (a star marks
   * an element new since the previous observation), plain text lines between them, iframes and
   * shadow roots included and marked by indentation.
   */
  elements: string;
  /** How many indexed elements the list has (the indices run 1..count). */
  count: number;
  /** The list's entries as data, in page order: each element's role, name and state (the compact view's source). */
  outline: OutlineEntry[];
  /** An open modal dialog is all the list shows (the page behind it is inert). */
  modal?: boolean;
  /** base64 PNG of the viewport, only when asked for (vision models). */
  screenshot?: string;
  /** A digest of the URL and the element list: the same state gives the same fingerprint (loop detection). */
  fingerprint: string;
}

/** A file the run was handed (POST /v1/agent/{id}/files), decrypted only for the action that uses it. */
export interface RunFile {
  handle: string;
  name: string;
  mimeType: string;
  bytes: Buffer;
}

export type BrowserAction =
  | { action: 'navigate'; url: string }
  | { action: 'click'; index: number }
  | { action: 'type'; index: number; text: string; submit?: boolean }
  | { action: 'select'; index: number; option: string }
  | { action: 'scroll'; direction: 'down' | 'up'; index?: number }
  | { action: 'press'; key: string }
  | { action: 'wait'; seconds: number }
  | { action: 'switch_tab'; tab: number }
  | { action: 'go_back' }
  | { action: 'extract'; query: string }
  | { action: 'attach_file'; index: number; file: string };

export interface ActionOutcome {
  ok: boolean;
  /** What happened, for the model's next step and the event log: short, never page HTML. */
  message: string;
  /**
   * The URL or the element list changed: the loop stops running this step's later actions.
   * Known only when asked for (`detectChange`, the default): it costs a scan of the page.
   */
  pageChanged?: boolean;
  /** For `extract`: the relevant part of the page as markdown, bounded in size. */
  extracted?: string;
  /**
   * A click of a form's submit button the browser would not send (a required field empty, a
   * pattern unmet): the names of the fields that kept it, in the form's order.
   */
  unsent?: string[];
}

/** What the browser host did with the page's captcha (docs/connect.md, "Captchas": Captcha.solve's report). */
export interface CaptchaOutcome {
  found: string[];
  outcome: 'none' | 'solved' | 'failed' | 'unsupported';
  kind?: string;
  method?: string;
  /** The page stayed behind the captcha. */
  blocked: boolean;
  reason?: string;
}

export interface BrowserDriver {
  /** The host's Captcha.solve on the active tab (a session browser's driver only). */
  solveCaptcha?(): Promise<CaptchaOutcome>;
  observe(options?: { screenshot?: boolean }): Promise<PageState>;
  /** `files` resolves an attach_file handle to its bytes (undefined: no such file of this run). */
  act(
    action: BrowserAction,
    files: (handle: string) => Promise<RunFile | undefined>,
    options?: { detectChange?: boolean },
  ): Promise<ActionOutcome>;
  /**
   * The hosts of the frame that shows element `index` of the last observation and of every frame
   * above it, innermost first (the page's own host last): where a value typed into it would go. A
   * string says why there are none (no such element; a frame without a host of its own, such as
   * about:blank).
   */
  frameHosts(index: number): Promise<string[] | string>;
  /**
   * Types a secret's value into field `index` of the last observation, marked private first (the
   * recorder masks it; the element list and screenshots show only that it holds something), only
   * while its frames are still on `hosts` (what frameHosts answered). Its message never carries
   * the value.
   */
  fillSecret(index: number, value: string, hosts: string[]): Promise<ActionOutcome>;
  /** What element `index` is to a form: its submit button (a click submits it), a field of it (Enter submits it), or neither. */
  formRole(index: number): Promise<'submit' | 'field' | null>;
  /** Top-level documents committed in any tab since the last call: each is a billed page. */
  takeNavigations(): string[];
  close(): Promise<void>;
}
