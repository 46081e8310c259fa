// The web console in a real Chromium against a real fleet (docs/console.md): a person signs in
// on the page, makes a key that works on the API and stops working once deleted, sees a scrape
// move their usage, plays a recorded session, answers a paused agent run and drives another,
// and is shown nothing of a workspace they do not belong to; a member who is not an owner
// cannot manage members. Every page visited has no console error, no failed request and no
// serious accessibility violation; on a phone, nothing sticks out sideways. Only the accessible
// names of the console's contract are used, never its markup.
import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { after, before, describe, test } from 'node:test';
import { until } from '@wap/testkit';
import { type FakeModel, modelReply, startTestSite, type TestSite } from '@wap/testsite';
import { type Browser, type BrowserContext, chromium, type Page } from 'playwright-core';
import { availableCredits, call } from './api.js';
import {
  creditsIn,
  heading,
  loaded,
  open,
  PageWatch,
  RECORDED_PAGE,
  rowOf,
  rowsOf,
  settled,
  signIn,
} from './console-page.js';
import { asking, promptOf, type ScriptedModel, step } from './scripted-agent.js';
import { fleet, scripted, sharedFleet } from './shared-fleet.js';

const PASSWORD = 'correct horse battery staple';
/** A test that hangs (a frame that never answers) fails on its own instead of holding the file. */
const TEST_TIMEOUT_MS = 240_000;
const tag = randomBytes(3).toString('hex');
const OWNER = `owner-${tag}@example.test`;
const MEMBER = `member-${tag}@example.test`;
/** A member of both workspaces. */
const BOTH = `both-${tag}@example.test`;
/** What only the other workspace holds: a key of this name, a session, a run. */
const OTHER_KEY_NAME = `zeta-elsewhere-${tag}`;

let site: TestSite;
let model: FakeModel;
let scripts: ScriptedModel['scripts'];
let browser: Browser;
/** The workspace the people sign in to, and an API key of it for what the test does through the API. */
const home = { name: `console-${tag}`, id: '', key: '', sessionId: '' };
const other = { name: `elsewhere-${tag}`, id: '', key: '', sessionId: '', runId: '' };

/** What the test reads of a run through the API. */
interface Run {
  status: string;
  outcome: string | null;
  pausedFor: string | null;
  answer: unknown;
}

/** A browser-engine scrape's session, once it ended with its page stored. */
async function recordedSession(key: string, article: number): Promise<string> {
  const r = await call<{ data: { metadata: { sessionId?: string } } }>(fleet.gatewayUrl, 'POST', '/v1/scrape', {
    key,
    body: { url: `${site.url}/articles/${article}`, engine: 'browser', formats: ['markdown'] },
  });
  assert.equal(r.status, 200, JSON.stringify(r.body));
  const id = r.body.data.metadata.sessionId as string;
  await until(`session ${id} ended with its page recorded`, async () => {
    const s = await call<{ session: { status: string; pageCount: number } }>(
      fleet.gatewayUrl,
      'GET',
      `/v1/sessions/${id}`,
      { key },
    );
    return s.body.session?.status === 'ended' && s.body.session.pageCount >= 1;
  });
  return id;
}

async function submit(key: string, body: Record<string, unknown>): Promise<{ id: string }> {
  const r = await call<{ id: string }>(fleet.gatewayUrl, 'POST', '/v1/agent', { key, body });
  assert.equal(r.status, 202, JSON.stringify(r.body));
  return r.body;
}

async function runOf(id: string): Promise<Run> {
  return (await call<{ run: Run }>(fleet.gatewayUrl, 'GET', `/v1/agent/${id}`, { key: home.key })).body.run;
}

async function waitRun(id: string, done: (run: Run) => boolean, what: string): Promise<Run> {
  let last: Run | undefined;
  const check = async () => {
    last = await runOf(id);
    return done(last);
  };
  await until(`run ${id} ${what}`, check, 90_000).catch((error: Error) => {
    throw new Error(`${error.message} (last: ${JSON.stringify(last)})`);
  });
  return last as Run;
}

/** A fresh browser profile (its own cookies), a page in it and the page's watch. */
async function person(viewport = { width: 1280, height: 900 }) {
  const context = await browser.newContext({ viewport });
  const page = await context.newPage();
  return { context, page, watch: new PageWatch(page) };
}

/** A person signed in as `email`, on the Usage page. */
async function signedIn(email = OWNER, viewport?: { width: number; height: number }) {
  const p = await person(viewport);
  await signIn(p.page, p.watch, `${fleet.gatewayUrl}/console/`, email, PASSWORD);
  await heading(p.page, 'Usage and credits');
  return p;
}

/** The Keys, Sessions and Agent runs tables' rows of the workspace shown, once its key `keyName` is listed. */
async function shownOf(page: Page, keyName: string) {
  await open(page, 'Keys', 'API keys');
  await rowOf(page, 'API keys', keyName);
  const keys = await rowsOf(page, 'API keys');
  await open(page, 'Sessions', 'Sessions');
  const sessions = await rowsOf(page, 'Sessions');
  await open(page, 'Agent runs', 'Agent runs');
  const runs = await rowsOf(page, 'Agent runs');
  return { keys, sessions, runs };
}

/** What of the other workspace the tables show: its key, its session, its run. */
const elsewhere = (shown: Awaited<ReturnType<typeof shownOf>>) => [
  ...shown.keys.filter((r) => r.includes(OTHER_KEY_NAME)),
  ...shown.sessions.filter((r) => r.includes(other.sessionId)),
  ...shown.runs.filter((r) => r.includes(other.runId)),
];

/** Runs a person's steps, then closes their browser; what their pages showed wrong fails the test at its end. */
async function closing(context: BrowserContext, watch: PageWatch, steps: () => Promise<void>) {
  try {
    await steps();
  } catch (error) {
    // The step that failed comes first; what the pages showed wrong before it is still worth knowing.
    if (watch.found.length) console.error(`Also found on the pages:\n${watch.found.join('\n')}`);
    throw error;
  } finally {
    await context.close();
  }
  watch.assertNothingFound();
}

describe('the console', () => {
  before(async () => {
    [site] = await Promise.all([startTestSite({ pages: 5, extras: false }), sharedFleet('browsers')]);
    ({ model, scripts } = scripted);
    const passwordFile = path.join(tmpdir(), `wap-console-${process.pid}`);
    writeFileSync(passwordFile, `${PASSWORD}\n`);
    // Each admin command is a process of its own: what does not depend on another runs at once.
    await Promise.all([
      ...[home, other].map(async (ws, i) => {
        ({ workspaceId: ws.id } = await fleet.admin('workspace', 'create', ws.name, '--plan', 'pro'));
        const keyName = i === 0 ? 'fixtures' : OTHER_KEY_NAME;
        ({ apiKey: ws.key } = await fleet.admin('key', 'create', ws.name, '--name', keyName));
      }),
      ...[OWNER, MEMBER, BOTH].map((email) => fleet.admin('user', 'create', email, '--password-file', passwordFile)),
    ]);
    await Promise.all([
      fleet.admin('member', 'add', home.name, OWNER, '--role', 'owner'),
      fleet.admin('member', 'add', home.name, MEMBER, '--role', 'member'),
      fleet.admin('member', 'add', home.name, BOTH),
      fleet.admin('member', 'add', other.name, BOTH),
    ]);
    // A recorded session in each workspace (a page rendered in a browser is recorded), a run in the other.
    [home.sessionId, other.sessionId, { id: other.runId }, browser] = await Promise.all([
      recordedSession(home.key, 1),
      recordedSession(other.key, 2),
      submit(other.key, { task: `Nothing to see ${tag}`, url: `${site.url}/` }),
      chromium.launch({ executablePath: '/usr/bin/chromium', args: ['--no-sandbox'] }),
    ]);
  });

  after(async () => {
    await browser?.close();
    await site?.close();
  });

  test('a person signs in on the page, sees their workspace, and signs out', { timeout: TEST_TIMEOUT_MS }, async () => {
    const { context, page, watch } = await person();
    await closing(context, watch, async () => {
      watch.provoke(401, /^\/console\/api\/session$/);
      await page.goto(`${fleet.gatewayUrl}/console/keys`);
      await page.waitForURL(/\/console\/sign-in/);
      // The page names the product, in its heading and the tab's title.
      await heading(page, 'Sign in to Web Access');
      assert.equal(await page.title(), 'Sign in · Web Access');
      await watch.check('the sign-in page');

      // A wrong password is refused in an alert, and the page stays.
      watch.provoke(401, /^\/console\/api\/session$/);
      await page.getByLabel('Email', { exact: true }).fill(OWNER);
      await page.getByLabel('Password', { exact: true }).fill('not the password');
      await page.getByRole('button', { name: 'Sign in', exact: true }).click();
      await page.getByRole('alert').filter({ hasText: /\S/ }).waitFor();
      assert.match(page.url(), /\/console\/sign-in/);
      await watch.check('the sign-in page after a wrong password');

      await page.getByLabel('Password', { exact: true }).fill(PASSWORD);
      await page.getByRole('button', { name: 'Sign in', exact: true }).click();
      const nav = page.getByRole('navigation', { name: 'Console' });
      await nav.waitFor();
      // Back where the person was going.
      await heading(page, 'API keys');
      assert.match(page.url(), /\/console\/keys$/);
      assert.equal(await page.title(), 'API keys · Web Access');
      await nav.getByRole('link', { name: 'Web Access', exact: true }).waitFor();
      await nav.getByText(home.name).first().waitFor();
      for (const link of ['Usage', 'Keys', 'Scrape', 'Sessions', 'Agent runs', 'Monitors', 'Profiles', 'Members'])
        assert.equal(await nav.getByRole('link', { name: link, exact: true }).count(), 1, `the link ${link}`);
      await watch.check('the first page after signing in');
      // Every page of the navigation opens on its heading, clean.
      for (const [link, h1] of [
        ['Keys', 'API keys'],
        ['Scrape', 'Scrape'],
        ['Sessions', 'Sessions'],
        ['Agent runs', 'Agent runs'],
        ['Monitors', 'Monitors'],
        ['Profiles', 'Profiles'],
        ['Members', 'Members'],
        ['Usage', 'Usage and credits'],
      ] as const) {
        await open(page, link, h1);
        await settled(page);
        await watch.check(`the ${h1} page`);
      }

      // A second tab of the same browser, left on a page while the first signs out.
      const second = await context.newPage();
      const secondWatch = new PageWatch(second);
      await second.goto(`${fleet.gatewayUrl}/console/sessions`);
      await heading(second, 'Sessions');
      const cookie = (await context.cookies()).find((c) => c.name === 'wap_session');
      assert.ok(cookie?.httpOnly, 'the session cookie is HttpOnly');
      await nav.getByRole('button', { name: 'Sign out', exact: true }).click();
      await page.waitForURL(/\/console\/sign-in/);
      // The cookie is dead on the server, not only dropped by the browser.
      const replayed = await call(fleet.gatewayUrl, 'GET', '/console/api/session', {
        headers: { cookie: `wap_session=${cookie.value}` },
      });
      assert.equal(replayed.status, 401, 'the signed-out session is refused');
      // The other tab's next call is refused, and sends it to sign in.
      secondWatch.provoke(401, /^\/console\/api\/keys$/);
      await second
        .getByRole('navigation', { name: 'Console' })
        .getByRole('link', { name: 'Keys', exact: true })
        .click();
      await second.waitForURL(/\/console\/sign-in/);
      await second.getByRole('button', { name: 'Sign in', exact: true }).waitFor();
      await secondWatch.check('the other tab, sent to sign in');
      secondWatch.assertNothingFound();
      // Signed out for good: a page of the console sends the person back to sign in.
      watch.provoke(401, /^\/console\/api\/session$/);
      await page.goto(`${fleet.gatewayUrl}/console/keys`);
      await page.waitForURL(/\/console\/sign-in/);
      await watch.check('the sign-in page after signing out');
      // The tab's icon: a browser asks for it on its own (the page's icon link, else /favicon.ico), at a time of its own.
      const icon = new URL(
        String(await page.evaluate("document.querySelector('link[rel~=icon]')?.href ?? '/favicon.ico'")),
        page.url(),
      );
      assert.equal((await fetch(icon)).status, 200, `the tab's icon ${icon.pathname} loads`);
    });
  });

  test('a key made on the Keys page works on the API, and stops the moment it is deleted', {
    timeout: TEST_TIMEOUT_MS,
  }, async () => {
    const { context, page, watch } = await signedIn();
    await closing(context, watch, async () => {
      await watch.check('the Usage page');
      await open(page, 'Keys', 'API keys');
      const name = `deploy-${tag}`;
      await page.getByRole('textbox', { name: 'Name', exact: true }).fill(name);
      for (const box of ['REST API', 'MCP server'])
        assert.equal(await page.getByRole('checkbox', { name: box }).isChecked(), true, `${box} is checked first`);
      await page.getByRole('button', { name: 'Create key', exact: true }).click();
      const shown = page.getByRole('textbox', { name: 'New key', exact: true });
      await shown.waitFor();
      const secret = await shown.inputValue();
      assert.match(secret, /^ock_/);
      assert.equal(await shown.isEditable(), false, 'the new key is read-only');
      await context.grantPermissions(['clipboard-read', 'clipboard-write']);
      await page.getByRole('button', { name: 'Copy', exact: true }).click();
      await page.getByRole('status').filter({ hasText: 'Copied' }).waitFor();
      assert.equal(await page.evaluate('navigator.clipboard.readText()'), secret, 'Copy puts the key on the clipboard');
      // The list shows the key's id (what comes before the dot), to copy as well.
      const keyId = secret.slice('ock_'.length, secret.indexOf('.'));
      await rowOf(page, 'API keys', keyId);
      await page.getByRole('button', { name: `Copy id of ${name}`, exact: true }).click();
      await page.getByRole('button', { name: `Copied id of ${name}`, exact: true }).waitFor();
      assert.equal(
        await page.evaluate('navigator.clipboard.readText()'),
        keyId,
        "Copy puts the key's id on the clipboard",
      );
      await watch.check('the Keys page with a new key');

      const credits = await call(fleet.gatewayUrl, 'GET', '/v1/credits', { key: secret });
      assert.equal(credits.status, 200, JSON.stringify(credits.body));

      // The dialog starts on Cancel (the safe choice): Enter there, or Escape, keeps the key; Delete key revokes it.
      const remove = page.getByRole('button', { name: `Delete ${name}`, exact: true });
      const dialog = page.getByRole('dialog');
      for (const key of ['Enter', 'Escape']) {
        await remove.click();
        await dialog.waitFor();
        assert.equal(
          await page.evaluate('document.activeElement?.textContent?.trim()'),
          'Cancel',
          'focus starts on Cancel',
        );
        await page.keyboard.press(key);
        await dialog.waitFor({ state: 'hidden' });
      }
      assert.equal((await call(fleet.gatewayUrl, 'GET', '/v1/credits', { key: secret })).status, 200);
      await remove.click();
      await dialog.waitFor();
      await dialog.getByRole('button', { name: 'Delete key', exact: true }).click();
      await remove.waitFor({ state: 'detached' });
      const after = await call(fleet.gatewayUrl, 'GET', '/v1/credits', { key: secret });
      assert.equal(after.status, 401, `the deleted key is refused at once: ${JSON.stringify(after.body)}`);
      await watch.check('the Keys page after deleting a key');
    });
  });

  test('a profile made on the Profiles page shows its id, and Copy puts it on the clipboard', {
    timeout: TEST_TIMEOUT_MS,
  }, async () => {
    const { context, page, watch } = await signedIn();
    await closing(context, watch, async () => {
      await context.grantPermissions(['clipboard-read', 'clipboard-write']);
      await open(page, 'Profiles', 'Profiles');
      const label = `login-${tag}`;
      await page.getByRole('textbox', { name: 'Name', exact: true }).fill(label);
      await page.getByRole('button', { name: 'Create profile', exact: true }).click();
      await rowOf(page, 'Profiles', label);
      const listed = await call<{ profiles: { id: string }[] }>(
        fleet.gatewayUrl,
        'GET',
        `/v1/profiles?label=${label}`,
        {
          key: home.key,
        },
      );
      const id = listed.body.profiles[0]?.id;
      assert.ok(id, JSON.stringify(listed.body));
      await rowOf(page, 'Profiles', id);
      await page.getByRole('button', { name: `Copy id of ${label}`, exact: true }).click();
      // Said on the button and read out.
      await page.getByRole('button', { name: `Copied id of ${label}`, exact: true }).waitFor();
      await page.getByRole('status').filter({ hasText: 'Copied to the clipboard.' }).waitFor();
      assert.equal(
        await page.evaluate('navigator.clipboard.readText()'),
        id,
        "Copy puts the profile's id on the clipboard",
      );
      await watch.check('the Profiles page with a profile copied');
    });
  });

  test('a scrape shows in Usage: a recent call with its credits, fewer credits available', {
    timeout: TEST_TIMEOUT_MS,
  }, async () => {
    const { context, page, watch } = await signedIn();
    await closing(context, watch, async () => {
      const available = async () => {
        await page.getByText('Available', { exact: true }).waitFor();
        const text = (await page.getByRole('main').textContent()) ?? '';
        const m = /Available\s*([\d,.]+)/.exec(text);
        assert.ok(m, `the Usage page says what is available: ${text.slice(0, 400)}`);
        return creditsIn(m[1] as string);
      };
      await loaded(page, 'Recent calls');
      const before = await available();
      await watch.check('the Usage page');

      const requestId = `console-e2e-${tag}`;
      const r = await call<{ usage: { credits: number } }>(fleet.gatewayUrl, 'POST', '/v1/scrape', {
        key: home.key,
        body: { url: `${site.url}/articles/3`, engine: 'fetch', formats: ['markdown'] },
        headers: { 'x-request-id': requestId },
      });
      assert.equal(r.status, 200, JSON.stringify(r.body));
      assert.equal(r.body.usage.credits, 1);

      // The gateway's view of the balance follows the ledger's announcement: the page is read once it did.
      await until(
        'the balance to show the scrape',
        async () => (await availableCredits(fleet.gatewayUrl, home.key)) === before - 1,
      );
      await page.reload();
      await heading(page, 'Usage and credits');
      const row = await rowOf(page, 'Recent calls', requestId);
      const cells = (await row.getByRole('cell').allInnerTexts()).map((c) => c.trim());
      assert.ok(cells.includes('scrape'), `the row names its capability: ${cells}`);
      assert.ok(
        cells.some((c) => creditsIn(c) === 1 && /^\d/.test(c)),
        `the row shows its credit: ${cells}`,
      );
      assert.equal(await available(), before - 1, 'one credit less available');
      // The console has no page of a scrape: its request id is plain text, to copy and quote.
      assert.equal(await row.getByRole('link').count(), 0, "a scrape's row links nowhere");
      await context.grantPermissions(['clipboard-read', 'clipboard-write']);
      await row.getByRole('button', { name: `Copy request id ${requestId}`, exact: true }).click();
      await row.getByRole('button', { name: `Copied request id ${requestId}`, exact: true }).waitFor();
      assert.equal(await page.evaluate('navigator.clipboard.readText()'), requestId, 'Copy puts the request id there');
      // The chart of credits per day, named for a screen reader.
      await page
        .getByRole('img', { name: /^Credits per day/ })
        .first()
        .waitFor();
      await watch.check('the Usage page after a scrape');
    });
  });

  test('a list that could not be loaded says so, and Try again loads it', { timeout: TEST_TIMEOUT_MS }, async () => {
    const { context, page, watch } = await signedIn();
    await closing(context, watch, async () => {
      // Each page's first ask for its list fails before any answer, as when the network drops for a moment.
      for (const [link, h1, caption, path, shown] of [
        ['Keys', 'API keys', 'API keys', /^\/console\/api\/keys$/, 'fixtures'],
        ['Sessions', 'Sessions', 'Sessions', /^\/v1\/sessions$/, home.sessionId],
        ['Usage', 'Usage and credits', 'Recent calls', /^\/v1\/usage\/calls$/, 'scrape'],
      ] as const) {
        watch.provoke('network', path);
        await page.route(
          (url) => path.test(url.pathname),
          (route) => route.abort(),
          { times: 1 },
        );
        await open(page, link, h1);
        const alert = page.getByRole('alert').filter({ hasText: 'could not reach the server' });
        await alert.waitFor();
        await rowOf(page, caption, 'Not loaded');
        await watch.check(`the ${h1} page that could not load`);

        await alert.getByRole('button', { name: 'Try again', exact: true }).click();
        await rowOf(page, caption, shown);
        await alert.waitFor({ state: 'detached' });
        assert.equal(
          await page.evaluate('document.activeElement?.tagName'),
          'H1',
          'focus leaves the gone button for the heading',
        );
        await watch.check(`the ${h1} page loaded on a second try`);
      }
    });
  });

  test('a recorded session opens from the Sessions page and its replay plays', {
    timeout: TEST_TIMEOUT_MS,
  }, async () => {
    const { context, page, watch } = await signedIn();
    await closing(context, watch, async () => {
      await open(page, 'Sessions', 'Sessions');
      const row = await rowOf(page, 'Sessions', home.sessionId);
      await context.grantPermissions(['clipboard-read', 'clipboard-write']);
      await row.getByRole('button', { name: `Copy session id ${home.sessionId}`, exact: true }).click();
      await row.getByRole('button', { name: `Copied session id ${home.sessionId}`, exact: true }).waitFor();
      assert.equal(
        await page.evaluate('navigator.clipboard.readText()'),
        home.sessionId,
        "a row's Copy puts its session's id on the clipboard",
      );
      await watch.check('the Sessions page');
      await page
        .getByRole('table', { name: 'Sessions' })
        .getByRole('link', { name: home.sessionId, exact: true })
        .click();
      await heading(page, `Session ${home.sessionId}`);
      assert.match(page.url(), new RegExp(`/console/sessions/${home.sessionId}$`));

      const replay = page.getByTitle('Replay', { exact: true });
      await replay.waitFor();
      const inside = replay.contentFrame();
      await inside.getByRole('heading', { name: `Session ${home.sessionId}` }).waitFor();
      const pageUrl = `${site.url}/articles/1`;
      // The player is up once the recording loaded: its timeline lists the page.
      await inside.getByRole('button', { name: pageUrl, exact: true }).waitFor({ timeout: 20_000 });
      assert.equal(await inside.getByText('The recording could not be loaded', { exact: false }).count(), 0);
      const frame = await (await replay.elementHandle())?.contentFrame();
      assert.ok(frame, 'the replay frame');
      // Polled from here (CDP evaluates past the page's CSP; waitForFunction would eval inside it and be
      // refused whenever its first look is not already true).
      const holds = (expression: string) => async () => (await frame.evaluate(expression)) === true;
      await until('the player is up', holds('window.wapReplay !== undefined'));
      await frame.evaluate('void window.wapReplay.player.play()');
      await until('the replay plays', holds('window.wapReplay.player.getReplayer().getCurrentTime() > 0'));
      await frame.evaluate('window.wapReplay.toEnd()');
      // What the page showed is in the player's own frame.
      await inside.frameLocator('iframe').getByText(site.article(1).title).first().waitFor();

      // The network log holds the page, and its filter narrows it down.
      await rowOf(page, 'Network log', pageUrl);
      const filter = page.getByLabel('URL contains', { exact: true });
      await filter.fill(`/nothing-like-this-${tag}`);
      await rowOf(page, 'Network log', 'No requests match.');
      await filter.fill('/articles/1');
      await rowOf(page, 'Network log', pageUrl);
      // The recorded page in the player's own frame is the test site's, not ours: only the console and the player are checked.
      // Nor can axe run in the player's frame (sandboxed, no scripts): it is left out.
      await watch.check('a session page with its replay', [['iframe[title="Replay"]', 'iframe']]);
    });
  });

  test('a run paused with a question is answered on its page and goes on', { timeout: TEST_TIMEOUT_MS }, async () => {
    const task = `Pick a colour ${tag}`;
    scripts.set(task, asking('Which colour do you like?'));
    const { id } = await submit(home.key, { task, url: `${site.url}/` });
    await waitRun(id, (r) => r.pausedFor === 'question', 'paused with its question');

    const { context, page, watch } = await signedIn();
    await closing(context, watch, async () => {
      await open(page, 'Agent runs', 'Agent runs');
      await context.grantPermissions(['clipboard-read', 'clipboard-write']);
      // Each row has a Copy of its own, named by its run.
      const listed = await rowOf(page, 'Agent runs', id);
      await listed.getByRole('button', { name: `Copy run id ${id}`, exact: true }).click();
      await listed.getByRole('button', { name: `Copied run id ${id}`, exact: true }).waitFor();
      assert.equal(await page.evaluate('navigator.clipboard.readText()'), id, "a row's Copy puts its run's id there");
      await page
        .getByRole('table', { name: 'Agent runs' })
        .getByRole('link', { name: new RegExp(id.slice(0, 8)) })
        .click();
      await heading(page, `Run ${id}`);
      await page.getByRole('button', { name: 'Copy run id', exact: true }).click();
      await page.getByRole('button', { name: 'Copied run id', exact: true }).waitFor();
      assert.equal(
        await page.evaluate('navigator.clipboard.readText()'),
        id,
        "Copy puts the run's id on the clipboard",
      );
      await page.getByText('Which colour do you like?').first().waitFor();
      const events = page.getByRole('list', { name: 'Events' }).getByRole('listitem');
      await events.first().waitFor();
      const seen = await events.count();
      await watch.check('a run paused with a question', RECORDED_PAGE);

      await page.getByRole('textbox', { name: 'Answer', exact: true }).fill('teal');
      await page.getByRole('button', { name: 'Send answer', exact: true }).click();
      const run = await waitRun(id, (r) => r.status === 'settled', 'settled after the answer');
      assert.deepEqual([run.outcome, run.answer], ['completed', 'got: teal']);
      // The page follows the run on its own: more events, and the question gone.
      await events.nth(seen).waitFor();
      await page.getByRole('textbox', { name: 'Answer', exact: true }).waitFor({ state: 'detached' });
      await page.getByText('got: teal').first().waitFor();
      await watch.check('a run answered', RECORDED_PAGE);

      // The run's call in Usage leads to the run's page.
      await until('the run to be listed among the calls', async () => {
        const calls = await call<{ calls: { reference: string }[] }>(fleet.gatewayUrl, 'GET', '/v1/usage/calls', {
          key: home.key,
        });
        return calls.body.calls.some((c) => c.reference === id);
      });
      await open(page, 'Usage', 'Usage and credits');
      const row = await rowOf(page, 'Recent calls', id);
      await row.getByRole('link', { name: id, exact: true }).click();
      await heading(page, `Run ${id}`);
      await watch.check("a run's page opened from its call", RECORDED_PAGE);
    });
  });

  test('a person takes control of a running run in the Control frame and hands it back', {
    timeout: TEST_TIMEOUT_MS,
  }, async () => {
    const task = `Wait for a person ${tag}`;
    scripts.set(task, (prompt) =>
      prompt.includes('A person drove the browser')
        ? step([{ action: 'finish', success: true, answer: 'handed back' }])
        : modelReply.stall(),
    );
    const { id } = await submit(home.key, { task, url: `${site.url}/articles/2` });
    await until('the model to be asked', async () => model.requests.some((r) => promptOf(r).includes(`Task: ${task}`)));

    const { context, page, watch } = await signedIn();
    await closing(context, watch, async () => {
      await page.goto(`${fleet.gatewayUrl}/console/runs/${id}`);
      await heading(page, `Run ${id}`);
      await page.getByRole('button', { name: 'Take control', exact: true }).click();
      const control = page.getByTitle('Control', { exact: true });
      await control.waitFor();
      const inside = control.contentFrame();
      await inside.getByRole('heading', { name: 'Browser control' }).waitFor();
      await inside
        .getByRole('status')
        .filter({ hasText: 'You are driving this browser.' })
        .waitFor({ timeout: 20_000 });
      assert.equal((await runOf(id)).pausedFor, 'control');
      await watch.check('a run under a person’s control', RECORDED_PAGE);

      await page.getByRole('button', { name: 'Hand back', exact: true }).click();
      await control.waitFor({ state: 'detached' });
      await page.getByRole('status').filter({ hasText: 'Handed back' }).waitFor();
      const run = await waitRun(id, (r) => r.status === 'settled', 'settled after it was handed back');
      assert.deepEqual([run.outcome, run.answer], ['completed', 'handed back']);
      await watch.check('a run handed back', RECORDED_PAGE);
    });
  });

  test('a member who is not an owner sees the members but no way to change them', {
    timeout: TEST_TIMEOUT_MS,
  }, async () => {
    // What an owner has on the page, so that its absence below means something.
    const owner = await signedIn(OWNER);
    await closing(owner.context, owner.watch, async () => {
      await open(owner.page, 'Members', 'Members');
      await rowOf(owner.page, 'Members', MEMBER);
      await owner.page.getByRole('textbox', { name: 'Email', exact: true }).waitFor();
      await owner.page.getByRole('combobox', { name: 'Role', exact: true }).waitFor();
      await owner.page.getByRole('button', { name: 'Add member', exact: true }).waitFor();
      await owner.page.getByRole('button', { name: `Remove ${MEMBER}`, exact: true }).waitFor();
      await owner.watch.check('the Members page of an owner');
    });

    const { context, page, watch } = await signedIn(MEMBER);
    await closing(context, watch, async () => {
      await open(page, 'Members', 'Members');
      await rowOf(page, 'Members', OWNER);
      await rowOf(page, 'Members', MEMBER);
      await page
        .getByText(/only owners/i)
        .first()
        .waitFor();
      assert.equal(await page.getByRole('textbox', { name: 'Email' }).count(), 0, 'no member form');
      assert.equal(await page.getByRole('combobox', { name: 'Role' }).count(), 0, 'no role to pick');
      assert.equal(await page.getByRole('button', { name: 'Add member' }).count(), 0, 'no Add member');
      assert.equal(await page.getByRole('button', { name: /^Remove / }).count(), 0, 'no Remove buttons');
      await watch.check('the Members page of a member');
    });
  });

  test("one workspace's console shows nothing of another's: keys, sessions, runs", {
    timeout: TEST_TIMEOUT_MS,
  }, async () => {
    const { context, page, watch } = await signedIn();
    await closing(context, watch, async () => {
      const shown = await shownOf(page, 'fixtures');
      assert.ok(
        shown.sessions.some((r) => r.includes(home.sessionId)),
        'its own session is listed',
      );
      assert.deepEqual(elsewhere(shown), [], 'nothing of the other workspace');
      assert.ok(!(await page.content()).includes(other.sessionId), 'no trace of the other session in the page');
      await watch.check('the pages of the first workspace');

      // The other's session at its own address: a refusal, not the session.
      watch.provoke(404, new RegExp(`/${other.sessionId}`));
      await page.goto(`${fleet.gatewayUrl}/console/sessions/${other.sessionId}`);
      await page.getByRole('alert').filter({ hasText: /\S/ }).waitFor();
      assert.equal(await page.getByTitle('Replay', { exact: true }).count(), 0, 'no replay of the other');
      await watch.check("another workspace's session page");
    });
  });

  test('a person in both workspaces sees each one alone, switching between them', {
    timeout: TEST_TIMEOUT_MS,
  }, async () => {
    const { context, page, watch } = await signedIn(BOTH);
    await closing(context, watch, async () => {
      const workspace = page.getByRole('navigation', { name: 'Console' }).getByRole('combobox', { name: 'Workspace' });
      await workspace.selectOption({ label: home.name });
      const first = await shownOf(page, 'fixtures');
      assert.deepEqual(elsewhere(first), [], 'nothing of the other workspace');
      await watch.check('the pages of the first workspace, switched to');

      // The same pages of the other workspace show its things, and none of the first's.
      await workspace.selectOption({ label: other.name });
      const second = await shownOf(page, OTHER_KEY_NAME);
      assert.ok(
        second.sessions.some((r) => r.includes(other.sessionId)),
        'its session is listed',
      );
      assert.ok(
        second.runs.some((r) => r.includes(other.runId)),
        'its run is listed',
      );
      assert.ok(!second.keys.some((r) => r.includes('fixtures')), 'no key of the first');
      assert.ok(!second.sessions.some((r) => r.includes(home.sessionId)), 'no session of the first');
      await watch.check('the pages of the second workspace');
    });
  });

  // After the scrape's test: the monitor's checks spend the workspace's credits.
  test('a monitor made through the API shows its id on the Monitors page, and Copy puts it on the clipboard', {
    timeout: TEST_TIMEOUT_MS,
  }, async () => {
    const url = `${site.url}/articles/4`;
    const made = await call<{ monitor: { id: string } }>(fleet.gatewayUrl, 'POST', '/v1/monitors', {
      key: home.key,
      body: { url, schedule: { every: '1h' }, notify: { webhook: 'https://example.com/hooks/monitor' } },
    });
    assert.equal(made.status, 200, JSON.stringify(made.body));
    const { id } = made.body.monitor;

    const { context, page, watch } = await signedIn();
    await closing(context, watch, async () => {
      await context.grantPermissions(['clipboard-read', 'clipboard-write']);
      await open(page, 'Monitors', 'Monitors');
      // The id its checks are listed by in Usage: shortened on screen, whole in its tooltip.
      const row = await rowOf(page, 'Monitors', id);
      await row.getByTitle(id, { exact: true }).waitFor();
      await row.getByRole('button', { name: `Copy id of ${url}`, exact: true }).click();
      await row.getByRole('button', { name: `Copied id of ${url}`, exact: true }).waitFor();
      assert.equal(await page.evaluate('navigator.clipboard.readText()'), id, "Copy puts the monitor's id there");
      await watch.check('the Monitors page with a monitor copied');
    });
  });

  test('on a phone, the pages fit the screen: only tables scroll sideways', { timeout: TEST_TIMEOUT_MS }, async () => {
    const { context, page, watch } = await signedIn(OWNER, { width: 390, height: 844 });
    await closing(context, watch, async () => {
      const calls = await loaded(page, 'Recent calls');
      // Each call fits the screen, its credits in view without scrolling the table sideways.
      const width = page.viewportSize()?.width ?? 0;
      const inView = (box: { x: number; width: number } | null) => !!box && box.x >= 0 && box.x + box.width <= width;
      const columns = (await calls.getByRole('columnheader').allInnerTexts()).map((h) => h.trim());
      assert.ok(columns.includes('Credits'), `a Credits column: ${columns}`);
      const scrape = await rowOf(page, 'Recent calls', 'scrape');
      const credits = scrape.getByRole('cell').nth(columns.indexOf('Credits'));
      assert.match((await credits.textContent()) ?? '', /\d/, 'the Credits cell says a number');
      const box = await credits.boundingBox();
      assert.ok(inView(box), `the Credits cell lies within ${width} px: ${JSON.stringify(box)}`);
      assert.ok(inView(await calls.boundingBox()), 'the Recent calls table is no wider than the phone');
      await watch.checkFits('the Usage page on a phone');
      await watch.check('the Usage page on a phone');
      // Straight to each address: on a phone the navigation may fold into a menu.
      for (const [route, h1, caption] of [
        ['keys', 'API keys', 'API keys'],
        ['sessions', 'Sessions', 'Sessions'],
        ['runs', 'Agent runs', 'Agent runs'],
        ['monitors', 'Monitors', 'Monitors'],
        [`sessions/${home.sessionId}`, `Session ${home.sessionId}`, 'Network log'],
      ] as [string, string, string][]) {
        await page.goto(`${fleet.gatewayUrl}/console/${route}`);
        await heading(page, h1);
        await loaded(page, caption);
        await watch.checkFits(`the ${h1} page on a phone`);
        // The player framed in a session's page is checked by the replay test, not once more here.
        await watch.check(`the ${h1} page on a phone`, ['iframe[title="Replay"]']);
      }
    });
  });
});
