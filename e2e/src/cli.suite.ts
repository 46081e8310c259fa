// The CLI (clients/cli, `wap`) against a real fleet, as a person uses it: `wap login` sends a
// headless Chromium through the gateway's real sign-in pages (loopback redirect, PKCE, state,
// resource = the REST API) and stores the tokens 0600 beside a warning when no keyring
// answers; `status` names the credential in use and where it came from, in the three orders
// of precedence; the login refreshes before it expires; a crawl shows its progress; a paused
// agent run is answered from the CLI; `agent run --wait` prints a run's events as they come and
// its answer; `scrape --json-schema` prints a page's data in a schema; `scrape parse --file` reads a file; a second login revokes the first; and after `logout`
// the old token is refused.
import assert from 'node:assert/strict';
import { type ChildProcessWithoutNullStreams, spawn } from 'node:child_process';
import { chmodSync, existsSync, mkdtempSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { after, before, describe, test } from 'node:test';
import { until } from '@wap/testkit';
import { startTestSite, type TestSite } from '@wap/testsite';
import { type Browser, chromium } from 'playwright-core';
import { call } from './api.js';
import { collectOutput, type Ran } from './child-output.js';
import { asking, type ScriptedModel, step } from './scripted-agent.js';
import { fleet, scripted, sharedFleet } from './shared-fleet.js';

const CLI = path.resolve(__dirname, '../../clients/cli/dist/cli.js');
const EMAIL = 'cli-user@example.test';
const PASSWORD = 'correct horse battery staple';

let browser: Browser;
let site: TestSite;
let scripts: ScriptedModel['scripts'];
let workspaceId: string;
/** The workspace the login signs in to, and an API key of it; another workspace's key. */
let loginKey: string;
let otherKey: string;
/** The CLI's config folder (XDG_CONFIG_HOME) and HOME for this file. */
const home = mkdtempSync(path.join(tmpdir(), 'wap-cli-'));
const loginFile = path.join(home, 'web-access', 'login.json');

/** `wap` as a person's shell starts it: no credential in the environment unless given, the config under `home`. */
function start(
  args: string[],
  env: Record<string, string> = {},
): ChildProcessWithoutNullStreams & { result: Promise<Ran>; err: () => string } {
  const clean = Object.fromEntries(
    Object.entries(process.env).filter(([k]) => !k.startsWith('SERVICE_') && k !== 'BROWSER'),
  );
  const child = spawn(process.execPath, [CLI, ...args], {
    env: {
      ...clean,
      HOME: home,
      XDG_CONFIG_HOME: home,
      // No session bus: the keyring cannot answer, as on a server; the CLI falls back to the file.
      DBUS_SESSION_BUS_ADDRESS: 'unix:path=/nonexistent',
      SERVICE_BASE_URL: fleet.gatewayUrl,
      ...env,
    },
  });
  return Object.assign(child, collectOutput(child));
}
const wap = (args: string[], env: Record<string, string> = {}) => {
  const child = start(args, env);
  child.stdin.end();
  return child.result;
};

/** A person at the browser: signs in on the gateway's page, picks the workspace, allows. */
async function signIn(url: string) {
  const page = await browser.newPage();
  try {
    await page.goto(url);
    await page.fill('#email', EMAIL);
    await page.fill('#password', PASSWORD);
    await page.click('#sign-in');
    await page.selectOption('#workspace', workspaceId);
    await page.click('#allow');
    // The gateway sends the browser back to the CLI's loopback address, which says it is done.
    await page.waitForSelector('text=Signed in');
    assert.match(page.url(), /^http:\/\/127\.0\.0\.1:\d+\/callback\?/);
  } finally {
    await page.close();
  }
}

/** A well-formed API key whose secret is wrong: refused as `invalid`. */
const wrongSecret = (apiKey: string) => `${apiKey.split('.')[0]}.${'A'.repeat(43)}`;
const storedLogin = () => JSON.parse(readFileSync(loginFile, 'utf8')) as Record<string, string | number>;
const creditsWith = async (credential: string) =>
  (await call<{ available: number; code?: string }>(fleet.gatewayUrl, 'GET', '/v1/credits', { key: credential })).body;

describe('wap', () => {
  before(async () => {
    site = await startTestSite({ pages: 20, extras: false });
    await sharedFleet('browsers');
    ({ scripts } = scripted);
    const name = `cli-${Date.now()}`;
    ({ workspaceId } = await fleet.admin<{ workspaceId: string }>('workspace', 'create', name, '--plan', 'pro'));
    ({ apiKey: loginKey } = await fleet.admin<{ apiKey: string }>('key', 'create', name));
    ({ apiKey: otherKey } = await fleet.workspace('free'));
    const pw = path.join(home, 'pw');
    writeFileSync(pw, `${PASSWORD}\n`);
    await fleet.admin('user', 'create', EMAIL, '--password-file', pw);
    await fleet.admin('member', 'add', name, EMAIL);
    browser = await chromium.launch({ executablePath: '/usr/bin/chromium', args: ['--no-sandbox'] });
  });

  after(async () => {
    await browser?.close();
    await site?.close();
  });

  test('login follows the printed address through the real sign-in pages and stores the tokens 0600', async () => {
    const child = start(['login', '--no-browser', '--json']);
    child.stdin.end();
    let url = '';
    await until(
      'the sign-in address on stderr',
      async () => {
        url = /(http\S+\/oauth\/authorize\?\S+)/.exec(child.err())?.[1] ?? '';
        return url !== '';
      },
      30_000,
    );
    const asked = new URL(url);
    assert.equal(asked.searchParams.get('resource'), `${fleet.gatewayUrl}/v1`, 'a token for the REST API');
    assert.equal(asked.searchParams.get('code_challenge_method'), 'S256');
    assert.match(asked.searchParams.get('state') ?? '', /^[\w-]{20,}$/);
    assert.match(asked.searchParams.get('redirect_uri') ?? '', /^http:\/\/127\.0\.0\.1:\d+\/callback$/);
    await signIn(url);
    const { code, stdout, stderr } = await child.result;
    assert.equal(code, 0, stderr);
    assert.deepEqual(JSON.parse(stdout), {
      signedIn: true,
      baseUrl: fleet.gatewayUrl,
      storage: 'file',
      file: loginFile,
    });
    assert.match(stderr, /warning: the OS keyring is not available .*login\.json \(mode 0600\)/);
    assert.equal(statSync(loginFile).mode & 0o777, 0o600);
    const login = storedLogin();
    assert.match(String(login.accessToken), /^oat_/);
    assert.match(String(login.refreshToken), /^ort_/);
    for (const token of [login.accessToken, login.refreshToken])
      assert.ok(!stdout.includes(String(token)) && !stderr.includes(String(token)), 'no token is printed');
    assert.equal((await creditsWith(String(login.accessToken))).available > 0, true, 'the token calls the REST API');
  });

  test('status names the credential in use: --api-key, then SERVICE_API_KEY, then the login', async () => {
    const status = async (args: string[], env: Record<string, string> = {}) => {
      const r = await wap(['status', '--json', ...args], env);
      assert.equal(r.code, 0, r.stderr);
      return JSON.parse(r.stdout) as { credential: Record<string, string>; credits: { available: number } };
    };
    const [loginCredits, otherCredits] = [
      (await creditsWith(loginKey)).available,
      (await creditsWith(otherKey)).available,
    ];
    assert.notEqual(loginCredits, otherCredits, 'the two workspaces tell the credentials apart');
    // The flag wins over the variable and the login.
    const flag = await status(['--api-key', otherKey], { SERVICE_API_KEY: loginKey });
    assert.deepEqual(flag.credential, { source: 'flag', name: '--api-key' });
    assert.equal(flag.credits.available, otherCredits);
    // The variable wins over the login.
    const variable = await status([], { SERVICE_API_KEY: otherKey });
    assert.deepEqual(variable.credential, { source: 'variable', name: 'SERVICE_API_KEY' });
    assert.equal(variable.credits.available, otherCredits);
    // Neither (an empty variable counts as none): the login.
    const login = await status([], { SERVICE_API_KEY: '' });
    assert.deepEqual(login.credential, { source: 'login', storage: 'file', file: loginFile });
    assert.equal(login.credits.available, loginCredits);
    // A wrong flag is used, not skipped: the API refuses it.
    const refused = await wap(['credits', '--api-key', wrongSecret(otherKey)], { SERVICE_API_KEY: loginKey });
    assert.equal(refused.code, 1);
    assert.match(refused.stderr, /401 unauthorized/);
    const human = await wap(['status']);
    assert.match(human.stdout, /Credential: the login stored in .*login\.json/);
    assert.match(human.stdout, /Credits left: \d+/);
  });

  test('the login is refreshed before its access token expires', async () => {
    const before = storedLogin();
    writeFileSync(loginFile, JSON.stringify({ ...before, expiresAt: Date.now() + 60_000 }), { mode: 0o600 });
    const r = await wap(['credits', '--json']);
    assert.equal(r.code, 0, r.stderr);
    const afterRefresh = storedLogin();
    assert.notEqual(afterRefresh.accessToken, before.accessToken);
    assert.notEqual(afterRefresh.refreshToken, before.refreshToken, 'the refresh token rotated');
    assert.ok(Number(afterRefresh.expiresAt) > Date.now() + 50 * 60_000);
    assert.equal(statSync(loginFile).mode & 0o777, 0o600);
  });

  test('a crawl with --wait shows a progress bar on stderr and its result on stdout', async () => {
    const r = await wap(['crawl', `${site.url}/`, '--limit', '5', '--wait', '--progress', '--json']);
    assert.equal(r.code, 0, r.stderr);
    const lines = r.stdout.trim().split('\n');
    assert.equal(lines.length, 1, 'one JSON answer on stdout');
    const done = JSON.parse(lines[0] as string) as { crawl: { id: string; status: string; completed: number } };
    assert.deepEqual([done.crawl.status, done.crawl.completed], ['settled', 5]);
    const bars = r.stderr.split('\n').filter((l) => /^\[[#.]{24}\] \d+\/\d+ pages/.test(l));
    assert.ok(bars.length >= 1, r.stderr);
    assert.match(bars.at(-1) as string, /^\[#{24}\] 5\/5 pages/);
    // Without a terminal and without --progress: no bar, and people's output on stdout.
    const quiet = await wap(['crawl', 'get', done.crawl.id]);
    assert.equal(quiet.code, 0, quiet.stderr);
    assert.equal(quiet.stderr, '');
    assert.match(quiet.stdout, /status: settled/);
    const pages = await wap(['crawl', 'results', done.crawl.id, '--all', '--json']);
    assert.equal(pages.stdout.trim().split('\n').length, 5, 'one page a line');
  });

  test('`scrape parse --file` reads a file of the user’s, billed one credit; `--data` is still the whole body', async () => {
    const file = path.join(home, 'prices.csv');
    writeFileSync(file, 'item,price\nkettle,39\nteapot,18\n');
    const before = (await creditsWith(loginKey)).available;
    const r = await wap(['scrape', 'parse', '--file', file, '--json', '--api-key', loginKey]);
    assert.equal(r.code, 0, r.stderr);
    const out = JSON.parse(r.stdout) as { data: { markdown: string } };
    assert.match(out.data.markdown, /kettle.*39/);
    assert.equal(before - (await creditsWith(loginKey)).available, 1);
    const body = JSON.stringify({ name: 'a.txt', data: Buffer.from('plain words').toString('base64') });
    const viaData = await wap(['scrape', 'parse', '--data', body, '--json', '--api-key', loginKey]);
    assert.equal(viaData.code, 0, viaData.stderr);
    assert.match((JSON.parse(viaData.stdout) as { data: { markdown: string } }).data.markdown, /plain words/);
  });

  test("`scrape --json-schema file.json` prints the page's data in the schema, and says a format not answered", async () => {
    const url = `${site.url}/articles/1`;
    const title = site.article(1).title;
    const file = path.join(home, 'article.schema.json');
    writeFileSync(
      file,
      JSON.stringify({ type: 'object', properties: { title: { type: 'string' }, author: { type: 'string' } } }),
    );
    scripted.pages.set(url, (_format, prompt) => ({
      title: prompt.includes(title) ? title : 'not on the page',
      author: null,
    }));
    try {
      const r = await wap(['scrape', url, '--json-schema', file, '--api-key', loginKey]);
      assert.equal(r.code, 0, r.stderr);
      assert.deepEqual(JSON.parse(r.stdout), { title, author: null });
      scripted.pages.set(url, () => ({ title: 42, author: null }));
      const failed = await wap(['scrape', url, '--formats', 'markdown', '--json-schema', file, '--api-key', loginKey]);
      assert.equal(failed.code, 0, failed.stderr);
      assert.ok(failed.stdout.includes(title), failed.stdout);
      assert.match(failed.stdout, /^json: extraction_failed \(schema\)$/m);
      const missing = await wap(['scrape', url, '--json-schema', path.join(home, 'none.json'), '--api-key', loginKey]);
      assert.notEqual(missing.code, 0);
      assert.match(missing.stderr, /--json-schema .*none\.json: cannot be read/);
    } finally {
      scripted.pages.delete(url);
    }
  });

  test('a paused run’s question is answered at the prompt of --wait --ask, or with `wap agent answer`', async () => {
    scripts.set('Choose a colour', asking('Which colour?'));
    const asked = start([
      'agent',
      'Choose a colour',
      '--url',
      `${site.url}/`,
      '--wait',
      '--ask',
      '--progress',
      '--json',
    ]);
    await until('the question on stderr', async () => asked.err().includes('The run asks: Which colour?'), 90_000);
    asked.stdin.end('teal\n');
    const r = await asked.result;
    assert.equal(r.code, 0, r.stderr);
    const done = JSON.parse(r.stdout) as { run: { outcome: string; answer: string } };
    assert.deepEqual([done.run.outcome, done.run.answer], ['completed', 'got: teal']);
    assert.match(r.stderr, /question\s+Which colour\?/, 'the live step view');

    scripts.set('Choose a shape', asking('Which shape?'));
    const submitted = await wap(['agent', 'Choose a shape', '--url', `${site.url}/`, '--json']);
    const { id } = JSON.parse(submitted.stdout) as { id: string };
    const waiting = start(['agent', 'wait', id, '--json']);
    waiting.stdin.end();
    await until('the question on stderr', async () => waiting.err().includes(`wap agent answer ${id}`), 90_000);
    const answered = await wap(['agent', 'answer', id, 'a hexagon']);
    assert.equal(answered.code, 0, answered.stderr);
    const w = await waiting.result;
    assert.equal(w.code, 0, w.stderr);
    assert.equal((JSON.parse(w.stdout) as { run: { answer: string } }).run.answer, 'got: a hexagon');
  });

  test('`agent run --wait` prints the events one a line as they come, to the last, then the answer', async () => {
    const task = 'Open the second article';
    const article = `${site.url}/articles/2`;
    scripts.set(task, (prompt) =>
      prompt.includes(`Page: ${article}`)
        ? step([{ action: 'finish', success: true, answer: 'opened it' }])
        : step([{ action: 'navigate', url: article }], ['Open the article']),
    );
    const r = await wap(['agent', 'run', task, '--url', `${site.url}/`, '--max-steps', '5', '--wait', '--progress']);
    assert.equal(r.code, 0, r.stderr);
    assert.match(r.stdout, /^Run \S+ settled \(completed\): 2 steps, [\d.]+ credits\nAnswer: opened it\n$/);
    // stderr: the note, then each event on a line of its own, in order, the run's last one included.
    const lines = r.stderr.trimEnd().split('\n');
    assert.match(lines[0] ?? '', /^Run \S+ submitted$/);
    const at = (pattern: RegExp) => lines.findIndex((l) => pattern.test(l));
    const order = [
      /^ +1 status +queued$/,
      /^ +\d+ status +running$/,
      new RegExp(`^ +\\d+ step +step 1: navigate ${article}$`),
      /^ +\d+ step +step 2: finish/,
      /^ +\d+ status +settled: completed$/,
    ].map(at);
    assert.ok(
      order.every((i, n) => i > 0 && (n === 0 || i > (order[n - 1] as number))),
      `the events in order: ${order}\n${r.stderr}`,
    );
    assert.equal(lines.at(-1), lines[order.at(-1) as number], 'the last event is the last line');
  });

  test('login again opens the browser through $BROWSER and revokes the login it replaces', async () => {
    const replaced = storedLogin();
    const opener = path.join(home, 'open-browser.sh');
    const opened = path.join(home, 'opened-url');
    writeFileSync(opener, `#!/bin/sh\nprintf '%s' "$1" > '${opened}'\n`);
    chmodSync(opener, 0o755);
    const child = start(['login'], { BROWSER: opener });
    child.stdin.end();
    await until('the browser command to be given the address', async () => existsSync(opened), 30_000);
    await signIn(readFileSync(opened, 'utf8'));
    const r = await child.result;
    assert.equal(r.code, 0, r.stderr);
    assert.match(r.stdout, /^Signed in to http:\/\/127\.0\.0\.1:\d+; the login is kept in .*login\.json\.\n$/);
    assert.notEqual(storedLogin().accessToken, replaced.accessToken);
    assert.equal((await wap(['credits'])).code, 0);
    const old = await call<{ code: string }>(fleet.gatewayUrl, 'GET', '/v1/credits', {
      key: String(replaced.accessToken),
    });
    assert.equal(old.status, 401, 'the replaced login was revoked');
  });

  test('logout revokes the tokens: the old one is refused and the next call has no credential', async () => {
    const { accessToken } = storedLogin();
    const r = await wap(['logout', '--json']);
    assert.equal(r.code, 0, r.stderr);
    assert.deepEqual(JSON.parse(r.stdout), { signedOut: true, baseUrl: fleet.gatewayUrl, revoked: true });
    assert.equal(existsSync(loginFile), false);
    const refused = await call<{ code: string }>(fleet.gatewayUrl, 'GET', '/v1/credits', { key: String(accessToken) });
    assert.deepEqual([refused.status, refused.body.code], [401, 'unauthorized']);
    const next = await wap(['credits']);
    assert.equal(next.code, 1);
    assert.match(next.stderr, /No API key.*SERVICE_API_KEY/);
  });
});
