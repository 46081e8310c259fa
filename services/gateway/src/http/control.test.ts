// Human control through the gateway: a real gateway (its composition root, a
// fresh database, real NATS, real HTTP) with a control gate the test sets,
// and the browser host played by a subscriber on the session's input subject.
import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { after, before, describe, test } from 'node:test';
import { loadConfig } from '@wap/config';
import { type NatsLink, sessionStreamNames } from '@wap/events';
import { infra, quietLog, TEST_SERVICE_TOKEN, testNats, uniqueNamespace } from '@wap/testkit';
import { env } from '../config.js';
import { openGateway } from '../gateway.js';
import { CachedControlGate } from '../replay/control.js';
import { ReplayLinks } from '../replay/links.js';
import { freshDatabase, type TestDatabase } from '../test-support.js';

const log = quietLog('gateway-test');
const KEY = 'a-replay-key-of-at-least-thirty-two-characters';
const namespace = uniqueNamespace('control');
const names = sessionStreamNames(namespace);

let database: TestDatabase;
let link: NatsLink;
let gateway: ReturnType<typeof openGateway>;
let url: string;
/** Sessions the gate lets a person drive. */
const taken = new Set<string>();

before(async () => {
  database = await freshDatabase(4);
  link = await testNats('control-test', log);
  const config = loadConfig(env, {
    DATABASE_URL: database.url,
    NATS_URL: infra().natsUrl,
    SERVICE_TOKEN: TEST_SERVICE_TOKEN,
    NATS_NAMESPACE: namespace,
    HTTP_PORT: '0',
    REPLAY_KEY: KEY,
    // Replay links need a recorder configured; the input route never asks it.
    SESSION_RECORDER_ADDR: '127.0.0.1:9',
  });
  gateway = openGateway(config, database.db, link, log, {
    registry: () => [],
    controlGate: { allowed: async (_workspaceId, sessionId) => taken.has(sessionId) },
  });
  url = (await gateway.start()).url;
});

after(async () => {
  await gateway?.stop();
  await link?.drain();
  await database?.close();
});

/** The links the gateway signs: the same key, so these are the gateway's own. */
const links = () => new ReplayLinks(KEY, url, 3_600_000);

/** A control link of a session taken over, on example.com, as the agent rows mint it. */
function controlled(site = 'example.com') {
  const sessionId = randomUUID();
  taken.add(sessionId);
  const minted = links().controlLink({ workspaceId: 'ws_control', sessionId, site, ttlSeconds: 600 });
  return { sessionId, page: minted.url, input: minted.url.replace('/control?', '/control/input?') };
}

const post = (to: string, body: unknown) =>
  fetch(to, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(body) });

async function refused(res: Response, status: number, code: string, details?: unknown) {
  const body = (await res.json()) as { code: string; details?: unknown };
  assert.equal(res.status, status, JSON.stringify(body));
  assert.equal(body.code, code);
  if (details !== undefined) assert.deepEqual(body.details, details);
}

/** Plays the session's host: answers every input batch with `reply`, and keeps what it was sent. */
function host(
  sessionId: string,
  reply: (message: unknown) => unknown = () => ({ ok: true, url: 'https://example.com/' }),
) {
  const received: unknown[] = [];
  const sub = link.nc.subscribe(names.liveInput(sessionId), {
    callback: (_err, msg) => {
      const message = msg.json<unknown>();
      received.push(message);
      msg.respond(JSON.stringify(reply(message)));
    },
  });
  return { received, stop: () => sub.unsubscribe() };
}

const click = { type: 'mouseDown', x: 10, y: 20, button: 'left', clickCount: 1 };

describe('the control link', () => {
  test('serves the control page under a nonce policy, with no script but its own', async () => {
    const { page } = controlled();
    const res = await fetch(page);
    assert.equal(res.status, 200);
    const policy = res.headers.get('content-security-policy') ?? '';
    const nonce = /'nonce-([^']+)'/.exec(policy)?.[1];
    assert.ok(nonce, policy);
    assert.match(policy, /default-src 'none'/);
    // The console embeds it; no other site may.
    assert.match(policy, /frame-ancestors 'self'(;|$)/);
    assert.equal(res.headers.get('x-frame-options'), 'SAMEORIGIN');
    // The link's signature is in its URL: never cached, never sent on as a referrer.
    assert.equal(res.headers.get('cache-control'), 'private, no-store');
    assert.equal(res.headers.get('referrer-policy'), 'no-referrer');
    assert.equal(res.headers.get('x-content-type-options'), 'nosniff');
    assert.doesNotMatch(policy, /unsafe-inline|https:/);
    const html = await res.text();
    const scripts = [...html.matchAll(/<script([^>]*)>/g)].map((m) => m[1]);
    assert.ok(scripts.length > 0);
    for (const attrs of scripts) {
      assert.equal(attrs, ` nonce="${nonce}"`, 'every script is inline and carries the nonce');
    }
    assert.match(html, /<label for="url">Address<\/label>/);
    assert.match(html, /id="surface" tabindex="0"/);
  });

  test('changed in any part, or a replay link, is refused as replay links are', async () => {
    const { sessionId, input, page } = controlled();
    const tamper = (name: string, value: string) => {
      const u = new URL(input);
      u.searchParams.set(name, value);
      return u.href;
    };
    const replayLink = links().url('ws_control', sessionId, '/control/input');
    for (const forged of [
      tamper('sig', 'AAAA'),
      tamper('site', 'evil.example'),
      tamper('w', 'ws_other'),
      tamper('exp', String(Math.floor(Date.now() / 1000) + 7_200)),
      input.replace(sessionId, randomUUID()),
      replayLink,
    ])
      await refused(await post(forged, { tab: 1, actions: [click] }), 403, 'replay_access_denied');
    // Nor does a control link open the replay.
    await refused(await fetch(page.replace('/control?', '?')), 403, 'replay_access_denied');
    await refused(
      await fetch(tamper('sig', 'AAAA').replace('/control/input?', '/control?')),
      403,
      'replay_access_denied',
    );
  });
});

describe('an input batch', () => {
  test('reaches the session host on NATS with the link site, and answers what the host did', async () => {
    const { sessionId, input } = controlled();
    const h = host(sessionId);
    try {
      const batch = {
        tab: 2,
        actions: [
          { type: 'mouseMove', x: 1.5, y: 2, buttons: 0 },
          click,
          { type: 'keyDown', key: 'a', code: 'KeyA', text: 'a', modifiers: 0 },
          { type: 'insertText', text: 'hello' },
          { type: 'navigate', url: 'https://shop.example.com/cart' },
          { type: 'back' },
        ],
      };
      const res = await post(input, batch);
      assert.equal(res.status, 200);
      assert.deepEqual(await res.json(), { url: 'https://example.com/' });
      assert.deepEqual(h.received, [{ site: 'example.com', ...batch }]);
    } finally {
      h.stop();
    }
  });

  test('is refused when the gate says no: replay_control_denied, not_permitted', async () => {
    const { sessionId, input } = controlled();
    taken.delete(sessionId);
    const h = host(sessionId);
    try {
      // Never asked about while taken: the gate's answer is fresh.
      await refused(await post(input, { tab: 1, actions: [click] }), 403, 'replay_control_denied', {
        sessionId,
        reason: 'not_permitted',
      });
      assert.deepEqual(h.received, []);
    } finally {
      h.stop();
    }
  });

  test('to another site is refused and never forwarded: replay_control_cross_site', async () => {
    const { sessionId, input } = controlled();
    const h = host(sessionId);
    try {
      for (const away of [
        'https://evil.example/',
        'https://example.com.evil.example/',
        'https://example.com@evil.example/',
      ])
        await refused(
          await post(input, { tab: 1, actions: [click, { type: 'navigate', url: away }] }),
          403,
          'replay_control_cross_site',
          { host: new URL(away).hostname },
        );
      // One batch after them, on the same connection: the first the host sees.
      assert.equal((await post(input, { tab: 1, actions: [click] })).status, 200);
      assert.equal(h.received.length, 1);
    } finally {
      h.stop();
    }
  });

  test('that breaks the schema is bad_request, naming the field; other schemes are refused', async () => {
    const { sessionId, input } = controlled();
    const h = host(sessionId);
    try {
      const named = (await (await post(input, { tab: 1, actions: [{ ...click, x: 'left' }] })).json()) as {
        details: { issues: { path: string }[] };
      };
      assert.deepEqual(
        named.details.issues.map((i) => i.path),
        ['body.actions.0.x'],
      );
      for (const batch of [
        { tab: 1, actions: [{ ...click, x: 'left' }] },
        { tab: 1, actions: [click], extra: true },
        { tab: 1, actions: [{ type: 'navigate', url: 'javascript:alert(1)' }] },
        { tab: 1, actions: [{ type: 'insertText', text: 'x'.repeat(5_000) }] },
        { tab: 1, actions: [{ type: 'evaluate', expression: 'document.cookie' }] },
      ])
        await refused(await post(input, batch), 400, 'bad_request');
      const res = await fetch(input, { method: 'POST', headers: { 'content-type': 'text/plain' }, body: '{}' });
      assert.equal(res.status, 415);
      assert.deepEqual(h.received, []);
    } finally {
      h.stop();
    }
  });

  test('for a session no host runs is replay_control_denied, not_live; a host refusal is mapped', async () => {
    const gone = controlled();
    await refused(await post(gone.input, { tab: 1, actions: [click] }), 403, 'replay_control_denied', {
      sessionId: gone.sessionId,
      reason: 'not_live',
    });
    const { sessionId, input } = controlled();
    const h = host(sessionId, (m) =>
      (m as { tab: number }).tab === 9
        ? { ok: false, refused: 'no_tab' }
        : { ok: false, refused: 'cross_site', host: 'redirected.example' },
    );
    try {
      await refused(await post(input, { tab: 1, actions: [click] }), 403, 'replay_control_cross_site', {
        host: 'redirected.example',
      });
      await refused(await post(input, { tab: 9, actions: [] }), 400, 'bad_request');
    } finally {
      h.stop();
    }
  });
});

test("the gate's answer is kept a second; a failing gate is a no that is not kept", async () => {
  let now = 0;
  let asked = 0;
  let answer: boolean | Error = true;
  const gate = new CachedControlGate(
    {
      allowed: async () => {
        asked++;
        if (answer instanceof Error) throw answer;
        return answer;
      },
    },
    log,
    1_000,
    () => now,
  );
  assert.equal(await gate.allowed('ws', 's1'), true);
  answer = false;
  now = 999;
  assert.equal(await gate.allowed('ws', 's1'), true, 'kept');
  assert.equal(asked, 1);
  now = 1_000;
  assert.equal(await gate.allowed('ws', 's1'), false, 'asked again after a second');
  assert.equal(await gate.allowed('ws', 's2'), false, 'per session');
  answer = new Error('agent service away');
  now = 5_000;
  assert.equal(await gate.allowed('ws', 's1'), false);
  answer = true;
  assert.equal(await gate.allowed('ws', 's1'), true, 'a failure is not kept');
});
