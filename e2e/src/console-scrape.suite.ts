// The console's scrape playground (docs/console.md, "Scrape"), in a real Chromium against the
// browsers fleet: a person gives a URL, formats and a JSON schema; the page shows the answer
// beside the page as rendered, with the credits the API billed for it; and the request as curl,
// TypeScript and Python code, each of which, run as written with only SERVICE_API_KEY set,
// makes the same call. A schema that is not JSON is said before anything is sent; what the API
// refuses is said with its message. Only the accessible names of the console are used.
import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { mkdirSync, mkdtempSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { after, before, describe, test } from 'node:test';
import { promisify } from 'node:util';
import { until } from '@wap/testkit';
import { startTestSite, type TestSite } from '@wap/testsite';
import { type Browser, chromium, type Page } from 'playwright-core';
import { call } from './api.js';
import { heading, open, PageWatch, signIn, workspaceWithOwner } from './console-page.js';
import { fleet, scripted, sharedFleet } from './shared-fleet.js';

const run = promisify(execFile);
const ROOT = path.resolve(__dirname, '../..');
const PYTHON = path.join(ROOT, '.tools/python-sdk/bin/python');
const PASSWORD = 'correct horse battery staple';
const TEST_TIMEOUT_MS = 240_000;
const tag = randomBytes(3).toString('hex');
const OWNER = `scrape-owner-${tag}@example.test`;
const SCHEMA = JSON.stringify({
  type: 'object',
  properties: { title: { type: 'string' }, author: { type: 'string' } },
});

let site: TestSite;
let browser: Browser;
const home = { name: `console-scrape-${tag}`, key: '' };

interface Call {
  capability: string;
  usage: { credits: number };
}
/** The workspace's billed calls, newest first. */
const callsOf = async () =>
  (await call<{ calls: Call[] }>(fleet.gatewayUrl, 'GET', '/v1/usage/calls', { key: home.key })).body.calls;

async function onScrapePage() {
  const context = await browser.newContext({ viewport: { width: 1280, height: 900 } });
  const page = await context.newPage();
  const watch = new PageWatch(page);
  await signIn(page, watch, `${fleet.gatewayUrl}/console/`, OWNER, PASSWORD);
  await heading(page, 'Usage and credits');
  await open(page, 'Scrape', 'Scrape');
  return { context, page, watch };
}

const request = (page: Page) => page.getByRole('region', { name: 'Request' });
/** The text of one titled output (a format of the answer, or a snippet of code). */
const output = async (page: Page, title: string) =>
  (await page.getByRole('region', { name: title, exact: true }).locator('pre').textContent()) ?? '';

describe('the scrape playground', () => {
  before(async () => {
    [site] = await Promise.all([startTestSite({ pages: 3, extras: false }), sharedFleet('browsers')]);
    home.key = await workspaceWithOwner(fleet.admin.bind(fleet), home.name, OWNER, PASSWORD);
    browser = await chromium.launch({ executablePath: '/usr/bin/chromium', args: ['--no-sandbox'] });
  });

  after(async () => {
    scripted?.pages.delete(`${site?.url}/articles/1`);
    await browser?.close();
    await site?.close();
  });

  test('a page with a schema: the answer beside the page as rendered, its cost, and code that makes the same call', {
    timeout: TEST_TIMEOUT_MS,
  }, async () => {
    const article = `${site.url}/articles/1`;
    const { title } = site.article(1);
    // The deployment's model (the fleet's scripted endpoint) fills the schema from the page.
    scripted.pages.set(article, (format) => (format === 'summary' ? { summary: title } : { title, author: null }));
    const { context, page, watch } = await onScrapePage();
    try {
      const form = request(page);
      await form.getByRole('textbox', { name: 'URL', exact: true }).fill(article);
      await form.getByRole('checkbox', { name: /^JSON/ }).check();
      await form.getByRole('textbox', { name: 'JSON schema', exact: true }).fill(SCHEMA);
      await form.getByRole('button', { name: 'Scrape', exact: true }).click();

      await page.getByRole('heading', { name: 'Answer', exact: true }).waitFor({ timeout: 120_000 });
      assert.deepEqual(JSON.parse(await output(page, 'JSON')), { title, author: null });
      assert.ok((await output(page, 'Markdown')).includes(`# ${title}`), 'the markdown has the title');
      const shot = page.getByRole('img', { name: 'The page as rendered' });
      assert.match((await shot.getAttribute('src')) ?? '', /^data:image\/png;base64,/);
      assert.ok(((await shot.boundingBox())?.width ?? 0) > 100, 'the page is shown');
      // What it cost is what the API billed for the call.
      await until('the scrape listed among the calls', async () => (await callsOf()).length === 1, 30_000);
      const [billed] = await callsOf();
      assert.equal(billed?.capability, 'scrape');
      const facts = await page.getByRole('term').allTextContents();
      const values = await page.getByRole('definition').allTextContents();
      assert.equal(Number(values[facts.indexOf('Credits')]), billed?.usage.credits);
      assert.equal(values[facts.indexOf('Engine')], 'browser', 'a screenshot renders the page');
      await watch.check('the playground with its answer');

      // Each snippet, as written, makes the same call with only the key from the environment.
      const env = { ...process.env, SERVICE_API_KEY: home.key, SERVICE_BASE_URL: '' };
      const curl = await run('bash', ['-c', await output(page, 'curl')], { env });
      const answered = JSON.parse(curl.stdout) as { success: boolean; data: { json: unknown } };
      assert.deepEqual([answered.success, answered.data.json], [true, { title, author: null }]);

      const dir = mkdtempSync(path.join(tmpdir(), 'wap-playground-'));
      mkdirSync(path.join(dir, 'node_modules/@web-access'), { recursive: true });
      symlinkSync(path.join(ROOT, 'clients/typescript'), path.join(dir, 'node_modules/@web-access/sdk'));
      writeFileSync(path.join(dir, 'scrape.mjs'), await output(page, 'TypeScript'));
      const ts = await run(process.execPath, [path.join(dir, 'scrape.mjs')], { env, cwd: dir });
      assert.ok(ts.stdout.includes(title), ts.stdout);

      const py = await run(PYTHON, ['-c', await output(page, 'Python')], {
        env: { ...env, PYTHONPATH: path.join(ROOT, 'clients/python/src'), XDG_CONFIG_HOME: dir },
      });
      assert.ok(py.stdout.includes(title), py.stdout);
      // The page and the three snippets' calls, each billed once.
      await until('four calls billed', async () => (await callsOf()).length === 4, 30_000);
    } finally {
      await context.close();
    }
    watch.assertNothingFound();
  });

  test('a schema that is not JSON is said before anything is sent; what the API refuses, with its message', {
    timeout: TEST_TIMEOUT_MS,
  }, async () => {
    const { context, page, watch } = await onScrapePage();
    try {
      const before = (await callsOf()).length;
      const form = request(page);
      await form.getByRole('textbox', { name: 'URL', exact: true }).fill(`${site.url}/articles/2`);
      await form.getByRole('checkbox', { name: /^JSON/ }).check();
      await form.getByRole('textbox', { name: 'JSON schema', exact: true }).fill('{"type": "object",');
      await form.getByRole('button', { name: 'Scrape', exact: true }).click();
      await page.getByRole('alert').filter({ hasText: 'The schema is not JSON' }).waitFor();
      await watch.check('a schema that is not JSON');

      // A page on an address the deployment may not reach.
      watch.provoke(422, /^\/v1\/scrape$/);
      await form.getByRole('textbox', { name: 'JSON schema', exact: true }).fill(SCHEMA);
      await form.getByRole('textbox', { name: 'URL', exact: true }).fill('http://10.0.0.1/');
      await form.getByRole('button', { name: 'Scrape', exact: true }).click();
      await page.getByRole('alert').filter({ hasText: 'The target page could not be reached.' }).waitFor();
      assert.equal(await page.getByRole('heading', { name: 'Answer', exact: true }).count(), 0);
      assert.equal((await callsOf()).length, before, 'nothing billed');
      await watch.check('a page the deployment may not reach');
    } finally {
      await context.close();
    }
    watch.assertNothingFound();
  });
});
