// The walls behind the CDP filter's network rules, tried with the filter
// gone (the tests drive Chromium on a connection of their own, as a client
// that got past the filter would): a session's Chromium listens on no port,
// a connection reaches only the sessions it attached, and (as root) a walled
// browser reaches nothing but its own egress proxy, whatever it is told.
import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { readdirSync, readFileSync, readlinkSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import { after, before, test } from 'node:test';
import { promisify } from 'node:util';
import { AllowList } from '@wap/netguard';
import { quietLog, until } from '@wap/testkit';
import puppeteer from 'puppeteer-core';
import { browserFace } from '../domain/browser-face.js';
import { sessionSettings } from '../domain/session-options.js';
import { EgressProxy } from '../egress/proxy.js';
import { NetworkWalls } from './network-wall.js';
import { OsUsers } from './os-users.js';
import { chromiumVersion, launchSessionBrowser, type SessionBrowser } from './session-browser.js';

const CHROMIUM = '/usr/bin/chromium';
const root = process.getuid?.() === 0;
const allow = AllowList.parse('127.0.0.0/8');
const browsers: SessionBrowser[] = [];
const servers: Server[] = [];
let walls: NetworkWalls | undefined;
let users: OsUsers | undefined;

before(async () => {
  if (!root) return;
  walls = await NetworkWalls.start(quietLog());
  users = OsUsers.start('210000-219999', CHROMIUM, quietLog());
  await users?.probed;
});

after(async () => {
  for (const b of browsers) await b.close();
  for (const s of servers) s.close();
});

const face = () => browserFace(sessionSettings(undefined), chromiumVersion(CHROMIUM));

async function launch(options: Parameters<typeof launchSessionBrowser>[3] = {}): Promise<SessionBrowser> {
  const browser = await launchSessionBrowser(CHROMIUM, allow, face(), options);
  browsers.push(browser);
  return browser;
}

/** A server on 127.0.0.1 that counts the requests it gets (DevTools discovery asks for /json/version). */
async function bait(): Promise<{ port: number; seen: string[] }> {
  const seen: string[] = [];
  const server = createServer((req, res) => {
    seen.push(req.url ?? '');
    res.end('<p>reached</p>');
  });
  servers.push(server);
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  return { port: (server.address() as { port: number }).port, seen };
}

/** A connection of its own to `browser`, message by message, as a client past the filter would have. */
async function rawChannel(browser: SessionBrowser) {
  const channel = await browser.openChannel();
  const answers = new Map<number, (reply: { result?: unknown; error?: unknown }) => void>();
  channel.onmessage = (text) => {
    const reply = JSON.parse(text) as { id?: number; result?: unknown; error?: unknown };
    if (reply.id !== undefined) answers.get(reply.id)?.(reply);
  };
  return {
    send: (message: { id: number; method: string; params?: object; sessionId?: string }) =>
      new Promise<{ result?: unknown; error?: unknown }>((resolve) => {
        answers.set(message.id, resolve);
        channel.send(JSON.stringify(message));
      }),
    close: () => channel.close(),
  };
}

/** Every process whose parent chain leads to `pid`, `pid` included. */
function treeOf(pid: number): number[] {
  const parents = new Map<number, number>();
  for (const entry of readdirSync('/proc')) {
    if (!/^\d+$/.test(entry)) continue;
    try {
      const stat = readFileSync(`/proc/${entry}/stat`, 'utf8');
      parents.set(Number(entry), Number(stat.slice(stat.lastIndexOf(')') + 2).split(' ')[1]));
    } catch {
      // gone
    }
  }
  const tree = [pid];
  for (let grew = true; grew; ) {
    grew = false;
    for (const [child, parent] of parents)
      if (tree.includes(parent) && !tree.includes(child)) {
        tree.push(child);
        grew = true;
      }
  }
  return tree;
}

/** The TCP ports Chromium's own processes (not the wall's bridge) listen on, in whatever network they are. */
function chromiumListening(pid: number): string[] {
  const found: string[] = [];
  for (const p of treeOf(pid)) {
    try {
      if (!readFileSync(`/proc/${p}/cmdline`, 'utf8').includes('--user-data-dir=')) continue;
      const inodes = new Set(
        readdirSync(`/proc/${p}/fd`)
          .map((fd) => {
            try {
              return /^socket:\[(\d+)\]$/.exec(readlinkSync(`/proc/${p}/fd/${fd}`))?.[1];
            } catch {
              return undefined;
            }
          })
          .filter((x): x is string => x !== undefined),
      );
      for (const table of ['tcp', 'tcp6'])
        for (const line of readFileSync(`/proc/${p}/net/${table}`, 'utf8').split('\n').slice(1)) {
          const f = line.trim().split(/\s+/);
          // st 0A is LISTEN; field 9 is the socket's inode.
          if (f[3] === '0A' && inodes.has(f[9] as string)) found.push(`${p} ${f[1]}`);
        }
    } catch {
      // gone
    }
  }
  return found;
}

test('a session browser listens on no port: its CDP is its pipe, and a connection sees only its own sessions', async () => {
  const browser = await launch();
  const cmdline = readFileSync(`/proc/${browser.pid}/cmdline`, 'utf8').split('\0');
  assert.ok(cmdline.includes('--remote-debugging-pipe'));
  assert.ok(!cmdline.some((a) => a.startsWith('--remote-debugging-port')));
  // Wait for its renderer, so a listener opened at any stage of start-up would be there.
  const hostPage = (await browser.browser.pages())[0] ?? (await browser.browser.newPage());
  await hostPage.goto('about:blank');
  assert.deepEqual(chromiumListening(browser.pid), []);

  // A client's connection: its own targets and sessions work as on a WebSocket of its own.
  const client = await puppeteer.connect({ transport: await browser.openChannel(), defaultViewport: null });
  const page = await client.newPage();
  await page.setContent('<p>mine</p>');
  assert.equal(await page.evaluate(() => document.body.textContent), 'mine');
  // The host's own session on its page is not the client's to drive, nor to detach.
  const hostSession = (hostPage as unknown as { _client(): { id(): string } })._client().id();
  const raw = await rawChannel(browser);
  const evaluated = await raw.send({
    id: 1,
    method: 'Runtime.evaluate',
    params: { expression: '1' },
    sessionId: hostSession,
  });
  assert.deepEqual(evaluated.error, { code: -32001, message: 'Session with given id not found.' });
  const detached = await raw.send({ id: 2, method: 'Target.detachFromTarget', params: { sessionId: hostSession } });
  assert.ok(detached.error, 'Chromium refuses to detach a session of another connection');
  raw.close();
  assert.equal(await hostPage.evaluate(() => 1 + 1), 2, "the host's session still answers");
  await client.disconnect();
  // The client gone, the browser lives on for the host.
  assert.equal(await hostPage.evaluate(() => 2 + 2), 4);
});

test("a walled browser reaches its own proxy and nothing else, though discovery is pointed at the host's loopback", {
  skip: root ? false : 'needs root: the host builds network namespaces only as root',
}, async () => {
  assert.ok(walls, 'the walls are built here (root, unshare, ip and socat)');
  const [walled, shared] = await Promise.all([
    launch({ walls: walls as NetworkWalls, users: users as OsUsers }),
    launch({ users: users as OsUsers }),
  ]);
  assert.equal(walled.walled, true);
  assert.equal(shared.walled, false);
  const site = await bait();
  // Its way out works: a page of the walled browser loads a site through its proxy.
  const direct = await puppeteer.connect({ transport: await walled.openChannel(), defaultViewport: null });
  const page = await direct.newPage();
  const answer = await page.goto(`http://127.0.0.1:${site.port}/page`);
  assert.equal(answer?.status(), 200);
  assert.ok(walled.egress.ownerTally().bytes > 0, 'through its egress proxy');
  // Remote target discovery, unfiltered: Chromium connects by itself, not through its proxy.
  const [walledBait, sharedBait] = [await bait(), await bait()];
  const discover = async (browser: SessionBrowser, port: number) => {
    const client = await puppeteer.connect({ transport: await browser.openChannel() });
    const cdp = await client.target().createCDPSession();
    await cdp.send('Target.setRemoteLocations', {
      locations: [
        { host: '127.0.0.1', port },
        { host: '169.254.169.254', port: 80 },
      ],
    });
    await cdp.send('Target.setDiscoverTargets', { discover: true });
    return client;
  };
  const clients = await Promise.all([discover(walled, walledBait.port), discover(shared, sharedBait.port)]);
  // The unwalled browser's discovery reaches its bait (so the test sees discovery happen) a few rounds over...
  await until(
    "the unwalled browser's discovery to ask its bait three times",
    () => sharedBait.seen.filter((u) => u.startsWith('/json')).length >= 3,
  );
  // ...while the walled one's, polling on the same clock, never has.
  assert.deepEqual(walledBait.seen, []);
  for (const c of clients) await c.disconnect();
  await direct.disconnect();
});

test('inside a wall a program has no way out but its proxy: the host, the metadata and private addresses have no route', {
  skip: root ? false : 'needs root: the host builds network namespaces only as root',
}, async () => {
  assert.ok(walls);
  const site = await bait();
  const proxy = new EgressProxy(allow, { owner: true, socket: `/tmp/wap-wall-test-${process.pid}.sock` });
  await proxy.start();
  try {
    // Each attempt is a plain TCP connect, answered as what the kernel said.
    const attempt = (host: string, port: number) =>
      `new Promise(r=>{const s=net.connect({host:${JSON.stringify(host)},port:${port},timeout:5000},()=>{s.destroy();r('open')});s.on('error',e=>r(e.code));s.on('timeout',()=>{s.destroy();r('timeout')})})`;
    const program = `const net=require('net');const http=require('http');(async()=>{
      const out={host:await ${attempt('127.0.0.1', site.port)},metadata:await ${attempt('169.254.169.254', 80)},
        other:await ${attempt('10.0.0.1', 80)}};
      out.proxied=await new Promise(r=>http.get({host:'127.0.0.1',port:8118,path:'http://127.0.0.1:${site.port}/via-proxy'},
        res=>{res.resume();r(res.statusCode)}).on('error',e=>r(e.code)));
      console.log(JSON.stringify(out))})()`;
    const inside = (walls as NetworkWalls).wrap(
      { executablePath: process.execPath, args: ['-e', program], env: { PATH: '/usr/bin:/bin' } },
      `/tmp/wap-wall-test-${process.pid}.sock`,
    );
    const { stdout } = await promisify(execFile)(inside.executablePath, inside.args, {
      env: inside.env,
      timeout: 30_000,
    });
    const seen = JSON.parse(stdout) as Record<string, unknown>;
    assert.equal(seen.host, 'ECONNREFUSED', "the host's loopback is not this loopback");
    assert.equal(seen.metadata, 'ENETUNREACH');
    assert.equal(seen.other, 'ENETUNREACH');
    assert.equal(seen.proxied, 200, 'its proxy takes it out');
    assert.deepEqual(site.seen, ['/via-proxy']);
  } finally {
    await proxy.stop();
  }
});
