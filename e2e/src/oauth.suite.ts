// OAuth sign-in for MCP clients through the real fleet (docs/oauth.md): the
// official MCP SDK client with no credential meets the 401 challenge,
// discovers the metadata, registers itself, and a headless Chromium signs in
// and consents on the gateway's page; then the token works on /mcp only,
// expires, refreshes with rotation, and dies with the membership. And each
// malformed exchange is refused as RFC 6749 and RFC 7636 say. Then the
// attacks on sign-in, each from loopback addresses of its own (127.0.x.y) as
// other machines: guessing passwords, telling accounts apart by time, and
// posting a consent form twice or from another browser.
import assert from 'node:assert/strict';
import { createHash, randomBytes } from 'node:crypto';
import { writeFileSync } from 'node:fs';
import { createServer, request as httpRequest, type IncomingHttpHeaders, type Server } from 'node:http';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { after, before, describe, test } from 'node:test';
import type { OAuthClientProvider } from '@modelcontextprotocol/sdk/client/auth.js';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import type {
  OAuthClientInformationMixed,
  OAuthClientMetadata,
  OAuthTokens,
} from '@modelcontextprotocol/sdk/shared/auth.js';
import { until } from '@wap/testkit';
import pg from 'pg';
import puppeteer, { type Browser } from 'puppeteer-core';
import { call } from './api.js';
import { fleet, sharedFleet } from './shared-fleet.js';

let browser: Browser;
let callback: Server;
let redirectUrl: string;
/** Codes the loopback redirect URI received, newest last. */
const codes: { code: string | null; error: string | null; state: string | null }[] = [];
const EMAIL = 'ada@example.test';
const PASSWORD = 'correct horse battery';
let workspaceId: string;
let workspaceName: string;

/** A person with PASSWORD; a member of the test's workspace unless `member` is false. */
async function addUser(email: string, member = true) {
  const file = path.join(tmpdir(), `wap-oauth-${process.pid}`);
  writeFileSync(file, `${PASSWORD}\n`);
  await fleet.admin('user', 'create', email, '--password-file', file);
  if (member) await fleet.admin('member', 'add', workspaceName, email);
}

/** What an MCP client keeps between its runs, in memory. */
class MemoryProvider implements OAuthClientProvider {
  info: OAuthClientInformationMixed | undefined;
  saved: OAuthTokens | undefined;
  verifier = '';
  authorizationUrl: URL | undefined;
  get redirectUrl() {
    return redirectUrl;
  }
  get clientMetadata(): OAuthClientMetadata {
    return {
      client_name: 'E2E Agent',
      redirect_uris: [redirectUrl],
      grant_types: ['authorization_code', 'refresh_token'],
      response_types: ['code'],
      token_endpoint_auth_method: 'none',
    };
  }
  clientInformation() {
    return this.info;
  }
  saveClientInformation(info: OAuthClientInformationMixed) {
    this.info = info;
  }
  tokens() {
    return this.saved;
  }
  saveTokens(tokens: OAuthTokens) {
    this.saved = tokens;
  }
  redirectToAuthorization(url: URL) {
    this.authorizationUrl = url;
  }
  saveCodeVerifier(verifier: string) {
    this.verifier = verifier;
  }
  codeVerifier() {
    return this.verifier;
  }
}

/** A person at the browser: signs in on the gateway's page, picks the workspace, allows; answers the code. */
async function signInAndAllow(url: URL | string, decision: 'allow' | 'deny' = 'allow') {
  const page = await browser.newPage();
  try {
    const before = codes.length;
    await page.goto(String(url));
    await page.type('#email', EMAIL);
    await page.type('#password', PASSWORD);
    await Promise.all([page.waitForNavigation(), page.click('#sign-in')]);
    const consent = await page.$eval('h1', (h) => h.textContent ?? '');
    assert.match(consent, /E2E Agent|Allow/);
    await page.select('#workspace', workspaceId);
    await Promise.all([page.waitForNavigation(), page.click(decision === 'allow' ? '#allow' : '#deny')]);
    assert.equal(codes.length, before + 1, 'the browser came back to the redirect URI');
    return codes.at(-1) as (typeof codes)[number];
  } finally {
    await page.close();
  }
}

/** Where a client sends the person to sign in (RFC 6749 section 4.1.1, with PKCE and a resource). */
function authorizeUrl(
  clientId: string,
  challenge: string,
  o: { redirect?: string; state?: string; resource?: string } = {},
) {
  const u = new URL(`${fleet.gatewayUrl}/oauth/authorize`);
  for (const [k, v] of Object.entries({
    response_type: 'code',
    client_id: clientId,
    redirect_uri: o.redirect ?? redirectUrl,
    code_challenge: challenge,
    code_challenge_method: 'S256',
    state: o.state ?? 'st',
    resource: o.resource ?? `${fleet.gatewayUrl}/mcp`,
  }))
    u.searchParams.set(k, v);
  return u;
}
const mcpUrl = () => new URL(`${fleet.gatewayUrl}/mcp`);
const tokenRequest = (params: Record<string, string>) =>
  fetch(`${fleet.gatewayUrl}/oauth/token`, {
    method: 'POST',
    headers: { 'content-type': 'application/x-www-form-urlencoded' },
    body: new URLSearchParams(params),
  }).then(async (r) => ({ status: r.status, body: (await r.json()) as Record<string, string> }));
const credits = (token: string, base = fleet.gatewayUrl) =>
  call<{ code?: string }>(base, 'GET', '/v1/credits', { key: token });
/** One tools/call through /mcp with `token`: the HTTP status and, on 200, whether the tool answered. */
async function toolCall(token: string, base = fleet.gatewayUrl) {
  const res = await fetch(`${base}/mcp`, {
    method: 'POST',
    headers: {
      authorization: `Bearer ${token}`,
      'content-type': 'application/json',
      accept: 'application/json, text/event-stream',
      'mcp-protocol-version': '2025-06-18',
    },
    body: JSON.stringify({
      jsonrpc: '2.0',
      id: 1,
      method: 'tools/call',
      params: { name: 'service_credits_get', arguments: {} },
    }),
  });
  const text = await res.text();
  return {
    status: res.status,
    ok: res.status === 200 && text.includes('"structuredContent"') && !text.includes('"isError":true'),
    text,
  };
}
const sql = async (query: string, values: unknown[] = []) => {
  const db = new pg.Client({ connectionString: fleet.databaseUrl('gateway') });
  await db.connect();
  try {
    return (await db.query(query, values)).rows;
  } finally {
    await db.end();
  }
};

describe('OAuth', () => {
  before(async () => {
    await sharedFleet('plain');
    callback = createServer((req, res) => {
      const u = new URL(req.url ?? '/', 'http://127.0.0.1');
      // Only what arrives at the redirect URI counts (the browser also asks for a favicon).
      if (u.pathname === '/callback')
        codes.push({
          code: u.searchParams.get('code'),
          error: u.searchParams.get('error'),
          state: u.searchParams.get('state'),
        });
      res.writeHead(200, { 'content-type': 'text/html' }).end('<!doctype html><title>done</title>You can close this.');
    });
    await new Promise<void>((r) => callback.listen(0, '127.0.0.1', r));
    redirectUrl = `http://127.0.0.1:${(callback.address() as { port: number }).port}/callback`;
    workspaceName = `oauth-${Date.now()}`;
    ({ workspaceId } = await fleet.admin<{ workspaceId: string }>(
      'workspace',
      'create',
      workspaceName,
      '--plan',
      'pro',
    ));
    await fleet.admin('workspace', 'create', `${workspaceName}-other`, '--plan', 'pro');
    await addUser(EMAIL);
    browser = await puppeteer.launch({ executablePath: '/usr/bin/chromium', headless: true, args: ['--no-sandbox'] });
  });

  after(async () => {
    await browser?.close();
    callback?.close();
  });

  describe('OAuth sign-in for MCP clients', () => {
    let tokens: OAuthTokens;
    let clientId: string;

    test('an MCP client with no credential is challenged, registers, a person signs in and consents, and the client calls a tool', async () => {
      const bare = await fetch(mcpUrl(), {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: '{}',
      });
      assert.equal(bare.status, 401);
      assert.match(
        bare.headers.get('www-authenticate') ?? '',
        /resource_metadata="[^"]+\/\.well-known\/oauth-protected-resource\/mcp"/,
      );
      const provider = new MemoryProvider();
      const first = new Client({ name: 'e2e-agent', version: '1.0.0' });
      const transport = new StreamableHTTPClientTransport(mcpUrl(), { authProvider: provider });
      await assert.rejects(first.connect(transport), /Unauthorized/i, 'no token yet: the client is sent to sign in');
      assert.ok(provider.info?.client_id, 'the client registered itself');
      const authorization = provider.authorizationUrl as URL;
      assert.equal(authorization.origin + authorization.pathname, `${fleet.gatewayUrl}/oauth/authorize`);
      assert.equal(authorization.searchParams.get('code_challenge_method'), 'S256');
      assert.equal(authorization.searchParams.get('resource'), `${fleet.gatewayUrl}/mcp`);
      const { code, state } = await signInAndAllow(authorization);
      assert.ok(code);
      assert.equal(state, authorization.searchParams.get('state'));
      await transport.finishAuth(code);
      tokens = provider.saved as OAuthTokens;
      clientId = provider.info?.client_id as string;
      assert.match(tokens.access_token, /^oat_/);
      assert.equal(tokens.expires_in, 3600);
      assert.equal(tokens.scope, 'api');
      const client = new Client({ name: 'e2e-agent', version: '1.0.0' });
      await client.connect(new StreamableHTTPClientTransport(mcpUrl(), { authProvider: provider }));
      try {
        const result = await client.callTool({ name: 'service_credits_get', arguments: {} });
        assert.notEqual(result.isError, true, JSON.stringify(result));
        assert.equal(typeof (result.structuredContent as { remaining: unknown }).remaining, 'number');
      } finally {
        await client.close();
      }
      // Only hashes are kept.
      const stored = await sql('SELECT count(*)::int AS n FROM oauth_tokens WHERE token_hash = $1', [
        createHash('sha256').update(tokens.access_token).digest(),
      ]);
      assert.equal(stored[0].n, 1);
    });

    test('the MCP token is refused on REST; it expires after its hour and the refresh token, used once, rotates', async () => {
      const onRest = await credits(tokens.access_token);
      assert.deepEqual([onRest.status, onRest.body.code], [403, 'tenant_scope']);
      assert.equal((await toolCall(tokens.access_token)).ok, true);
      // An hour later (the clock moved: the token's expiry put in the past).
      await sql(
        "UPDATE oauth_tokens SET expires_at = now() - interval '1 second' WHERE kind = 'access' AND client_id = $1",
        [clientId],
      );
      assert.equal((await toolCall(tokens.access_token)).status, 401);
      const refreshed = await tokenRequest({
        grant_type: 'refresh_token',
        refresh_token: tokens.refresh_token as string,
        client_id: clientId,
      });
      assert.equal(refreshed.status, 200, JSON.stringify(refreshed.body));
      assert.notEqual(refreshed.body.refresh_token, tokens.refresh_token, 'a new refresh token each time');
      assert.equal((await toolCall(refreshed.body.access_token as string)).ok, true);
      // The old refresh token again: refused, and its whole family revoked (the new tokens too).
      const replayed = await tokenRequest({
        grant_type: 'refresh_token',
        refresh_token: tokens.refresh_token as string,
        client_id: clientId,
      });
      assert.deepEqual([replayed.status, replayed.body.error], [400, 'invalid_grant']);
      assert.equal((await toolCall(refreshed.body.access_token as string)).status, 401, 'the family is revoked');
      const again = await tokenRequest({
        grant_type: 'refresh_token',
        refresh_token: refreshed.body.refresh_token as string,
        client_id: clientId,
      });
      assert.equal(again.status, 400);
    });

    test('removing the member cuts the token off on the next request, on two gateway replicas', async () => {
      const second = await fleet.extraGateway();
      try {
        const provider = new MemoryProvider();
        const transport = new StreamableHTTPClientTransport(mcpUrl(), { authProvider: provider });
        await assert.rejects(new Client({ name: 'e2e', version: '1' }).connect(transport), /Unauthorized/i);
        const { code } = await signInAndAllow(provider.authorizationUrl as URL);
        await transport.finishAuth(code as string);
        const token = provider.saved?.access_token as string;
        for (const base of [fleet.gatewayUrl, second.url]) assert.equal((await toolCall(token, base)).ok, true, base);
        const ws = (await sql('SELECT name FROM workspaces WHERE id = $1', [workspaceId]))[0].name as string;
        await fleet.admin('member', 'remove', ws, EMAIL);
        for (const base of [fleet.gatewayUrl, second.url])
          assert.equal((await toolCall(token, base)).status, 401, base);
        await fleet.admin('member', 'add', ws, EMAIL);
        assert.equal(
          (await toolCall(token, fleet.gatewayUrl)).status,
          401,
          'its tokens were revoked, not only suspended',
        );
      } finally {
        await second.stop();
      }
    });

    test('a CLI signs in with a loopback redirect and PKCE: its token works on REST, not on /mcp; signing out ends it', async () => {
      const registered = await call<{ client_id: string }>(fleet.gatewayUrl, 'POST', '/oauth/register', {
        body: { client_name: 'wap CLI', redirect_uris: [redirectUrl], token_endpoint_auth_method: 'none' },
      });
      assert.equal(registered.status, 201);
      const cli = registered.body.client_id;
      const verifier = randomBytes(48).toString('base64url');
      const u = authorizeUrl(cli, createHash('sha256').update(verifier).digest('base64url'), {
        state: 'cli-state',
        resource: `${fleet.gatewayUrl}/v1`,
      });
      const { code } = await signInAndAllow(u);
      const issued = await tokenRequest({
        grant_type: 'authorization_code',
        code: code as string,
        redirect_uri: redirectUrl,
        client_id: cli,
        code_verifier: verifier,
      });
      assert.equal(issued.status, 200, JSON.stringify(issued.body));
      const token = issued.body.access_token as string;
      assert.equal((await credits(token)).status, 200, 'a CLI token works on REST');
      const onMcp = await toolCall(token);
      assert.equal(onMcp.status, 403);
      assert.match(onMcp.text, /tenant_scope/);
      const out = await fleet.admin<{ tokensRevoked: number }>('user', 'sign-out', EMAIL);
      assert.ok(out.tokensRevoked >= 2, JSON.stringify(out));
      assert.equal((await credits(token)).status, 401, 'signed out: the next request is refused');
      const refresh = await tokenRequest({
        grant_type: 'refresh_token',
        refresh_token: issued.body.refresh_token as string,
        client_id: cli,
      });
      assert.equal(refresh.status, 400);
    });

    test('malformed exchanges are refused as RFC 6749 and RFC 7636 say', async () => {
      const register = async (redirect_uris: string[]) =>
        (await call<{ client_id: string; error?: string }>(fleet.gatewayUrl, 'POST', '/oauth/register', {
          body: { client_name: 'E2E Agent', redirect_uris, token_endpoint_auth_method: 'none' },
        })) as { status: number; body: { client_id: string; error?: string } };
      const a = (await register([redirectUrl])).body.client_id;
      const b = (await register([redirectUrl])).body.client_id;
      const refused = await register(['http://evil.example/callback']);
      assert.deepEqual([refused.status, refused.body.error], [400, 'invalid_redirect_uri'], 'plain http off loopback');
      const verifier = randomBytes(32).toString('base64url');
      const challenge = createHash('sha256').update(verifier).digest('base64url');
      // A redirect URI the client did not register: an error page, and nothing sent there.
      const unregistered = await fetch(authorizeUrl(a, challenge, { redirect: `${redirectUrl}/other` }), {
        redirect: 'manual',
      });
      assert.equal(unregistered.status, 400);
      assert.equal(unregistered.headers.get('location'), null);
      // PKCE plain is not offered.
      const plain = authorizeUrl(a, challenge);
      plain.searchParams.set('code_challenge_method', 'plain');
      const noPlain = await fetch(plain, { redirect: 'manual' });
      assert.equal(noPlain.status, 302);
      assert.equal(new URL(noPlain.headers.get('location') as string).searchParams.get('error'), 'invalid_request');
      // Denied: access_denied at the redirect URI.
      assert.equal((await signInAndAllow(authorizeUrl(a, challenge), 'deny')).error, 'access_denied');
      const { code } = await signInAndAllow(authorizeUrl(a, challenge));
      const exchange = (over: Record<string, string> = {}) =>
        tokenRequest({
          grant_type: 'authorization_code',
          code: code as string,
          redirect_uri: redirectUrl,
          client_id: a,
          code_verifier: verifier,
          ...over,
        });
      // A wrong verifier spends the code (RFC 7636 section 4.6): the right one cannot use it after.
      const wrong = await exchange({ code_verifier: randomBytes(32).toString('base64url') });
      assert.deepEqual([wrong.status, wrong.body.error], [400, 'invalid_grant']);
      const afterWrong = await exchange();
      assert.deepEqual([afterWrong.status, afterWrong.body.error], [400, 'invalid_grant']);
      // A code for another client, and a code used twice.
      const second = await signInAndAllow(authorizeUrl(a, challenge));
      const other = await tokenRequest({
        grant_type: 'authorization_code',
        code: second.code as string,
        redirect_uri: redirectUrl,
        client_id: b,
        code_verifier: verifier,
      });
      assert.deepEqual([other.status, other.body.error], [400, 'invalid_grant']);
      const third = await signInAndAllow(authorizeUrl(a, challenge));
      const good = await exchange({ code: third.code as string });
      assert.equal(good.status, 200, JSON.stringify(good.body));
      assert.equal((await toolCall(good.body.access_token as string)).ok, true);
      const reused = await exchange({ code: third.code as string });
      assert.deepEqual([reused.status, reused.body.error], [400, 'invalid_grant']);
      assert.equal(
        (await toolCall(good.body.access_token as string)).status,
        401,
        'a reused code revokes what it gave',
      );
      const unknownClient = await exchange({ client_id: 'wapc_nobody' });
      assert.deepEqual([unknownClient.status, unknownClient.body.error], [401, 'invalid_client']);
      const grant = await tokenRequest({ grant_type: 'password', client_id: a });
      assert.equal(grant.body.error, 'unsupported_grant_type');
    });
  });

  interface Answer {
    status: number;
    headers: IncomingHttpHeaders;
    body: string;
  }

  let hosts = 0;
  /** A loopback address no other request of this file came from: another machine, as the gateway sees it. */
  const newAddress = () => {
    hosts++;
    return `127.0.${Math.floor(hosts / 250) + 1}.${(hosts % 250) + 2}`;
  };

  /** A request sent from the loopback address `from`. */
  function sendFrom(
    from: string,
    url: string,
    o: { form?: Record<string, string>; cookie?: string; accept?: string } = {},
  ): Promise<Answer> {
    const body = o.form && new URLSearchParams(o.form).toString();
    return new Promise((resolve, reject) => {
      const req = httpRequest(
        url,
        {
          method: body === undefined ? 'GET' : 'POST',
          localAddress: from,
          headers: {
            accept: o.accept ?? 'text/html',
            ...(body !== undefined && { 'content-type': 'application/x-www-form-urlencoded' }),
            ...(o.cookie && { cookie: o.cookie }),
          },
        },
        (res) => {
          const chunks: Buffer[] = [];
          res.on('data', (c: Buffer) => chunks.push(c));
          res.on('end', () =>
            resolve({
              status: res.statusCode ?? 0,
              headers: res.headers,
              body: Buffer.concat(chunks).toString('utf8'),
            }),
          );
          res.on('error', reject);
        },
      );
      req.on('error', reject);
      req.end(body);
    });
  }

  /** The signed request a page's form carries. */
  const formRequest = (page: Answer) => {
    const found = /name="request" value="([^"]+)"/.exec(page.body)?.[1];
    assert.ok(found, `a form in: ${page.status} ${page.body.slice(0, 300)}`);
    return found;
  };

  const median = (xs: number[]) => {
    const s = [...xs].sort((a, b) => a - b);
    return s[Math.floor(s.length / 2)] as number;
  };

  describe('Sign-in under attack', () => {
    let replica: { url: string; stop: () => Promise<number | null> };
    let clientId: string;
    const challenge = createHash('sha256').update(randomBytes(32).toString('base64url')).digest('base64url');

    before(async () => {
      replica = await fleet.extraGateway();
      const registered = await call<{ client_id: string }>(fleet.gatewayUrl, 'POST', '/oauth/register', {
        body: { client_name: 'E2E Agent', redirect_uris: [redirectUrl], token_endpoint_auth_method: 'none' },
      });
      clientId = registered.body.client_id;
    });
    after(async () => {
      await replica?.stop();
    });

    /** The sign-in page, opened from `from`: the signed request its form carries. */
    const openSignIn = async (from: string) =>
      formRequest(await sendFrom(from, authorizeUrl(clientId, challenge).href));
    const signIn = (
      from: string,
      request: string,
      email: string,
      password: string,
      o: { base?: string; accept?: string } = {},
    ) =>
      sendFrom(from, `${o.base ?? fleet.gatewayUrl}/oauth/authorize`, {
        form: { step: 'sign-in', request, email, password },
        ...(o.accept && { accept: o.accept }),
      });

    test('an unknown email is refused as slowly as a wrong password for a real account', async (t) => {
      const email = 'timed@example.test';
      await addUser(email, false);
      const request = await openSignIn(newAddress());
      const time = async (who: string) => {
        const started = performance.now();
        const answer = await signIn(newAddress(), request, who, 'not the password');
        const ms = performance.now() - started;
        assert.equal(answer.status, 401);
        assert.match(answer.body, /id="failed"/);
        return ms;
      };
      await time(email);
      await time('warm-up@example.test');
      const known: number[] = [];
      const unknown: number[] = [];
      for (let i = 0; i < 7; i++) {
        known.push(await time(email));
        unknown.push(await time(`nobody-${i}@example.test`));
      }
      const [k, u] = [median(known), median(unknown)];
      t.diagnostic(`median ${u.toFixed(1)} ms for unknown emails, ${k.toFixed(1)} ms for a real one`);
      assert.ok(u >= 0.5 * k, `median ${u.toFixed(1)} ms for unknown emails, ${k.toFixed(1)} ms for a real one`);
    });

    const count = (answers: Answer[], status: number) => answers.filter((a) => a.status === status).length;

    test('fifty wrong passwords then the right one: a handful are checked, the rest wait on every replica until the lock lapses; signing in clears it', async (t) => {
      const email = 'guessed@example.test';
      await addUser(email);
      const address = newAddress();
      const request = await openSignIn(address);
      // All at once, as a script would: the count is taken before each password is checked.
      const started = performance.now();
      const guesses = await Promise.all(
        Array.from({ length: 50 }, (_, i) => signIn(address, request, email, `wrong guess ${i}`)),
      );
      const checked = count(guesses, 401);
      assert.equal(checked + count(guesses, 429), 50, guesses.map((g) => g.status).join(' '));
      t.diagnostic(`${checked} of 50 guesses checked, all answered in ${(performance.now() - started).toFixed(0)} ms`);
      assert.ok(checked >= 5 && checked <= 7, `${checked} of 50 guesses were checked`);
      const right = await signIn(address, request, email, PASSWORD);
      assert.equal(right.status, 429, 'the right password waits too');
      const retryAfter = Number(right.headers['retry-after']);
      assert.ok(retryAfter >= 1 && retryAfter <= 900, `Retry-After: ${right.headers['retry-after']}`);
      assert.match(right.body, /id="wait"[^>]*>[^<]*wait/i, 'the page says to wait');
      assert.match(right.body, /id="sign-in"/, 'and keeps the form');
      const asJson = await signIn(address, request, email, PASSWORD, { accept: 'application/json' });
      const error = JSON.parse(asJson.body) as { code: string; details: { kind: string; retryAfterSeconds: number } };
      assert.deepEqual([asJson.status, error.code, error.details.kind], [429, 'concurrency_limit', 'sign_in']);
      assert.equal(asJson.headers['retry-after'], String(error.details.retryAfterSeconds));
      assert.equal(
        (await signIn(address, request, email, PASSWORD, { base: replica.url })).status,
        429,
        'on a replica',
      );
      // Someone at another address is not held by this address's guesses.
      assert.equal((await signIn(newAddress(), request, email, PASSWORD)).status, 200);
      await until('the lock lapses', async () => (await signIn(address, request, email, PASSWORD)).status === 200);
      // Signed in from there: its count starts again, and four typos are each checked.
      for (let i = 0; i < 4; i++) assert.equal((await signIn(address, request, email, `typo ${i}`)).status, 401);
    });

    test('one address trying many accounts is held after twenty failures; a person at another address is not', async () => {
      const address = newAddress();
      const request = await openSignIn(address);
      const sprayed = await Promise.all(
        Array.from({ length: 30 }, (_, i) => signIn(address, request, `someone-${i}@example.test`, 'Summer2026!')),
      );
      const checked = count(sprayed, 401);
      assert.ok(checked >= 20 && checked <= 22, `${checked} of 30 were checked`);
      assert.equal(checked + count(sprayed, 429), 30);
      const held = await signIn(address, request, EMAIL, PASSWORD);
      assert.equal(held.status, 429);
      assert.ok(Number(held.headers['retry-after']) >= 1);
      assert.equal((await signIn(newAddress(), request, EMAIL, PASSWORD)).status, 200);
    });

    test('many addresses guessing one account only slow it, by a minute at most; an address that signed in before gets in, and the wait lapses', async () => {
      const email = 'targeted@example.test';
      await addUser(email);
      const home = newAddress();
      const request = await openSignIn(home);
      assert.equal((await signIn(home, request, email, PASSWORD)).status, 200);
      const guesses = await Promise.all(
        Array.from({ length: 14 }, (_, i) => signIn(newAddress(), request, email, `wrong guess ${i}`)),
      );
      assert.ok(count(guesses, 429) >= 1, guesses.map((g) => g.status).join(' '));
      for (const g of guesses.filter((x) => x.status === 429))
        assert.ok(Number(g.headers['retry-after']) <= 60, `Retry-After: ${g.headers['retry-after']}`);
      // The attack goes on: the account's wait at its longest.
      await sql("UPDATE sign_in_throttles SET locked_until = now() + interval '60 seconds' WHERE key = $1", [
        `account:${email}`,
      ]);
      const stranger = await signIn(newAddress(), request, email, PASSWORD);
      assert.equal(stranger.status, 429, 'a new address waits, even with the right password');
      assert.ok(Number(stranger.headers['retry-after']) <= 60);
      assert.equal((await signIn(home, request, email, PASSWORD)).status, 200, 'the address she signed in from before');
      // A minute later.
      await sql("UPDATE sign_in_throttles SET locked_until = now() - interval '1 second' WHERE key = $1", [
        `account:${email}`,
      ]);
      assert.equal((await signIn(newAddress(), request, email, PASSWORD)).status, 200);
    });

    /** Signed in from `address`: the consent page's form, and the cookie it came with. */
    const consentForm = async (address: string) => {
      const signedIn = await signIn(address, await openSignIn(address), EMAIL, PASSWORD);
      assert.equal(signedIn.status, 200);
      const setCookie = signedIn.headers['set-cookie']?.find((c) => c.startsWith('wap_consent_')) ?? '';
      const form = { step: 'consent', request: formRequest(signedIn), workspace: workspaceId, decision: 'allow' };
      return { setCookie, cookie: setCookie.split(';')[0] as string, form };
    };
    const postConsent = (
      address: string,
      form: Record<string, string>,
      o: { cookie?: string; accept?: string; base?: string } = {},
    ) => sendFrom(address, `${o.base ?? fleet.gatewayUrl}/oauth/authorize`, { form, ...o });

    test('a consent form answers once: posted again, here or on a replica, it gets no second code', async () => {
      const address = newAddress();
      const { cookie, form } = await consentForm(address);
      const first = await postConsent(address, form, { cookie });
      assert.equal(first.status, 302, first.body);
      assert.ok(new URL(first.headers.location as string).searchParams.get('code'));
      const again = await postConsent(address, form, { cookie });
      assert.deepEqual([again.status, again.headers.location], [400, undefined], 'a second post gets no second code');
      assert.match(again.body, /id="error"/);
      const onReplica = await postConsent(address, form, { cookie, accept: 'application/json', base: replica.url });
      assert.deepEqual([onReplica.status, JSON.parse(onReplica.body).code], [400, 'bad_request']);
    });

    test('a consent form is bound to the browser that signed in: without its cookie it is refused, and stays good', async () => {
      const address = newAddress();
      const { setCookie, cookie, form } = await consentForm(address);
      assert.match(setCookie, /; HttpOnly/i);
      assert.match(setCookie, /; SameSite=Strict/i);
      // The form without its cookie (posted by another site's page, or from another browser).
      const stolen = await postConsent(newAddress(), form);
      assert.deepEqual([stolen.status, stolen.headers.location], [400, undefined]);
      assert.match(stolen.body, /id="error"/);
      const stolenJson = await postConsent(newAddress(), form, { accept: 'application/json' });
      assert.deepEqual([stolenJson.status, JSON.parse(stolenJson.body).code], [400, 'bad_request']);
      const own = await postConsent(address, form, { cookie });
      assert.equal(own.status, 302, own.body);
      assert.ok(new URL(own.headers.location as string).searchParams.get('code'));
    });
  });
});
