// The driver against real Chromium and loopback pages: what the model reads
// of a page, and what its actions do there.
import assert from 'node:assert/strict';
import { createHash } from 'node:crypto';
import { after, afterEach, before, describe, it } from 'node:test';
import { until } from '@wap/testkit';
import { type Browser, type BrowserContext, chromium, type Page } from 'playwright-core';
import { PlaywrightDriver, setsOff } from './driver.js';
import { ARTICLE_FACT, OTHER_HOST_RULE, serveTestPages, type TestServer } from './test-support.js';
import type { PageState, RunFile } from './types.js';

const noFiles = async (): Promise<RunFile | undefined> => undefined;

/** The index of the first line holding `text`: what a model would pick. */
function indexOf(state: PageState, text: string): number {
  const line = state.elements.split('\n').find((l) => /\[\d+\]/.test(l) && l.includes(text));
  assert.ok(line, `no element with ${text} in:\n${state.elements}`);
  return Number(/\[(\d+)\]/.exec(line)?.[1]);
}

const lineOf = (state: PageState, text: string): string =>
  state.elements.split('\n').find((l) => l.includes(text)) ?? assert.fail(`no line with ${text}:\n${state.elements}`);

describe('PlaywrightDriver', () => {
  let site: TestServer;
  let other: TestServer;
  let browser: Browser;
  let context: BrowserContext | undefined;

  before(async () => {
    ({ site, other } = await serveTestPages());
    browser = await chromium.launch({
      executablePath: '/usr/bin/chromium',
      args: ['--no-sandbox', '--site-per-process', OTHER_HOST_RULE],
    });
  });
  afterEach(async () => {
    await context?.close();
  });
  after(async () => {
    await browser.close();
    await site.close();
    await other.close();
  });

  /** One tab on `path`, in a context of its own (the only one the browser has), and the driver over it. */
  async function open(path: string): Promise<{ driver: PlaywrightDriver; page: Page }> {
    context = await browser.newContext();
    const page = await context.newPage();
    await page.goto(`${site.origin}${path}`);
    return { driver: new PlaywrightDriver(browser), page };
  }

  it('fills a secret into a field marked private: the list, the message and a screenshot never show it', async () => {
    const { driver, page } = await open('/form');
    try {
      const state = await driver.observe();
      const field = indexOf(state, 'type=email');
      assert.equal(await driver.formRole(field), 'field');
      assert.equal(await driver.formRole(indexOf(state, 'Sign in</button>')), 'submit');
      const filled = await driver.fillSecret(field, 'ada-secret@example.org', ['127.0.0.1']);
      assert.equal(filled.ok, true, filled.message);
      assert.doesNotMatch(filled.message, /ada-secret/);
      const after = await driver.observe({ screenshot: true });
      assert.match(lineOf(after, 'type=email'), /value=•••/);
      assert.doesNotMatch(after.elements, /ada-secret/);
      // The page has the value and the mark the recorder masks by.
      const value = await page.evaluate(() => {
        const host = document.querySelector('sign-in') as HTMLElement;
        const input = (host.shadowRoot ?? document).querySelector('input[type=email]') as HTMLInputElement;
        return [input.value, input.hasAttribute('data-private')];
      });
      assert.deepEqual(value, ['ada-secret@example.org', true]);
      const refused = await driver.fillSecret(indexOf(after, 'Sign in</button>'), 'x', ['127.0.0.1']);
      assert.equal(refused.ok, false);
    } finally {
      await driver.close();
    }
  });

  it('fills and submits a form inside a shadow root, never showing the password', async () => {
    const { driver } = await open('/form');
    try {
      const state = await driver.observe();
      assert.equal(state.title, 'Sign in');
      assert.match(lineOf(state, 'type=email'), /^ {2}\[\d+\]<input type=email name=email placeholder=Email>$/);
      assert.match(lineOf(state, 'Sign in</button>'), /^ {2}\[\d+\]<button>Sign in<\/button>$/);
      assert.match(state.elements, /^Welcome$/m);
      assert.equal(state.count, 3);

      const email = await driver.act(
        { action: 'type', index: indexOf(state, 'type=email'), text: 'ada@example.org' },
        noFiles,
      );
      assert.deepEqual([email.ok, email.pageChanged], [true, false]);
      assert.doesNotMatch(email.message, /ada@/);
      const password = await driver.act(
        { action: 'type', index: indexOf(state, 'type=password'), text: 'hunter2-secret' },
        noFiles,
      );
      assert.equal(password.ok, true);
      const typed = await driver.observe();
      assert.match(lineOf(typed, 'type=password'), /value=•••>$/);
      assert.doesNotMatch(typed.elements, /hunter2/);
      assert.match(lineOf(typed, 'type=email'), /value=ada@example.org>$/);

      const submit = await driver.act({ action: 'click', index: indexOf(typed, 'Sign in</button>') }, noFiles);
      assert.deepEqual([submit.ok, submit.pageChanged], [true, false], 'new text, the same elements');
      assert.match((await driver.observe()).elements, /^Signed in as ada@example.org$/m);
      const entered = await driver.act(
        { action: 'type', index: indexOf(typed, 'type=email'), text: 'grace@example.org', submit: true },
        noFiles,
      );
      assert.equal(entered.ok, true);
      assert.match((await driver.observe()).elements, /^Signed in as grace@example.org$/m);
    } finally {
      await driver.close();
    }
  });

  it('lists and clicks an element inside a cross-site frame', async () => {
    const { driver, page } = await open('/frames');
    try {
      await until('the frame loads', async () => page.frames().some((f) => f.url().startsWith(other.origin)), 10_000);
      const state = await driver.observe();
      assert.match(state.elements, new RegExp(`^<iframe title=Partner src=${other.origin}/inner>$`, 'm'));
      assert.match(lineOf(state, 'Inner button'), /^ {2}\[\d+\]<button>Inner button<\/button>$/);
      assert.match(state.elements, /^ {2}inner waiting$/m);
      const clicked = await driver.act({ action: 'click', index: indexOf(state, 'Inner button') }, noFiles);
      assert.deepEqual([clicked.ok, clicked.pageChanged], [true, false]);
      assert.match((await driver.observe()).elements, /^ {2}inner clicked$/m);
    } finally {
      await driver.close();
    }
  });

  it("names the host of a field's frame and of every frame above it, and fills it only while they stay", async () => {
    const { driver, page } = await open('/nested-field');
    try {
      const inner = () => page.frames().find((f) => f.parentFrame()?.url().startsWith(other.origin));
      await until('the frames load', async () => (await inner()?.$('input[name=user]')) != null, 10_000);
      const state = await driver.observe();
      const field = indexOf(state, 'name=user');
      // The field is the site's own, but it sits in a frame of the other host: every frame counts.
      const chain = ['127.0.0.1', 'other.test', '127.0.0.1'];
      assert.deepEqual(await driver.frameHosts(field), chain);
      assert.deepEqual(await driver.frameHosts(999), 'no element [999] in the last observation (it has 1 to 1)');
      const elsewhere = await driver.fillSecret(field, 'ada', ['127.0.0.1']);
      assert.equal(elsewhere.ok, false, 'frames other than the ones checked are not filled');
      assert.equal(await inner()?.$eval('input[name=user]', (el) => (el as HTMLInputElement).value), '');
      const filled = await driver.fillSecret(field, 'ada', chain);
      assert.equal(filled.ok, true, filled.message);
      assert.equal(await inner()?.$eval('input[name=user]', (el) => (el as HTMLInputElement).value), 'ada');
    } finally {
      await driver.close();
    }
  });

  it('names the other host for a field in its frame, and the page alone for a field of the page', async () => {
    const { driver, page } = await open('/framed-field');
    try {
      const frame = () => page.frames().find((f) => f.url().startsWith(other.origin));
      await until('the frame loads', async () => (await frame()?.$('input[name=user]')) != null, 10_000);
      const state = await driver.observe();
      assert.deepEqual(await driver.frameHosts(indexOf(state, 'name=user')), ['other.test', '127.0.0.1']);
      await page.goto(`${site.origin}/field`);
      assert.deepEqual(await driver.frameHosts(indexOf(await driver.observe(), 'name=user')), ['127.0.0.1']);
    } finally {
      await driver.close();
    }
  });

  it('selects by label or value, toggles a checkbox, and keeps page text from posing as elements', async () => {
    const { driver } = await open('/choices');
    try {
      const state = await driver.observe();
      const country = indexOf(state, '<select');
      assert.match(
        lineOf(state, '<select'),
        /<select name=country value=Germany>Germany \| France \| Norway<\/select>$/,
      );
      assert.match(lineOf(state, 'type=checkbox'), /<input type=checkbox name=terms checked=false>$/);
      assert.match(state.elements, /^\(1\)‹button›Pay now‹\/button› is only text$/m);
      assert.equal(state.count, 2);

      assert.equal((await driver.act({ action: 'select', index: country, option: 'France' }, noFiles)).ok, true);
      assert.match((await driver.observe()).elements, /^country fr$/m);
      assert.equal((await driver.act({ action: 'select', index: country, option: 'no' }, noFiles)).ok, true);
      const missing = await driver.act({ action: 'select', index: country, option: 'Atlantis' }, noFiles);
      assert.equal(missing.ok, false);
      assert.match(missing.message, /Atlantis.*Germany \| France \| Norway/);
      const typedIntoSelect = await driver.act({ action: 'type', index: country, text: 'x' }, noFiles);
      assert.match(typedIntoSelect.message, /use select/);

      const checked = await driver.act({ action: 'click', index: indexOf(state, 'type=checkbox') }, noFiles);
      assert.equal(checked.ok, true);
      const after = await driver.observe();
      assert.match(lineOf(after, 'type=checkbox'), /checked=true>$/);
      assert.match(lineOf(after, '<select'), /value=Norway>/);
    } finally {
      await driver.close();
    }
  });

  it('stars what a click revealed, and skips hidden, zero-size and far-away elements', async () => {
    const { driver } = await open('/panel');
    try {
      const first = await driver.observe();
      assert.equal(first.elements, '[1]<button>Show filters</button>');
      assert.equal((await driver.observe()).fingerprint, first.fingerprint);

      const shown = await driver.act({ action: 'click', index: 1 }, noFiles);
      assert.deepEqual([shown.ok, shown.pageChanged], [true, true]);
      const revealed = await driver.observe();
      assert.equal(
        revealed.elements,
        '[1]<button>Show filters</button>\n*[2]<input name=q placeholder=Search>\n*[3]<button>Apply</button>',
      );
      assert.notEqual(revealed.fingerprint, first.fingerprint);
      const again = await driver.observe();
      assert.doesNotMatch(again.elements, /\*/);
      assert.equal(again.fingerprint, revealed.fingerprint);
    } finally {
      await driver.close();
    }
  });

  it('an open modal dialog is all a page shows; once closed, the page behind it, each button with its row', async () => {
    const { driver } = await open('/modal');
    try {
      const dialog = await driver.observe();
      assert.equal(dialog.modal, true);
      assert.deepEqual(
        dialog.outline.map((e) => (e.kind === 'element' ? `${e.info.role} ${e.info.name}` : e.text)),
        ['Delete “Q3 notes”?', 'button Cancel'],
      );
      const closed = await driver.act({ action: 'click', index: indexOf(dialog, 'Cancel') }, noFiles);
      assert.equal(closed.ok, true, closed.message);
      const page = await driver.observe();
      assert.equal(page.modal, undefined);
      const row = page.outline.find((e) => e.kind === 'element');
      assert.deepEqual(row?.kind === 'element' && [row.info.name, row.info.context], ['Delete', 'Q3 notes']);
    } finally {
      await driver.close();
    }
  });

  it("a table's row is one line, its cells between bars; a cell's button is an element of its own", async () => {
    const { driver, page } = await open('/deferred-submit');
    try {
      await page.setContent(`<table><tr><th>Name</th><th>Department</th><th>Started</th><th></th></tr>
<tr><td>Aiko Tanaka</td><td>Engineering</td><td>2019</td><td><button>Edit</button></td></tr>
<tr><td>Bruno Costa</td><td>Sales</td><td>2021</td><td><button>Edit</button></td></tr></table>`);
      const state = await driver.observe();
      assert.deepEqual(
        state.outline.map((e) => (e.kind === 'element' ? `${e.info.role} ${e.info.name}` : e.text)),
        [
          'Name | Department | Started',
          'Aiko Tanaka | Engineering | 2019',
          'button Edit',
          'Bruno Costa | Sales | 2021',
          'button Edit',
        ],
      );
    } finally {
      await driver.close();
    }
  });

  it('a choice of a group is told apart by the group’s name: its legend, or its aria-label', async () => {
    const { driver, page } = await open('/deferred-submit');
    try {
      await page.setContent(`<fieldset><legend>How fast was the delivery?</legend><label><input type=radio name=s> 4</label></fieldset>
<div role=radiogroup aria-label="How was the packaging?"><label><input type=radio name=p> 4</label></div>`);
      const state = await driver.observe();
      const infos = state.outline.flatMap((e) => (e.kind === 'element' ? [[e.info.name, e.info.context]] : []));
      assert.deepEqual(infos, [
        ['4', 'How fast was the delivery?'],
        ['4', 'How was the packaging?'],
      ]);
    } finally {
      await driver.close();
    }
  });

  it("an empty box's placeholder is its hint when a label names it; a filled one or one named by it has none", async () => {
    const { driver, page } = await open('/deferred-submit');
    try {
      await page.setContent(`<label>Date of birth <input name=dob placeholder="YYYY-MM-DD"></label>
<label>Born <input name=b placeholder="YYYY-MM-DD" value="1990-03-14"></label><input name=q placeholder="Search">
<label>Arrival <input type=date name=a></label>`);
      const state = await driver.observe();
      const infos = state.outline.flatMap((e) => (e.kind === 'element' ? [[e.info.name, e.info.hint]] : []));
      assert.deepEqual(infos, [
        ['Date of birth', 'YYYY-MM-DD'],
        ['Born', undefined],
        ['Search', undefined],
        ['Arrival', 'YYYY-MM-DD'],
      ]);
    } finally {
      await driver.close();
    }
  });

  it('a link to the page it is on says so; one to a place on it, a script or elsewhere does not', async () => {
    const { driver, page } = await open('/deferred-submit');
    try {
      await page.setContent(`<a href="/deferred-submit">Here</a> <a href="#top">Top</a> <a href="#">Menu</a>
<a href="/article">Article</a> <a href="/elsewhere" aria-current="page">Current</a>`);
      const state = await driver.observe();
      const current = state.outline.flatMap((e) =>
        e.kind === 'element' ? [[e.info.name, e.info.current ?? false]] : [],
      );
      assert.deepEqual(current, [
        ['Here', true],
        ['Top', false],
        ['Menu', false],
        ['Article', false],
        ['Current', true],
      ]);
    } finally {
      await driver.close();
    }
  });

  it('a date written out goes into a date input as the day it names', async () => {
    const { driver, page } = await open('/deferred-submit');
    try {
      await page.setContent(
        '<label>Appointment date <input type=date name=d></label><label>Note <input name=n></label>',
      );
      await driver.observe();
      const typed = await driver.act({ action: 'type', index: 1, text: 'December 1, 2026' }, noFiles);
      assert.equal(typed.ok, true, typed.message);
      assert.equal(await page.inputValue('input[name=d]'), '2026-12-01');
      await driver.act({ action: 'type', index: 2, text: 'December 1, 2026' }, noFiles);
      assert.equal(await page.inputValue('input[name=n]'), 'December 1, 2026', 'a text box keeps it as written');
    } finally {
      await driver.close();
    }
  });

  it('a click of a submit button the browser will not send names the fields that kept the form', async () => {
    const { driver, page } = await open('/deferred-submit');
    try {
      await page.setContent(`<form action="/article"><label>Your name <input name=n required value=Dana></label>
<label>Email <input name=e type=email required></label><input name=s required placeholder="Subject">
<textarea name=m required aria-label="Message"></textarea><button>Send message</button><button type=button>Help</button></form>`);
      const state = await driver.observe();
      const sent = await driver.act({ action: 'click', index: indexOf(state, 'Send message') }, noFiles);
      assert.equal(sent.ok, true, sent.message);
      assert.deepEqual(sent.unsent, ['Email', 'Subject', 'Message']);
      const help = await driver.act({ action: 'click', index: indexOf(state, 'Help') }, noFiles);
      assert.equal(help.unsent, undefined, 'no send: nothing kept');
    } finally {
      await driver.close();
    }
  });

  it('a click or Enter that sends a form waits for its document; one the browser will not send, for none', async () => {
    const { driver, page } = await open('/deferred-submit');
    try {
      await page.setContent(`<form><input name=a required><button>Send</button><textarea name=t></textarea></form>
<form novalidate><input name=b required><button>Anyway</button></form>
<form><input name=c value=filled required><button>Ready</button><button type=button>Plain</button></form>`);
      const at = async (selector: string, how: 'click' | 'enter') => {
        const element = await page.$(selector);
        assert.ok(element, selector);
        return setsOff(element, how);
      };
      assert.equal(await at('text=Send', 'click'), 'nothing', 'a required field is empty: not sent');
      assert.equal(await at('input[name=a]', 'enter'), 'nothing');
      assert.equal(await at('text=Anyway', 'click'), 'document', 'novalidate: sent as it is');
      assert.equal(await at('text=Ready', 'click'), 'document');
      assert.equal(await at('input[name=c]', 'enter'), 'document');
      assert.equal(await at('text=Plain', 'click'), 'nothing', 'a button that is no submitter');
      assert.equal(await at('textarea', 'enter'), 'nothing', 'Enter in a text area is a new line');
      // The view says which sends the browser would keep, so the step does not offer them.
      const incomplete = (await driver.observe()).outline.flatMap((e) =>
        e.kind === 'element' && e.info.role === 'button' ? [[e.info.name, e.info.incomplete ?? false]] : [],
      );
      assert.deepEqual(incomplete, [
        ['Send', true],
        ['Anyway', true], // novalidate, but every box of it empty: it would send nothing
        ['Ready', false],
        ['Plain', false],
      ]);
      await page.setContent(`<form><input name=q aria-label=Search><button>Go</button></form>
<form><input name=c aria-label=Coupon><label><input type=radio name=r checked> Express</label><button>Pay</button></form>
<form><input name=a required><button>Send</button><textarea name=t></textarea></form>`);
      const empty = (await driver.observe()).outline.flatMap((e) =>
        e.kind === 'element' && e.info.role === 'button' ? [[e.info.name, e.info.incomplete ?? false]] : [],
      );
      assert.deepEqual(
        empty,
        [
          ['Go', true],
          ['Pay', false],
          ['Send', true],
        ],
        'a form of empty text boxes alone',
      );
      await page.fill('input[name=a]', 'now filled');
      const filled = (await driver.observe()).outline.find((e) => e.kind === 'element' && e.info.name === 'Send');
      assert.equal(filled?.kind === 'element' && filled.info.incomplete, undefined, 'filled: offered again');
    } finally {
      await driver.close();
    }
  });

  it('Enter in a field of a form that submits a while later is followed to its next document', async () => {
    const { driver } = await open('/deferred-submit');
    try {
      const state = await driver.observe();
      await driver.act({ action: 'click', index: indexOf(state, 'lamp') }, noFiles);
      const sent = await driver.act({ action: 'press', key: 'Enter' }, noFiles);
      assert.deepEqual([sent.ok, sent.pageChanged], [true, true], sent.message);
      assert.equal((await driver.observe()).url, `${site.origin}/article?q=lamp`);
    } finally {
      await driver.close();
    }
  });

  it('a form that submits a while after its click is followed to its next document', async () => {
    const { driver } = await open('/deferred-submit');
    try {
      const state = await driver.observe();
      const ordered = await driver.act({ action: 'click', index: indexOf(state, 'Order') }, noFiles);
      assert.deepEqual([ordered.ok, ordered.pageChanged], [true, true], ordered.message);
      assert.equal((await driver.observe()).url, `${site.origin}/article?q=lamp`);
      assert.deepEqual(driver.takeNavigations(), [`${site.origin}/article?q=lamp`]);
    } finally {
      await driver.close();
    }
  });

  it('follows a link to a new tab, switches tabs, and counts each new document once', async () => {
    const { driver } = await open('/tabs');
    try {
      const state = await driver.observe();
      assert.deepEqual(driver.takeNavigations(), []);

      const hash = await driver.act({ action: 'click', index: indexOf(state, 'Details') }, noFiles);
      assert.equal(hash.ok, true);
      const moved = await driver.act({ action: 'click', index: indexOf(state, 'Move') }, noFiles);
      assert.equal(moved.pageChanged, true);
      assert.deepEqual(driver.takeNavigations(), [], 'a hash or pushState is not a new document');

      await driver.observe();
      const opened = await driver.act({ action: 'click', index: indexOf(state, 'Open the article') }, noFiles);
      assert.deepEqual([opened.ok, opened.pageChanged], [true, true]);
      assert.match(opened.message, /opened tab 2/);
      const article = await driver.observe();
      assert.equal(article.url, `${site.origin}/article`);
      assert.deepEqual(
        article.tabs.map((t) => [t.tab, t.active]),
        [
          [1, false],
          [2, true],
        ],
      );
      assert.deepEqual(driver.takeNavigations(), [`${site.origin}/article`]);

      const back = await driver.act({ action: 'switch_tab', tab: 1 }, noFiles);
      assert.deepEqual([back.ok, back.pageChanged], [true, true]);
      assert.equal((await driver.observe()).url, `${site.origin}/tabs/moved`);
      assert.equal((await driver.act({ action: 'switch_tab', tab: 7 }, noFiles)).ok, false);

      const went = await driver.act({ action: 'navigate', url: `${site.origin}/panel` }, noFiles);
      assert.deepEqual([went.ok, went.pageChanged], [true, true]);
      assert.deepEqual(driver.takeNavigations(), [`${site.origin}/panel`]);
      const returned = await driver.act({ action: 'go_back' }, noFiles);
      assert.equal(returned.ok, true);
      assert.equal((await driver.observe()).url, `${site.origin}/tabs/moved`);
    } finally {
      await driver.close();
    }
  });

  it('refuses non-web URLs, unknown indices and elements of a page gone', async () => {
    const { driver } = await open('/panel');
    try {
      for (const url of ['file:///etc/passwd', 'javascript:alert(1)', 'chrome://settings', 'example.org']) {
        const refused = await driver.act({ action: 'navigate', url }, noFiles);
        assert.deepEqual([refused.ok, refused.pageChanged], [false, false], url);
      }
      const none = await driver.act({ action: 'click', index: 1 }, noFiles);
      assert.match(none.message, /no element \[1\]/);
      await driver.observe();
      const unknown = await driver.act({ action: 'click', index: 99 }, noFiles);
      assert.deepEqual(
        [unknown.ok, unknown.message],
        [false, 'no element [99] in the last observation (it has 1 to 1)'],
      );

      await driver.act({ action: 'navigate', url: `${site.origin}/choices` }, noFiles);
      const stale = await driver.act({ action: 'click', index: 1 }, noFiles);
      assert.equal(stale.ok, false);
      assert.match(stale.message, /gone/);
      const missing = await driver.act({ action: 'navigate', url: `${site.origin}/nowhere` }, noFiles);
      assert.match(missing.message, /HTTP 404/);
    } finally {
      await driver.close();
    }
  });

  it('attaches a run file to a styled-away file input through the page', async () => {
    const { driver } = await open('/upload');
    try {
      const bytes = Buffer.from(Array.from({ length: 300_000 }, (_, i) => (i * 7919) % 256));
      const file: RunFile = { handle: 'f1', name: 'report.pdf', mimeType: 'application/pdf', bytes };
      const files = async (handle: string) => (handle === 'f1' ? file : undefined);
      const state = await driver.observe();
      assert.match(lineOf(state, 'type=file'), /\[\d+\]<input type=file name=doc hidden>$/);
      const label = indexOf(state, 'Choose a document');

      const unknown = await driver.act({ action: 'attach_file', index: label, file: 'f2' }, files);
      assert.deepEqual([unknown.ok, unknown.message], [false, 'no file "f2" in this run']);
      const clickedInput = await driver.act({ action: 'click', index: indexOf(state, 'type=file') }, files);
      assert.match(clickedInput.message, /use attach_file/);

      const attached = await driver.act({ action: 'attach_file', index: label, file: 'f1' }, files);
      assert.equal(attached.ok, true, attached.message);
      const digest = createHash('sha256').update(bytes).digest('hex');
      await until('the page read the file', async () =>
        (await driver.observe()).elements.includes(`report.pdf 300000 application/pdf ${digest}`),
      );
      assert.match(lineOf(await driver.observe(), 'type=file'), /files=report.pdf/);
    } finally {
      await driver.close();
    }
  });

  it('extracts the part of a long page a query asks for, and lists only what is near the viewport', async () => {
    const { driver } = await open('/article');
    try {
      const state = await driver.observe();
      assert.ok(state.scroll.below > 3000, `below: ${state.scroll.below}`);
      assert.match(state.elements, /^Paragraph 0 tells/m);
      assert.doesNotMatch(state.elements, /Paragraph 100 /);

      const found = await driver.act({ action: 'extract', query: 'What is the shipping fee to Norway?' }, noFiles);
      assert.deepEqual([found.ok, found.pageChanged], [true, false]);
      assert.ok(found.extracted?.includes(ARTICLE_FACT), found.extracted);
      assert.ok((found.extracted?.length ?? 0) <= 4100);

      const scrolled = await driver.act({ action: 'scroll', direction: 'down' }, noFiles);
      assert.equal(scrolled.ok, true);
      const lower = await driver.observe();
      assert.ok(lower.scroll.above > 0);
      const shown = (s: PageState) => Array.from(s.elements.matchAll(/^Paragraph (\d+) /gm), (m) => Number(m[1]));
      assert.ok(Math.max(...shown(lower)) > Math.max(...shown(state)), 'later paragraphs come into the list');
      assert.ok(Math.min(...shown(lower)) > 0, 'the first paragraph went out of it');
    } finally {
      await driver.close();
    }
  });

  it('bounds the list of a crowded page and says what it cut', async () => {
    const { driver } = await open('/crowd');
    try {
      const state = await driver.observe();
      assert.ok(state.elements.length <= 40_200, `${state.elements.length} characters`);
      assert.ok(state.count > 100 && state.count < 3000, `${state.count} elements`);
      assert.match(state.elements, /\n… the list stops here: \d+ more elements/);
      const last = await driver.act({ action: 'click', index: state.count }, noFiles);
      assert.equal(last.ok, true, last.message);
    } finally {
      await driver.close();
    }
  });
});
