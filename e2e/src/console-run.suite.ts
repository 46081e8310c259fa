// Starting an agent run from the console (docs/console.md, "Agent runs"), in a real Chromium
// against the browsers fleet: a person fills the form on the Agent runs page, the run is made
// through the public API with what they typed, and the console opens the run's page, which
// follows it (its events, its browser's live view, then its answer). What the API refuses is
// said on the form with its message, and nothing is started. Only the accessible names of the
// console's contract are used, never its markup.
import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { after, before, describe, test } from 'node:test';
import { until } from '@wap/testkit';
import { startTestSite, type TestSite } from '@wap/testsite';
import { type Browser, chromium, type Page } from 'playwright-core';
import { call } from './api.js';
import { heading, open, PageWatch, RECORDED_PAGE, signIn, workspaceWithOwner } from './console-page.js';
import { type ScriptedModel, step } from './scripted-agent.js';
import { fleet, scripted, sharedFleet } from './shared-fleet.js';

const PASSWORD = 'correct horse battery staple';
const TEST_TIMEOUT_MS = 240_000;
const tag = randomBytes(3).toString('hex');
const OWNER = `run-owner-${tag}@example.test`;

let site: TestSite;
let scripts: ScriptedModel['scripts'];
let browser: Browser;
const home = { name: `console-run-${tag}`, key: '' };

interface Run {
  id: string;
  task: string;
  url: string | null;
  model: string;
  maxSteps: number;
  maxCredits: number;
  status: string;
  outcome: string | null;
  answer: unknown;
  sessionId: string | null;
}

const runOf = async (id: string) =>
  (await call<{ run: Run }>(fleet.gatewayUrl, 'GET', `/v1/agent/${id}`, { key: home.key })).body.run;

/** The workspace's runs of `task`, through the API. */
const runsOf = async (task: string) =>
  (await call<{ runs: Run[] }>(fleet.gatewayUrl, 'GET', '/v1/agent?limit=100', { key: home.key })).body.runs.filter(
    (r) => r.task === task,
  );

/** A person signed in on the Agent runs page, and what their page shows wrong. */
async function onRunsPage() {
  const context = await browser.newContext({ viewport: { width: 1280, height: 900 } });
  const page = await context.newPage();
  const watch = new PageWatch(page);
  await signIn(page, watch, `${fleet.gatewayUrl}/console/`, OWNER, PASSWORD);
  await heading(page, 'Usage and credits');
  await open(page, 'Agent runs', 'Agent runs');
  return { context, page, watch };
}

/** Fills the form as a person does, field by field, by their labels. */
async function fill(
  page: Page,
  fields: { task: string; url?: string; model?: string; steps?: string; credits?: string },
) {
  const form = page.getByRole('region', { name: 'Start a run' });
  await form.getByRole('textbox', { name: 'Task', exact: true }).fill(fields.task);
  if (fields.url) await form.getByRole('textbox', { name: 'Start URL', exact: true }).fill(fields.url);
  if (fields.model) await form.getByRole('combobox', { name: 'Model', exact: true }).fill(fields.model);
  if (fields.steps) await form.getByRole('spinbutton', { name: 'Step cap', exact: true }).fill(fields.steps);
  if (fields.credits)
    await form.getByRole('spinbutton', { name: 'Spend cap (credits)', exact: true }).fill(fields.credits);
  return form;
}

describe('starting a run from the console', () => {
  before(async () => {
    [site] = await Promise.all([startTestSite({ pages: 3, extras: false }), sharedFleet('browsers')]);
    ({ scripts } = scripted);
    home.key = await workspaceWithOwner(fleet.admin.bind(fleet), home.name, OWNER, PASSWORD);
    browser = await chromium.launch({ executablePath: '/usr/bin/chromium', args: ['--no-sandbox'] });
  });

  after(async () => {
    await browser?.close();
    await site?.close();
  });

  test("a run started from the form is the API's run, and its page follows it to its answer", {
    timeout: TEST_TIMEOUT_MS,
  }, async () => {
    const task = `Read the first article ${tag}`;
    const article = `${site.url}/articles/1`;
    // The run opens the article, then waits at its next step until the test has seen it live.
    let go = () => {};
    const held = new Promise<void>((resolve) => {
      go = resolve;
    });
    scripts.set(task, async (prompt) => {
      if (!prompt.includes(`Page: ${article}`))
        return step([{ action: 'navigate', url: article }], ['Open the first article', 'Say its title']);
      await held;
      return step([{ action: 'finish', success: true, answer: `read: ${site.article(1).title}` }]);
    });

    const { context, page, watch } = await onRunsPage();
    try {
      const form = await fill(page, { task, url: `${site.url}/`, model: 'scripted', steps: '7', credits: '30' });
      await watch.check('the Agent runs page with its form filled');
      // The session-recorder hears of the run's session a moment after the run names it (through
      // the SESSIONS stream); on a busy machine the page may ask before, get not_found, and ask again.
      watch.provoke(404, /^\/v1\/sessions\/[0-9a-f-]{36}$/);
      await form.getByRole('button', { name: 'Start run', exact: true }).click();

      // The console opens the new run's page.
      await page.waitForURL(/\/console\/runs\/[0-9a-f-]{36}$/);
      const id = decodeURIComponent(new URL(page.url()).pathname.split('/').pop() as string);
      await heading(page, `Run ${id}`);
      // The run is the API's, with what the person typed.
      const made = await runOf(id);
      assert.deepEqual(
        [made.task, made.url, made.model, made.maxSteps, made.maxCredits],
        [task, `${site.url}/`, 'scripted', 7, 30],
      );
      assert.deepEqual(
        (await runsOf(task)).map((r) => r.id),
        [id],
        'one run of the task in the workspace',
      );
      await page.getByText(task, { exact: true }).first().waitFor();

      // Its events come as it goes, and its browser shows live while it works.
      const events = page.getByRole('list', { name: 'Events' });
      await events.getByText(`navigate ${article}`).first().waitFor({ timeout: 60_000 });
      await until('the run to wait at its next step', async () => (await runOf(id)).sessionId !== null, 60_000);
      const live = page.getByTitle('Live view', { exact: true });
      await live.waitFor({ timeout: 60_000 });
      assert.ok(
        (await live.getAttribute('src'))?.startsWith(`${fleet.gatewayUrl}/replay/`),
        "the frame is the gateway's replay page",
      );
      assert.equal((await runOf(id)).status, 'running', 'live while the run is running');
      // The recorded page in the frame is the test site's, not the console's: the rest is checked.
      await watch.check('a run page while the run is live', RECORDED_PAGE);

      go();
      await until('the run to settle', async () => (await runOf(id)).status === 'settled', 60_000);
      const done = await runOf(id);
      assert.deepEqual([done.outcome, done.answer], ['completed', `read: ${site.article(1).title}`]);
      // The page follows on its own: the answer, and the browser's replay once its session ended.
      await page.getByRole('heading', { name: 'Answer', exact: true }).waitFor({ timeout: 30_000 });
      await page
        .getByText(`read: ${site.article(1).title}`)
        .first()
        .waitFor();
      await page.getByRole('heading', { name: 'Replay', exact: true }).waitFor({ timeout: 30_000 });
      // How its model was asked, and what its steps cost the model, as the run's events say.
      const terms = await page.getByRole('term').allTextContents();
      const values = await page.getByRole('definition').allTextContents();
      const fact = (name: string) => values[terms.indexOf(name)];
      assert.equal(fact('Step profile'), 'full');
      assert.match(fact('Model tokens') ?? '', /^[\d,]+ in, [\d,]+ out over 2 steps$/);
      assert.equal(await events.getByText(/\(\d[\d,]* in, \d+ out\)/).count(), 2, 'each step says its tokens');
      await watch.check('a run page once the run settled', RECORDED_PAGE);
    } finally {
      go();
      await context.close();
    }
    watch.assertNothingFound();
  });

  test('what the API refuses is said on the form with its message, and nothing is started', {
    timeout: TEST_TIMEOUT_MS,
  }, async () => {
    const { context, page, watch } = await onRunsPage();
    try {
      const task = `Nowhere ${tag}`;
      // A model the deployment does not serve: the API names those it does.
      watch.provoke(400, /^\/v1\/agent$/);
      const form = await fill(page, { task, url: `${site.url}/`, model: `gpt-nowhere-${tag}` });
      await form.getByRole('button', { name: 'Start run', exact: true }).click();
      const alert = page.getByRole('alert').filter({ hasText: 'model: not a model of this deployment' });
      await alert.waitFor();
      assert.match((await alert.textContent()) ?? '', /scripted/, 'the alert names the models served');
      assert.match(page.url(), /\/console\/runs$/, 'the page stays');
      await watch.check('the form refused a model');

      // A start page on an address the deployment may not reach.
      watch.provoke(422, /^\/v1\/agent$/);
      await fill(page, { task, url: 'http://10.0.0.1/', model: 'scripted' });
      await form.getByRole('button', { name: 'Start run', exact: true }).click();
      await page.getByRole('alert').filter({ hasText: 'The target page could not be reached.' }).waitFor();
      assert.match(page.url(), /\/console\/runs$/);
      await watch.check('the form refused a start page');

      // The browser's own checks hold too: no task, no request.
      await form.getByRole('textbox', { name: 'Task', exact: true }).fill('');
      await form.getByRole('button', { name: 'Start run', exact: true }).click();
      assert.equal(
        await form
          .getByRole('textbox', { name: 'Task', exact: true })
          .evaluate((el) => (el as unknown as { validity: { valueMissing: boolean } }).validity.valueMissing),
        true,
      );
      assert.deepEqual(await runsOf(task), [], 'no run was started');
      await watch.check('the form with no task');
    } finally {
      await context.close();
    }
    watch.assertNothingFound();
  });
});
