// A browser user turned attacker, through the real fleet: frames no client
// library sends, the recorder extension looked for by every CDP road, WebRTC
// aimed past the egress guard, and connections that end without a close
// frame or never begin (docs/connect.md, "On the browser host").
import assert from 'node:assert/strict';
import { createSocket, type Socket as UdpSocket } from 'node:dgram';
import { createServer, type Server } from 'node:http';
import { after, before, describe, test } from 'node:test';
import { until } from '@wap/testkit';
import puppeteer from 'puppeteer-core';
import { call } from './api.js';
import { RawWebSocket } from './raw-websocket.js';
import { fleet, sharedFleet } from './shared-fleet.js';

let site: Server;
let siteUrl: string;
let stun: UdpSocket;
let stunPort: number;
let stunPackets = 0;

/** A page that gathers WebRTC candidates against a STUN server on loopback, and says when it is done. */
const RTC_PAGE = (port: number) => `<!doctype html><title>rtc</title><p id="state">gathering</p><script>
const pc = new RTCPeerConnection({ iceServers: [{ urls: 'stun:127.0.0.2:${port}' }] });
pc.createDataChannel('x');
const done = () => { if (pc.iceGatheringState === 'complete') { const p = document.createElement('p'); p.id = 'done'; p.textContent = 'gathered'; document.body.appendChild(p); } };
pc.onicegatheringstatechange = done;
pc.createOffer().then((o) => pc.setLocalDescription(o)).then(done);
</script>`;

const auth = (apiKey: string) => ({ Authorization: `Bearer ${apiKey}` });

/** A session opened through the gateway: its id and the host's ticketed CDP URL. */
async function open(apiKey: string, query = ''): Promise<{ sessionId: string; url: string }> {
  const opened = await call<{ webSocketDebuggerUrl: string }>(
    fleet.gatewayUrl,
    'GET',
    `/connect/json/version${query}`,
    { key: apiKey },
  );
  assert.equal(opened.status, 200, JSON.stringify(opened.body));
  const url = opened.body.webSocketDebuggerUrl;
  return { sessionId: /\/devtools\/browser\/([0-9a-f-]{36})/.exec(url)?.[1] as string, url };
}

type SessionJson = { status: string; outcome: string | null; durationSeconds: number };
const readSession = async (apiKey: string, sessionId: string) =>
  (await call<{ session: SessionJson }>(fleet.gatewayUrl, 'GET', `/v1/sessions/${sessionId}`, { key: apiKey })).body
    .session;

describe('the CDP endpoint under attack', () => {
  before(async () => {
    stun = createSocket('udp4');
    stun.on('message', () => {
      stunPackets++;
    });
    await new Promise<void>((r) => stun.bind(0, '127.0.0.2', r));
    stunPort = stun.address().port;
    site = createServer((req, res) => {
      res.writeHead(200, { 'content-type': 'text/html' });
      if (req.url === '/rtc') res.end(RTC_PAGE(stunPort));
      else if (req.url === '/form') res.end('<!doctype html><title>form</title><p>A real form</p><input id="name">');
      else res.end('<!doctype html><title>page</title><p>a page</p>');
    });
    await new Promise<void>((r) => site.listen(0, '127.0.0.1', r));
    siteUrl = `http://127.0.0.1:${(site.address() as { port: number }).port}`;
    await sharedFleet('browsers');
  });

  after(async () => {
    site?.close();
    stun?.close();
  });

  test('a continuation frame with no message open, or text only Chromium would read, closes the connection unread', async () => {
    const { apiKey } = await fleet.workspace('pro');
    const { sessionId, url } = await open(apiKey, '?idleTimeout=120');
    const navigate = (id: number) => ({ id, method: 'Target.createTarget', params: { url: 'file:///etc/passwd' } });
    // A standalone continuation frame: no message is open, so it is no message at all.
    const first = await RawWebSocket.open(url);
    first.send({ id: 1, method: 'Browser.getVersion' });
    assert.ok((await first.answer(1))?.result, 'an ordinary command is answered');
    first.sendFrame(JSON.stringify(navigate(2)), { opcode: 0x0 });
    assert.equal(await first.answer(2), undefined, 'no answer: the connection closed');
    await first.closed;
    assert.equal(first.closeCode, 1002, 'closed as a protocol error');
    // A raw TAB inside a string: JSON.parse refuses it, Chromium's reader would not.
    const again = await open(apiKey, `?session=${sessionId}`);
    const second = await RawWebSocket.open(again.url);
    second.sendFrame(JSON.stringify(navigate(3)).replace('passwd"', 'passwd\t"'));
    assert.equal(await second.answer(3), undefined);
    await second.closed;
    assert.equal(second.closeCode, 1008, 'closed as a policy violation');
    // Binary: CDP is text.
    const third = await RawWebSocket.open((await open(apiKey, `?session=${sessionId}`)).url);
    third.sendFrame(JSON.stringify(navigate(4)), { opcode: 0x2 });
    await third.closed;
    assert.equal(third.closeCode, 1003);
    // Bytes that are no UTF-8 inside the URL: no text at all, closed before anything reads it.
    const fourth = await RawWebSocket.open((await open(apiKey, `?session=${sessionId}`)).url);
    const [head, tail] = JSON.stringify(navigate(5)).split('passwd');
    fourth.sendFrame(
      Buffer.concat([Buffer.from(`${head}passwd`), Buffer.from([0xff, 0xc0, 0x80]), Buffer.from(tail ?? '')]),
    );
    await fourth.closed;
    assert.equal(fourth.closeCode, 1007, 'closed as invalid text');
    // Text two readers could read apart: a key twice, a method spelt with an escape. What goes on is what was judged.
    const fifth = await RawWebSocket.open((await open(apiKey, `?session=${sessionId}`)).url);
    fifth.sendFrame(
      '{"id":6,"method":"Target.createTarget","params":{"url":"file:///etc/passwd","url":"about:blank"}}',
    );
    assert.ok((await fifth.answer(6))?.result, 'the about:blank JSON.parse read is created');
    fifth.sendFrame('{"id":7,"method":"Target.create\\u0054arget","params":{"url":"file:///etc/passwd"}}');
    assert.match((await fifth.answer(7))?.error?.message ?? '', /urlSchemeNotAllowed/);
    fifth.end();
    // Chromium ran none of them: no target shows a file.
    const browser = await puppeteer.connect({
      browserWSEndpoint: (await open(apiKey, `?session=${sessionId}`)).url,
    });
    try {
      const cdp = await browser.target().createCDPSession();
      const { targetInfos } = await cdp.send('Target.getTargets');
      assert.deepEqual(
        targetInfos.filter((t) => !/^(about:|https?:)/.test(t.url)).map((t) => t.url),
        [],
        'no target but the web and about:blank',
      );
    } finally {
      await browser.close();
    }
  });

  test('what would make Chromium connect by itself, open a port or tell the host apart is refused', async () => {
    const { apiKey } = await fleet.workspace('free');
    // A DevTools discovery bait on the host's loopback: Chromium would ask it for /json/version.
    const asked: string[] = [];
    const bait = createServer((req, res) => {
      asked.push(req.url ?? '');
      res.end('[]');
    });
    await new Promise<void>((r) => bait.listen(0, '127.0.0.1', r));
    const browser = await puppeteer.connect({
      browserWSEndpoint: `${fleet.gatewayUrl.replace(/^http/, 'ws')}/connect`,
      headers: auth(apiKey),
    });
    try {
      const cdp = await browser.target().createCDPSession();
      const refused = async (method: string, params: object) =>
        // biome-ignore lint/suspicious/noExplicitAny: any method, as a client library would send it
        (cdp.send as any)(method, params).then(
          () => 'answered',
          (err: Error) => err.message,
        );
      const port = (bait.address() as { port: number }).port;
      for (const [method, params] of [
        ['Target.setRemoteLocations', { locations: [{ host: '127.0.0.1', port }] }],
        ['Tethering.bind', { port: 0 }],
        ['SystemInfo.getProcessInfo', {}],
        ['SystemInfo.getInfo', {}],
      ] as const)
        assert.match(await refused(method, params), /Refused by the browser host: notAllowed/, method);
      // Discovery on, as a client may: with no remote locations, Chromium asks nothing of the bait.
      await cdp.send('Target.setDiscoverTargets', { discover: true });
      const page = await browser.newPage();
      await page.goto(`${siteUrl}/page`);
      assert.equal(await page.title(), 'page');
      assert.deepEqual(asked, []);
    } finally {
      await browser.close();
      bait.close();
    }
  });

  test('the recorder extension is out of sight: no target, no attach, no context, no script', async () => {
    const { apiKey } = await fleet.workspace('pro');
    const browser = await puppeteer.connect({
      browserWSEndpoint: `${fleet.gatewayUrl.replace(/^http/, 'ws')}/connect`,
      headers: auth(apiKey),
    });
    try {
      const cdp = await browser.target().createCDPSession();
      const urls: string[] = [];
      cdp.on('Target.targetCreated', (e) => urls.push(e.targetInfo.url));
      cdp.on('Target.attachedToTarget', (e) => urls.push(e.targetInfo.url));
      await cdp.send('Target.setDiscoverTargets', { discover: true });
      // As Playwright does on connect: attach to everything, each target waiting for its debugger.
      await cdp.send('Target.setAutoAttach', { autoAttach: true, waitForDebuggerOnStart: true, flatten: true });
      const { targetInfos } = await cdp.send('Target.getTargets');
      urls.push(...targetInfos.map((t) => t.url));
      // Pages made from here on would wait for this session's debugger: Puppeteer resumes only its own.
      await cdp.send('Target.setAutoAttach', { autoAttach: false, waitForDebuggerOnStart: false, flatten: true });
      const page = await browser.newPage();
      await page.goto(`${siteUrl}/page`);
      const client = await page.createCDPSession();
      const contexts: { id: number; origin: string }[] = [];
      client.on('Runtime.executionContextCreated', (e) => contexts.push(e.context));
      const scripts: string[] = [];
      client.on('Debugger.scriptParsed', (e) => scripts.push(e.url));
      await client.send('Runtime.enable');
      await client.send('Debugger.enable');
      await until('the page context is announced', async () => contexts.some((c) => c.origin === siteUrl));
      // A client that guesses context ids reaches no extension world: each is refused, or is the page's.
      const probe = "typeof chrome === 'object' && !!chrome.runtime && typeof chrome.runtime.getURL === 'function'";
      for (let contextId = 1; contextId <= 40; contextId++) {
        const answer = await client
          .send('Runtime.evaluate', { expression: probe, contextId, returnByValue: true })
          .catch(() => undefined);
        assert.notEqual(answer?.result.value, true, `context ${contextId} is an extension's`);
      }
      assert.deepEqual(
        urls.filter((u) => u.startsWith('chrome-extension:')),
        [],
        'no extension target',
      );
      assert.deepEqual(
        contexts.filter((c) => c.origin.startsWith('chrome-extension:')),
        [],
        'no extension context',
      );
      assert.deepEqual(
        scripts.filter((u) => u.startsWith('chrome-extension:')),
        [],
        'no extension script',
      );
      // The page itself is the client's to drive.
      assert.equal(await page.title(), 'page');
    } finally {
      await browser.close();
    }
  });

  test("a client finds nothing of the recorder in the page's world, and events it dispatches forge nothing into its replay", async () => {
    const { apiKey } = await fleet.workspace('pro');
    const { sessionId, url } = await open(apiKey);
    const browser = await puppeteer.connect({ browserWSEndpoint: url });
    const marker = 'FORGED-THROUGH-CONNECT';
    try {
      const page = await browser.newPage();
      await page.goto(`${siteUrl}/form`);
      const cdp = await page.createCDPSession();
      // A recorder that patched the value setter would leave its event names in the setter's [[Scopes]].
      const { result: setter } = await cdp.send('Runtime.evaluate', {
        expression: "Object.getOwnPropertyDescriptor(HTMLInputElement.prototype, 'value').set",
      });
      const names: string[] = [];
      const read = async (objectId: string, depth: number): Promise<void> => {
        const props = await cdp.send('Runtime.getProperties', { objectId, ownProperties: true });
        for (const p of [...props.result, ...(props.internalProperties ?? [])]) {
          if (typeof p.value?.value === 'string' && /^wap[0-9a-f]{32}$/.test(p.value.value)) names.push(p.value.value);
          if (p.value?.objectId && depth < 2) await read(p.value.objectId, depth + 1);
        }
      };
      assert.equal(setter.description, 'function set value() { [native code] }');
      await read(setter.objectId as string, 0);
      assert.equal(names.length, 0, "the page's world holds no recorder's event name");
      // Names of the shape the recorder's hints once had.
      names.push(`wap${'0'.repeat(32)}`);
      const events = [
        { type: 5, data: { tag: marker, payload: {} }, timestamp: Date.now() },
        {
          type: 3,
          data: { source: 0, texts: [{ id: 1, value: marker }], attributes: [], removes: [], adds: [] },
          timestamp: Date.now(),
        },
      ];
      await cdp.send('Runtime.evaluate', {
        expression: `for (const name of ${JSON.stringify(names)}) for (const suffix of ['', '-flush', '-input', '-sheet', '-shadow']) document.dispatchEvent(new CustomEvent(name + suffix, { detail: ${JSON.stringify(JSON.stringify(events))} }));`,
      });
      await page.type('#name', 'typed after the attack');
      await new Promise((r) => setTimeout(r, 1_000));
    } finally {
      await browser.close();
    }
    type Recorded = { status: string; replayUrl: string | null; recording: { head: string } | null };
    const session = async () =>
      (await call<{ session: Recorded }>(fleet.gatewayUrl, 'GET', `/v1/sessions/${sessionId}`, { key: apiKey })).body
        .session;
    let replay = '';
    await until('the recording is at rest and replays what was typed', async () => {
      const s = await session();
      if (s?.status !== 'ended' || !s.replayUrl) return false;
      const events = await fetch(s.replayUrl.replace(/\/replay\/([^/?]+)\?/, '/replay/$1/events?'));
      replay = events.status === 200 ? await events.text() : '';
      return replay.includes('typed after the attack');
    });
    assert.ok(replay.includes('A real form'), 'the page as shown is in the replay');
    assert.ok(!replay.includes(marker), "no event of the client's making is");
    const verified = await call<{ valid: boolean }>(fleet.gatewayUrl, 'POST', `/v1/sessions/${sessionId}/verify`, {
      key: apiKey,
    });
    assert.equal(verified.body.valid, true);
  });

  test('WebRTC sends no UDP past the egress guard, from a session or a browser-engine scrape', async () => {
    const { apiKey } = await fleet.workspace('pro');
    const browser = await puppeteer.connect({
      browserWSEndpoint: `${fleet.gatewayUrl.replace(/^http/, 'ws')}/connect`,
      headers: auth(apiKey),
    });
    try {
      const page = await browser.newPage();
      await page.goto(`${siteUrl}/rtc`);
      await page.waitForSelector('#done', { timeout: 30_000 });
    } finally {
      await browser.close();
    }
    const scraped = await call<{ data: { markdown: string } }>(fleet.gatewayUrl, 'POST', '/v1/scrape', {
      key: apiKey,
      body: {
        url: `${siteUrl}/rtc`,
        engine: 'browser',
        formats: ['markdown'],
        onlyMainContent: false,
        maxAge: 0,
        actions: [{ type: 'wait', selector: '#done' }],
      },
    });
    assert.equal(scraped.status, 200, JSON.stringify(scraped.body));
    assert.match(scraped.body.data.markdown, /gathered/);
    assert.equal(stunPackets, 0, 'no STUN packet reached the loopback server');
  });

  test('a client that half-closes its connection ends its session at once and frees its slot', async () => {
    // Pro: polling every 200 ms stays under its requests per minute.
    const { apiKey, workspaceId } = await fleet.workspace('pro');
    const { sessionId, url } = await open(apiKey, '?maxLifetime=3600');
    const ws = await RawWebSocket.open(url);
    ws.send({ id: 1, method: 'Target.getTargets' });
    assert.ok((await ws.answer(1))?.result);
    const slots = async () =>
      (await fleet.admin<{ holders: { holder: string }[] }>('slots', 'list', workspaceId)).holders.length;
    assert.equal(await slots(), 1);
    // A FIN, and no close frame.
    ws.end();
    await until(
      'the session has ended',
      async () => (await readSession(apiKey, sessionId))?.status === 'ended',
      20_000,
    );
    assert.equal((await readSession(apiKey, sessionId)).outcome, 'closed');
    await until('the slot is free', async () => (await slots()) === 0, 10_000);
  });

  test('a session no client ever attaches to ends when its ticket expires, whatever its idleTimeout', async () => {
    const { apiKey } = await fleet.workspace('pro');
    const { sessionId } = await open(apiKey, '?idleTimeout=300');
    await until(
      'the session has ended',
      async () => (await readSession(apiKey, sessionId))?.status === 'ended',
      120_000,
    );
    const session = await readSession(apiKey, sessionId);
    assert.equal(session.outcome, 'idle_timeout');
    // Its ticket's 30 s, and the time to end it on a busy machine: nowhere near its idleTimeout's 300 s.
    assert.ok(session.durationSeconds >= 29 && session.durationSeconds <= 90, `lived ${session.durationSeconds} s`);
  });
});
