// The web console's server side through the real fleet (docs/console.md),
// with plain HTTP as the app in a browser sends it: signing in with a
// cookie, the cookie on /v1 and the CSRF rule of its writes, the workspace's
// keys and members, what a removed member and a signed-out session lose at
// once (on two gateway replicas), one workspace never seeing another's, and
// the app's build served under the console's policy.
import assert from 'node:assert/strict';
import { createHash } from 'node:crypto';
import { mkdirSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { before, describe, test } from 'node:test';
import { until } from '@wap/testkit';
import pg from 'pg';
import { call } from './api.js';
import { consoleDir, fleet, sharedFleet } from './shared-fleet.js';

const PASSWORD = 'correct horse battery';
const POLICY =
  "default-src 'none'; script-src 'self'; style-src 'self'; img-src 'self' data: blob:; font-src 'self'; connect-src 'self'; frame-src 'self'; base-uri 'none'; form-action 'self'; frame-ancestors 'none'";

let base: string;
/** Workspace A (owner, member, removable) and B (its own owner); `both` is a member of each. */
const ws = { a: { id: '', name: '' }, b: { id: '', name: '' } };
const run = Date.now();
const email = (who: string) => `${who}-${run}@example.test`;

// biome-ignore lint/suspicious/noExplicitAny: each test reads the shape of the route it calls
type Loose = Record<string, any>;
const jsonOf = async (res: Response) => (await res.json()) as Loose;

interface Session {
  user: { id: string; email: string };
  workspace: { id: string; name: string; plan: string };
  role: 'owner' | 'member';
  workspaces: { id: string; name: string; role: string }[];
  csrfToken: string;
  expiresAt: string;
}
interface SignedIn {
  cookie: string;
  session: Session;
  setCookie: string;
}

/** A request as the app sends it: the cookie, and on a write the CSRF token, from the gateway's own origin. */
function asApp(
  who: SignedIn,
  method: string,
  route: string,
  options: { body?: unknown; csrf?: boolean; origin?: string; url?: string } = {},
) {
  const headers: Record<string, string> = { cookie: `wap_session=${who.cookie}` };
  if (options.csrf ?? method !== 'GET') headers['x-csrf-token'] = who.session.csrfToken;
  if (options.origin) headers.origin = options.origin;
  return call<Loose>(options.url ?? base, method, route, { headers, body: options.body });
}

async function signIn(who: string, extra: { workspaceId?: string; origin?: string } = {}) {
  const res = await fetch(`${base}/console/api/session`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', origin: extra.origin ?? base },
    body: JSON.stringify({
      email: email(who),
      password: PASSWORD,
      ...(extra.workspaceId && { workspaceId: extra.workspaceId }),
    }),
  });
  const body = await jsonOf(res);
  return { status: res.status, body, headers: res.headers };
}

async function signedIn(who: string, workspaceId?: string): Promise<SignedIn> {
  const res = await signIn(who, { workspaceId });
  assert.equal(res.status, 200, JSON.stringify(res.body));
  const setCookie = res.headers.getSetCookie().find((c) => c.startsWith('wap_session=')) ?? '';
  const cookie = /^wap_session=([^;]+)/.exec(setCookie)?.[1] ?? '';
  return { cookie, session: res.body as Session, setCookie };
}

async function sql<T extends Record<string, unknown>>(text: string, values: unknown[] = []): Promise<T[]> {
  const db = new pg.Client({ connectionString: fleet.databaseUrl('gateway') });
  await db.connect();
  try {
    return (await db.query<T>(text, values)).rows;
  } finally {
    await db.end();
  }
}

describe('the console API', () => {
  before(async () => {
    await sharedFleet('plain');
    // The app's build as Vite lays it out, in the fleet's CONSOLE_DIR; the real one need not exist for the
    // server side to be tested.
    mkdirSync(path.join(consoleDir, 'assets'));
    writeFileSync(
      path.join(consoleDir, 'index.html'),
      '<!doctype html><title>Console</title><script type="module" src="/console/assets/app-3f9a.js"></script>',
    );
    writeFileSync(path.join(consoleDir, 'assets', 'app-3f9a.js'), 'console.log("app")\n');
    base = fleet.gatewayUrl;
    for (const key of ['a', 'b'] as const) {
      const name = `console-${key}-${run}`;
      const made = await fleet.admin<{ workspaceId: string }>('workspace', 'create', name, '--plan', 'pro');
      ws[key] = { id: made.workspaceId, name };
    }
    const file = path.join(tmpdir(), `wap-console-${process.pid}`);
    writeFileSync(file, `${PASSWORD}\n`);
    for (const who of ['owner', 'member', 'leaver', 'other', 'both', 'newcomer', 'guesser', 'nobody'])
      await fleet.admin('user', 'create', email(who), '--password-file', file);
    await fleet.admin('member', 'add', ws.a.name, email('owner'), '--role', 'owner');
    await fleet.admin('member', 'add', ws.a.name, email('member'));
    await fleet.admin('member', 'add', ws.a.name, email('leaver'));
    await fleet.admin('member', 'add', ws.a.name, email('both'));
    await fleet.admin('member', 'add', ws.b.name, email('other'), '--role', 'owner');
    await fleet.admin('member', 'add', ws.b.name, email('both'));
    await fleet.admin('member', 'add', ws.a.name, email('guesser'));
    rmSync(file);
  });

  describe('signing in', () => {
    test('sets an HttpOnly SameSite=Strict cookie whose hash alone is stored, and answers the session', async () => {
      const owner = await signedIn('owner');
      assert.match(owner.cookie, /^[A-Za-z0-9_-]{43}$/, '256 random bits');
      const flags = owner.setCookie.split(';').map((f) => f.trim().toLowerCase());
      assert.ok(flags.includes('httponly'), owner.setCookie);
      assert.ok(flags.includes('samesite=strict'), owner.setCookie);
      assert.ok(flags.includes('path=/'), owner.setCookie);
      assert.ok(!flags.includes('secure'), 'no Secure over plain http');
      const s = owner.session;
      assert.equal(s.user.email, email('owner'));
      assert.deepEqual(s.workspace, { id: ws.a.id, name: ws.a.name, plan: 'pro' });
      assert.equal(s.role, 'owner');
      assert.deepEqual(s.workspaces, [{ id: ws.a.id, name: ws.a.name, role: 'owner' }]);
      assert.match(s.csrfToken, /^[A-Za-z0-9_-]{20,}$/);
      assert.notEqual(s.csrfToken, owner.cookie);
      const left = Date.parse(s.expiresAt) - Date.now();
      assert.ok(left > 23 * 3_600_000 && left <= 24 * 3_600_000, s.expiresAt);

      const rows = await sql<{ token_hash: Buffer }>('SELECT token_hash FROM console_sessions WHERE user_id = $1', [
        s.user.id,
      ]);
      assert.equal(rows.length, 1);
      assert.deepEqual(rows[0]?.token_hash, createHash('sha256').update(owner.cookie).digest());

      const again = await asApp(owner, 'GET', '/console/api/session');
      assert.equal(again.status, 200);
      assert.deepEqual(again.body, s);
      const none = await call(base, 'GET', '/console/api/session');
      assert.equal(none.status, 401);
      assert.equal(none.body.code, 'unauthorized');
    });

    test('a wrong password is 401 invalid; a sign-in from another origin is refused before any check', async () => {
      const wrong = await fetch(`${base}/console/api/session`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({ email: email('owner'), password: 'not it' }),
      });
      assert.equal(wrong.status, 401);
      assert.deepEqual((await jsonOf(wrong)).details, { reason: 'invalid' });
      assert.equal(wrong.headers.getSetCookie().length, 0);

      const cross = await signIn('owner', { origin: 'https://evil.example' });
      assert.equal(cross.status, 403);
      assert.equal(cross.body.code, 'tenant_scope');
      assert.deepEqual(cross.body.details, { surface: 'console' });
      assert.equal(cross.headers.getSetCookie().length, 0);

      const homeless = await signIn('nobody');
      assert.equal(homeless.status, 403, 'an account with no workspace');
      assert.equal(homeless.body.code, 'tenant_scope');
      const notThere = await signIn('owner', { workspaceId: ws.b.id });
      assert.equal(notThere.status, 403, 'a workspace the person is no member of');
    });

    test('guessing is held by the OAuth sign-in throttle: 429 concurrency_limit with Retry-After', async () => {
      const guess = () =>
        fetch(`${base}/console/api/session`, {
          method: 'POST',
          headers: { 'content-type': 'application/json' },
          body: JSON.stringify({ email: email('guesser'), password: 'guess' }),
        });
      // Five free failures for one address and one account (docs/oauth.md, "Guessing passwords").
      for (let i = 0; i < 5; i++) assert.equal((await guess()).status, 401);
      const held = await guess();
      assert.equal(held.status, 429);
      const body = await jsonOf(held);
      assert.equal(body.code, 'concurrency_limit');
      assert.equal(body.details.kind, 'sign_in');
      assert.ok(Number(held.headers.get('retry-after')) >= 1);
      // The right password waits too: a held attempt checks nothing.
      assert.equal((await signIn('guesser')).status, 429);
    });

    test('a person in two workspaces moves between them; not into a third', async () => {
      const both = await signedIn('both', ws.b.id);
      assert.equal(both.session.workspace.id, ws.b.id);
      assert.equal(both.session.workspaces.length, 2);
      const moved = await asApp(both, 'PUT', '/console/api/session/workspace', { body: { workspaceId: ws.a.id } });
      assert.equal(moved.status, 200, JSON.stringify(moved.body));
      assert.equal(moved.body.workspace.id, ws.a.id);
      const members = await asApp(both, 'GET', '/console/api/members');
      assert.ok(
        members.body.members.some((m: { email: string }) => m.email === email('owner')),
        'now acting in A',
      );
      const owner = await signedIn('owner');
      const refused = await asApp(owner, 'PUT', '/console/api/session/workspace', { body: { workspaceId: ws.b.id } });
      assert.equal(refused.status, 403);
      assert.equal(refused.body.code, 'tenant_scope');
    });
  });

  describe('the cookie on /v1', () => {
    test('reads as the workspace; a write needs the CSRF token and our origin', async () => {
      const owner = await signedIn('owner');
      const read = await asApp(owner, 'GET', '/v1/profiles');
      assert.equal(read.status, 200, JSON.stringify(read.body));

      const label = `console-${run}`;
      const bare = await asApp(owner, 'POST', '/v1/profiles', { body: { label }, csrf: false });
      assert.equal(bare.status, 403);
      assert.equal(bare.body.code, 'tenant_scope');
      assert.deepEqual(bare.body.details, { surface: 'console' });
      const cross = await asApp(owner, 'POST', '/v1/profiles', { body: { label }, origin: 'https://evil.example' });
      assert.equal(cross.status, 403, 'the token is not enough from another origin');
      const sameOrigin = await asApp(owner, 'POST', '/v1/profiles', { body: { label }, origin: base });
      assert.equal(sameOrigin.status, 200, JSON.stringify(sameOrigin.body));
      const listed = await asApp(owner, 'GET', `/v1/profiles?label=${label}`);
      assert.equal(listed.body.profiles.length, 1, 'written once: the refused writes did nothing');

      // The cookie is the REST surface's alone.
      const mcp = await call(base, 'POST', '/mcp', {
        headers: { cookie: `wap_session=${owner.cookie}`, 'x-csrf-token': owner.session.csrfToken },
        body: { jsonrpc: '2.0', id: 1, method: 'tools/list' },
      });
      assert.equal(mcp.status, 401);
      const connect = await call(base, 'GET', '/connect', { headers: { cookie: `wap_session=${owner.cookie}` } });
      assert.equal(connect.status, 401);
      // And it is the console API's alone: a key there is no session.
      const key = await fleet.admin<{ apiKey: string }>('key', 'create', ws.a.name);
      assert.equal((await call(base, 'GET', '/console/api/keys', { key: key.apiKey })).status, 401);
      assert.equal((await call(base, 'GET', '/v1/profiles', { key: key.apiKey })).status, 200);
    });
  });

  describe('keys', () => {
    test('made, used on /v1 with a plain request, last use recorded, deleted: the next request is 401', async () => {
      const member = await signedIn('member');
      const unsigned = await asApp(member, 'POST', '/console/api/keys', {
        body: { name: 'ci', surfaces: ['rest'] },
        csrf: false,
      });
      assert.equal(unsigned.status, 403);
      const invalid = await asApp(member, 'POST', '/console/api/keys', { body: { name: 'ci', surfaces: [] } });
      assert.equal(invalid.status, 400);
      assert.equal(invalid.body.code, 'bad_request');

      const made = await asApp(member, 'POST', '/console/api/keys', { body: { name: 'ci', surfaces: ['rest'] } });
      assert.equal(made.status, 201, JSON.stringify(made.body));
      const credential = made.body.credential as string;
      assert.match(credential, /^ock_[a-z0-9]{16}\./);
      const key = made.body.key;
      assert.equal(key.name, 'ci');
      assert.deepEqual(key.surfaces, ['rest']);
      assert.equal(key.lastUsedAt, null);
      assert.equal(key.revokedAt, null);
      assert.equal(credential.slice(4, 20), key.id);

      const listed = await asApp(member, 'GET', '/console/api/keys');
      assert.equal(listed.body.keys[0].id, key.id, 'newest first');
      assert.ok(!JSON.stringify(listed.body).includes(credential.split('.')[1] as string), 'the secret is shown once');

      assert.equal((await call(base, 'GET', '/v1/profiles', { key: credential })).status, 200);
      await until('the key shows its last use', async () => {
        const keys = (await asApp(member, 'GET', '/console/api/keys')).body.keys as {
          id: string;
          lastUsedAt: string;
        }[];
        return keys.find((k) => k.id === key.id)?.lastUsedAt != null;
      });

      const deleted = await asApp(member, 'DELETE', `/console/api/keys/${key.id}`);
      assert.equal(deleted.status, 200, JSON.stringify(deleted.body));
      assert.equal(deleted.body.revoked, true);
      assert.equal(deleted.body.acknowledged, deleted.body.gateways);
      assert.equal((await call(base, 'GET', '/v1/profiles', { key: credential })).status, 401);
      const revoked = (await asApp(member, 'GET', '/console/api/keys')).body.keys.find(
        (k: { id: string }) => k.id === key.id,
      );
      assert.ok(revoked.revokedAt, 'revoked keys stay listed');
    });

    test("one workspace's session never sees or deletes another's keys", async () => {
      const owner = await signedIn('owner');
      const mine = await asApp(owner, 'POST', '/console/api/keys', {
        body: { name: 'a-only', surfaces: ['rest', 'mcp'] },
      });
      assert.equal(mine.status, 201);
      const other = await signedIn('other');
      const theirs = (await asApp(other, 'GET', '/console/api/keys')).body.keys as { id: string }[];
      assert.ok(!theirs.some((k) => k.id === mine.body.key.id));
      const stolen = await asApp(other, 'DELETE', `/console/api/keys/${mine.body.key.id}`);
      assert.equal(stolen.status, 404);
      assert.equal(stolen.body.code, 'not_found');
      assert.equal((await call(base, 'GET', '/v1/profiles', { key: mine.body.credential })).status, 200, 'still live');
      const members = (await asApp(other, 'GET', '/console/api/members')).body.members as { email: string }[];
      assert.deepEqual(
        members.map((m) => m.email),
        [email('other'), email('both')],
      );
    });
  });

  describe('members', () => {
    test('an owner adds and removes; a member may only read; the last owner stays', async () => {
      const owner = await signedIn('owner');
      const added = await asApp(owner, 'POST', '/console/api/members', {
        body: { email: email('newcomer'), role: 'member' },
      });
      assert.equal(added.status, 201, JSON.stringify(added.body));
      assert.equal(added.body.member.email, email('newcomer'));
      assert.equal(added.body.member.role, 'member');
      const unknown = await asApp(owner, 'POST', '/console/api/members', {
        body: { email: `ghost-${run}@example.test`, role: 'member' },
      });
      assert.equal(unknown.status, 404);

      const member = await signedIn('member');
      const listed = await asApp(member, 'GET', '/console/api/members');
      assert.equal(listed.status, 200);
      assert.ok(listed.body.members.some((m: { email: string }) => m.email === email('newcomer')));
      for (const [method, route, body] of [
        ['POST', '/console/api/members', { email: email('newcomer'), role: 'owner' }],
        ['DELETE', `/console/api/members/${added.body.member.userId}`, undefined],
      ] as const) {
        const refused = await asApp(member, method, route, { body });
        assert.equal(refused.status, 403, `${method} ${route}`);
        assert.equal(refused.body.code, 'tenant_scope');
        assert.deepEqual(refused.body.details, { role: 'owner' });
      }

      const removed = await asApp(owner, 'DELETE', `/console/api/members/${added.body.member.userId}`);
      assert.equal(removed.status, 200);
      assert.deepEqual(removed.body, { removed: true });
      const gone = await asApp(owner, 'DELETE', `/console/api/members/${added.body.member.userId}`);
      assert.equal(gone.status, 404);

      const last = await asApp(owner, 'DELETE', `/console/api/members/${owner.session.user.id}`);
      assert.equal(last.status, 400);
      assert.equal(last.body.code, 'bad_request');
      assert.equal(last.body.details.issues[0].path, 'userId');
      const demoted = await asApp(owner, 'POST', '/console/api/members', {
        body: { email: email('owner'), role: 'member' },
      });
      assert.equal(demoted.status, 400, 'nor made a member');
      assert.equal((await asApp(owner, 'GET', '/console/api/session')).body.role, 'owner');
    });

    test("a removed member's console session stops at once, on every replica", async () => {
      const second = await fleet.extraGateway();
      try {
        const leaver = await signedIn('leaver');
        for (const url of [base, second.url])
          assert.equal((await asApp(leaver, 'GET', '/v1/profiles', { url })).status, 200, url);
        const owner = await signedIn('owner');
        const removed = await asApp(owner, 'DELETE', `/console/api/members/${leaver.session.user.id}`);
        assert.equal(removed.status, 200);
        for (const url of [base, second.url]) {
          assert.equal((await asApp(leaver, 'GET', '/console/api/session', { url })).status, 401, url);
          assert.equal((await asApp(leaver, 'GET', '/v1/profiles', { url })).status, 401, url);
        }
        // Added back, the old cookie does not return: the session went with the membership.
        await fleet.admin('member', 'add', ws.a.name, email('leaver'));
        assert.equal((await asApp(leaver, 'GET', '/console/api/session')).status, 401);
      } finally {
        await second.stop();
      }
    });
  });

  test('signing out ends the cookie everywhere: the console API and /v1', async () => {
    const member = await signedIn('member');
    const unsigned = await asApp(member, 'DELETE', '/console/api/session', { csrf: false });
    assert.equal(unsigned.status, 403, 'another site cannot sign a person out either');
    const out = await asApp(member, 'DELETE', '/console/api/session');
    assert.equal(out.status, 204);
    const cleared = out.headers.get('set-cookie') ?? '';
    assert.match(cleared, /^wap_session=;/);
    assert.match(cleared, /Expires=Thu, 01 Jan 1970/);
    assert.equal((await asApp(member, 'GET', '/console/api/session')).status, 401);
    assert.equal((await asApp(member, 'GET', '/v1/profiles')).status, 401);
  });

  describe('the app', () => {
    const securityHeaders = (res: Response) => {
      assert.equal(res.headers.get('content-security-policy'), POLICY);
      assert.equal(res.headers.get('x-frame-options'), 'DENY');
      assert.equal(res.headers.get('referrer-policy'), 'same-origin');
      assert.equal(res.headers.get('x-content-type-options'), 'nosniff');
    };

    test("index.html for the app's routes, hashed assets for a year, under the console's policy", async () => {
      for (const route of ['/console', '/console/', '/console/keys', '/console/sessions/abc', '/console/sign-in']) {
        const res = await fetch(`${base}${route}`);
        assert.equal(res.status, 200, route);
        assert.match(res.headers.get('content-type') ?? '', /^text\/html/);
        assert.equal(res.headers.get('cache-control'), 'no-store', route);
        securityHeaders(res);
        assert.match(await res.text(), /<title>Console<\/title>/);
      }
      const asset = await fetch(`${base}/console/assets/app-3f9a.js`);
      assert.equal(asset.status, 200);
      assert.equal(asset.headers.get('cache-control'), 'public, max-age=31536000, immutable');
      assert.match(asset.headers.get('content-type') ?? '', /javascript/);
      securityHeaders(asset);
      const missing = await fetch(`${base}/console/assets/app-0000.js`);
      assert.equal(missing.status, 404, 'an old hash is not the app');
      assert.equal((await jsonOf(missing)).code, 'not_found');
      const api = await fetch(`${base}/console/api/nothing-here`);
      assert.equal(api.status, 404);
      securityHeaders(api);
      assert.equal((await jsonOf(api)).code, 'not_found');
    });

    test('without a build, /console is 404 not_found and the API goes on', async () => {
      const index = path.join(consoleDir, 'index.html');
      rmSync(index);
      try {
        const res = await fetch(`${base}/console/keys`);
        assert.equal(res.status, 404);
        assert.equal((await jsonOf(res)).code, 'not_found');
        assert.equal((await fetch(`${base}/healthz`)).status, 200);
        assert.equal((await signIn('owner')).status, 200);
      } finally {
        writeFileSync(index, '<!doctype html><title>Console</title>');
      }
    });
  });
});
