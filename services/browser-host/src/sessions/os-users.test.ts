// The wall behind the CDP filter: with every in-process check gone (the test
// drives Chromium on its own port, as a client that got past the filter
// would), a session's browser reads its own files and not another session's,
// nor a file of the host's that is not world-readable. Real Chromium, as root
// (make test and CI run as root); elsewhere the host has no users to give.
import assert from 'node:assert/strict';
import { readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:http';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { after, before, test } from 'node:test';
import { AllowList } from '@wap/netguard';
import { quietLog } from '@wap/testkit';
import puppeteer from 'puppeteer-core';
import { browserFace } from '../domain/browser-face.js';
import { sessionSettings } from '../domain/session-options.js';
import { OsUsers } from './os-users.js';
import { chromiumVersion, launchSessionBrowser, type SessionBrowser } from './session-browser.js';

const CHROMIUM = '/usr/bin/chromium';
const root = process.getuid?.() === 0;
const secret = path.join(tmpdir(), `wap-host-secret-${process.pid}`);
let users: OsUsers | undefined;
const browsers: SessionBrowser[] = [];

before(async () => {
  if (!root) return;
  users = OsUsers.start('200000-209999', CHROMIUM, quietLog());
  await users?.probed;
  writeFileSync(secret, 'the host alone reads this', { mode: 0o600 });
});

after(async () => {
  for (const b of browsers) await b.close();
  rmSync(secret, { force: true });
});

/** The uid a process runs as (its real uid, from /proc). */
const uidOf = (pid: number) => Number(/^Uid:\s+(\d+)/m.exec(readFileSync(`/proc/${pid}/status`, 'utf8'))?.[1]);

/** What a page of `browser` shows at a file:// URL, driven with no filter in between (an error page for none). */
async function readFile(browser: SessionBrowser, file: string): Promise<string> {
  const direct = await puppeteer.connect({ transport: await browser.openChannel() });
  try {
    const page = await direct.newPage();
    const cdp = await page.createCDPSession();
    await cdp.send('Page.enable');
    const loaded = new Promise((resolve) => cdp.once('Page.loadEventFired', resolve));
    await cdp.send('Page.navigate', { url: `file://${file}` });
    await loaded;
    const { result } = await cdp.send('Runtime.evaluate', {
      expression: 'document.documentElement.textContent',
      returnByValue: true,
    });
    return String(result.value);
  } finally {
    await direct.disconnect();
  }
}

test("each session's Chromium runs as a user of its own and reads neither another session's files nor the host's", {
  skip: root ? false : 'needs root: the host gives session browsers users of their own only as root',
}, async () => {
  const face = browserFace(sessionSettings(undefined), chromiumVersion(CHROMIUM));
  const allow = AllowList.parse('127.0.0.0/8');
  const [a, b] = await Promise.all(
    [0, 1].map(() => launchSessionBrowser(CHROMIUM, allow, face, { users: users as OsUsers })),
  );
  browsers.push(a as SessionBrowser, b as SessionBrowser);
  const pids = [a, b].map((s) => s?.pid as number);
  const uids = pids.map(uidOf);
  for (const uid of uids) assert.ok(uid >= 200_000 && uid <= 209_999, `runs as ${uid}`);
  assert.notEqual(uids[0], uids[1], 'two sessions, two users');
  const dirs = pids.map((pid) => {
    const args = readFileSync(`/proc/${pid}/cmdline`, 'utf8').split('\0');
    return (args.find((x) => x.startsWith('--user-data-dir=')) as string).slice('--user-data-dir='.length);
  });
  const mode = statSync(dirs[0] as string);
  assert.equal(mode.uid, uids[0], "its dir is its user's");
  assert.equal(mode.mode & 0o777, 0o700, 'and no one else may enter it');
  // Its own files it reads; the other session's and the host's it does not, whatever it is told.
  const own = path.join(dirs[0] as string, 'Default', 'Preferences');
  const others = path.join(dirs[1] as string, 'Default', 'Preferences');
  assert.match(await readFile(a as SessionBrowser, own), /ip_handling_policy/);
  assert.doesNotMatch(await readFile(a as SessionBrowser, others), /ip_handling_policy/);
  assert.doesNotMatch(await readFile(a as SessionBrowser, secret), /the host alone/);
  // Nor another session's egress proxy: a context of A's that names B's proxy is refused by it, and B is not charged.
  const site = createServer((_req, res) => res.end('<p>through a proxy</p>'));
  await new Promise<void>((r) => site.listen(0, '127.0.0.1', r));
  const siteUrl = `http://127.0.0.1:${(site.address() as { port: number }).port}/`;
  const direct = await puppeteer.connect({ transport: await (a as SessionBrowser).openChannel() });
  try {
    const own = await (await direct.newPage()).goto(siteUrl);
    assert.equal(own?.status(), 200, "A's own proxy takes it out");
    const charged = (b as SessionBrowser).egress.ownerTally().bytes;
    const stolen = await direct.createBrowserContext({
      proxyServer: (b as SessionBrowser).egress.url,
      // Loopback through the proxy too (Chromium's default sends it direct).
      proxyBypassList: ['<-loopback>'],
    });
    const answer = await (await stolen.newPage()).goto(siteUrl);
    assert.equal(answer?.status(), 403, "B's proxy refuses A's browser");
    assert.equal((b as SessionBrowser).egress.ownerTally().bytes, charged, 'B is charged nothing more');
  } finally {
    await direct.disconnect();
    site.close();
  }
  // Nor the host's environment: Chromium is given none of it.
  const environ = readFileSync(`/proc/${pids[0]}/environ`, 'utf8').split('\0');
  assert.deepEqual(
    environ.filter((e) => /^(DATABASE_URL|NATS_URL|SERVICE_TOKEN|RECORDING_KEY|PROFILE_KEY)=/.test(e)),
    [],
  );
});
