// A secret goes only where its domains allow, frames included (docs/secrets.md, "In a run"):
// a run on a page of 127.0.0.1, with a login granted for 127.0.0.1, is refused
// (run_secret_undeliverable) when the field sits in a frame of 127.0.0.2, or in a frame of
// 127.0.0.1 inside one of 127.0.0.2 (every frame above the field counts), and fills it in a
// frame of its own host. Each field tells its own server what is typed into it, so a value
// that reached a frame would show. The model is the browsers fleet's scripted one.
import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import { after, before, describe, test } from 'node:test';
import { until } from '@wap/testkit';
import { call } from './api.js';
import { step } from './scripted-agent.js';
import { fleet, scripted, sharedFleet } from './shared-fleet.js';

const USER = `ada-${randomBytes(6).toString('hex')}`;

/** The site on two hosts: `own` is the secret's domain, `foreign` is not. */
const servers: Server[] = [];
let own: string;
let foreign: string;
/** What the fields' pages reported typed into them, and on which host. */
const typed: { host: string; value: string }[] = [];

const page = (body: string) => `<!doctype html><html><head><title>Sign in</title></head><body>${body}</body></html>`;

function handle(req: IncomingMessage, res: ServerResponse) {
  const url = new URL(req.url ?? '/', `http://${req.headers.host}`);
  const html = (body: string) => res.writeHead(200, { 'content-type': 'text/html' }).end(page(body));
  switch (url.pathname) {
    case '/typed':
      typed.push({ host: url.hostname, value: url.searchParams.get('v') ?? '' });
      return res.writeHead(204).end();
    case '/field':
      return html(
        `<label>User <input name=user oninput="fetch('/typed?v=' + encodeURIComponent(this.value))"></label>`,
      );
    case '/framed':
      return html(`<p>Sign in below</p><iframe src="${foreign}/field"></iframe>`);
    case '/nested':
      return html(`<p>Sign in below</p><iframe src="${foreign}/middle"></iframe>`);
    case '/middle':
      return html(`<iframe src="${own}/field"></iframe>`);
    case '/same':
      return html(`<p>Sign in below</p><iframe src="${own}/field"></iframe>`);
    default:
      return res.writeHead(404).end();
  }
}

async function listen(host: string): Promise<string> {
  const server = createServer(handle);
  servers.push(server);
  await new Promise<void>((r) => server.listen(0, host, r));
  return `http://${host}:${(server.address() as { port: number }).port}`;
}

interface Event {
  kind: string;
  data: Record<string, unknown> | null;
}

describe('a secret and the frames of a page', () => {
  let key: string;

  before(async () => {
    await sharedFleet('browsers');
    own = await listen('127.0.0.1');
    foreign = await listen('127.0.0.2');
    ({ apiKey: key } = await fleet.workspace('pro'));
    const secret = await call(fleet.gatewayUrl, 'POST', '/v1/secrets', {
      key,
      body: {
        handle: 'site-login',
        kind: 'login',
        value: { username: USER, password: `pw-${randomBytes(9).toString('base64url')}` },
        domains: ['127.0.0.1'],
      },
    });
    assert.equal(secret.status, 201, JSON.stringify(secret.body));
  });

  after(() => {
    for (const server of servers) server.close();
  });

  /** Runs a task that fills the login's user name into the page's one field, then finishes; its events. */
  async function fillOn(path: string): Promise<Event[]> {
    const task = `Sign in on ${path}`;
    let filled = false;
    let idle = 0;
    scripted.scripts.set(task, (prompt) => {
      const line = prompt.split('\n').find((l) => /\[\d+\]<input name=user/.test(l));
      if (filled || !line) {
        if (filled) return step([{ action: 'finish', success: true, answer: 'done' }]);
        // The frames are still loading: pass time without repeating an action (a repeat is a loop).
        return step([idle++ % 2 ? { action: 'wait', seconds: 1 } : { action: 'scroll', direction: 'down' }]);
      }
      filled = true;
      const index = Number(/\[(\d+)\]/.exec(line)?.[1]);
      return step([{ action: 'fill_secret', index, handle: 'site-login', part: 'username' }]);
    });
    const submitted = await call<{ id: string }>(fleet.gatewayUrl, 'POST', '/v1/agent', {
      key,
      body: { task, url: `${own}${path}`, secrets: ['site-login'] },
    });
    assert.equal(submitted.status, 202, JSON.stringify(submitted.body));
    const id = submitted.body.id;
    await until(
      `run ${id} to settle`,
      async () => {
        const r = await call<{ run: { status: string } }>(fleet.gatewayUrl, 'GET', `/v1/agent/${id}`, { key });
        return r.body.run.status === 'settled';
      },
      90_000,
    );
    const events = await call<{ events: Event[] }>(
      fleet.gatewayUrl,
      'GET',
      `/v1/agent/${id}/events?level=debug&limit=500`,
      { key },
    );
    return events.body.events;
  }

  const codes = (events: Event[]) => events.flatMap((e) => (e.data?.code ? [e.data.code] : []));

  test('a field in a frame of another host is refused, and nothing reaches that frame', async () => {
    const events = await fillOn('/framed');
    assert.deepEqual(codes(events), ['run_secret_undeliverable']);
    assert.equal(events.filter((e) => e.kind === 'secret').length, 0, 'no fill');
    assert.deepEqual(typed, [], 'the foreign frame got nothing typed');
  });

  test("the secret's own host in a frame of another host is refused too: every frame above counts", async () => {
    const events = await fillOn('/nested');
    assert.deepEqual(codes(events), ['run_secret_undeliverable']);
    assert.equal(events.filter((e) => e.kind === 'secret').length, 0, 'no fill');
    assert.deepEqual(typed, [], 'the field inside the foreign frame got nothing typed');
  });

  test("a field in a frame of the secret's own host is filled", async () => {
    const events = await fillOn('/same');
    assert.deepEqual(codes(events), []);
    assert.equal(events.filter((e) => e.kind === 'secret').length, 1);
    await until('the field to report what was typed', async () => typed.length > 0, 10_000);
    assert.deepEqual(typed.at(-1), { host: '127.0.0.1', value: USER });
  });
});
