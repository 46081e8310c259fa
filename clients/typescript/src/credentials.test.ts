// Where a client's credential comes from (docs/clients.md, "Credentials"): an explicit key, else
// SERVICE_API_KEY, else the stored CLI login; with none, a TypeError naming the variable
// before any request. And how the login is stored, read and refreshed.
import assert from 'node:assert/strict';
import { mkdtempSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:http';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterEach, beforeEach, describe, test } from 'node:test';
import { Client, type KeyringModule, type Login, LoginError, LoginStore } from './index.js';

const LOGIN: Login = {
  baseUrl: 'http://127.0.0.1:9',
  clientId: 'wapc_cli',
  accessToken: 'oat_from_login',
  refreshToken: 'ort_from_login',
  expiresAt: Date.now() + 3_600_000,
  tokenEndpoint: 'http://127.0.0.1:9/oauth/token',
  revocationEndpoint: 'http://127.0.0.1:9/oauth/revoke',
};

let dir: string;
const saved = { ...process.env };
beforeEach(() => {
  dir = mkdtempSync(path.join(tmpdir(), 'wap-sdk-'));
  process.env.XDG_CONFIG_HOME = dir;
  delete process.env.SERVICE_API_KEY;
  delete process.env.SERVICE_BASE_URL;
});
afterEach(() => {
  process.env = { ...saved };
});

const fileStore = () => new LoginStore({ keyring: null });

/** The Authorization a client sends, read by its fetch (nothing leaves the process). */
async function bearerOf(client: Client): Promise<string | undefined> {
  return (await client.credits.get().then(() => sent.at(-1)?.authorization)) ?? undefined;
}
const sent: { url: string; authorization: string | undefined }[] = [];
const recordingFetch: typeof fetch = async (input, init) => {
  sent.push({ url: String(input), authorization: new Headers(init?.headers).get('authorization') ?? undefined });
  return new Response('{}', { status: 200, headers: { 'content-type': 'application/json' } });
};
const make = (options: ConstructorParameters<typeof Client>[0] = {}) =>
  new Client({ fetch: recordingFetch, login: fileStore(), ...options });

describe('key resolution', () => {
  test('an explicit key wins over SERVICE_API_KEY and a stored login', async () => {
    fileStore().write(LOGIN);
    process.env.SERVICE_API_KEY = 'ock_env.secret';
    const client = make({ apiKey: 'ock_given.secret' });
    assert.deepEqual(client.credential, { source: 'option' });
    assert.equal(await bearerOf(client), 'Bearer ock_given.secret');
  });

  test('without one, SERVICE_API_KEY wins over a stored login; an empty key counts as missing', async () => {
    fileStore().write(LOGIN);
    process.env.SERVICE_API_KEY = 'ock_env.secret';
    const client = make({ apiKey: '' });
    assert.deepEqual(client.credential, { source: 'env', variable: 'SERVICE_API_KEY' });
    assert.equal(await bearerOf(client), 'Bearer ock_env.secret');
  });

  test('without either, the stored login, sent to the deployment it signed in to', async () => {
    fileStore().write(LOGIN);
    process.env.SERVICE_API_KEY = '';
    const client = make({ apiKey: '  ' });
    assert.equal(client.credential.source, 'login');
    assert.equal(client.baseUrl, LOGIN.baseUrl);
    assert.equal(await bearerOf(client), 'Bearer oat_from_login');
    assert.equal(sent.at(-1)?.url, `${LOGIN.baseUrl}/v1/credits`);
  });

  test('with none, the constructor throws a TypeError naming SERVICE_API_KEY before any request', () => {
    const before = sent.length;
    assert.throws(
      () => make(),
      (err: unknown) => err instanceof TypeError && /SERVICE_API_KEY/.test(err.message),
    );
    process.env.SERVICE_API_KEY = '';
    assert.throws(() => make({ apiKey: '' }), TypeError, 'empty strings are missing');
    fileStore().write(LOGIN);
    assert.throws(() => make({ login: false }), TypeError, 'login: false never reads one');
    assert.equal(sent.length, before, 'no request was made');
  });

  test('a login is never sent to another deployment than its own', () => {
    fileStore().write(LOGIN);
    assert.throws(
      () => make({ baseUrl: 'https://elsewhere.example' }),
      (err: unknown) => err instanceof TypeError && /the stored login is for http:\/\/127\.0\.0\.1:9/.test(err.message),
    );
    process.env.SERVICE_BASE_URL = 'https://elsewhere.example';
    assert.throws(() => make(), TypeError);
    process.env.SERVICE_BASE_URL = `${LOGIN.baseUrl}/`;
    assert.equal(make().credential.source, 'login');
  });

  test('withOptions keeps the credential and changes only what it is given', async () => {
    const client = make({ apiKey: 'ock_given.secret', timeoutMs: 5_000 });
    process.env.SERVICE_API_KEY = 'ock_env.secret';
    const other = client.withOptions({ timeoutMs: 9_000, maxRetries: 0 });
    assert.deepEqual([other.timeoutMs, other.maxRetries, client.timeoutMs], [9_000, 0, 5_000]);
    assert.equal(await bearerOf(other), 'Bearer ock_given.secret');
  });
});

/** An in-memory keyring shaped as @napi-rs/keyring. */
function memoryKeyring(fail = false): KeyringModule & { values: Map<string, string> } {
  const values = new Map<string, string>();
  class Entry {
    constructor(
      private readonly service: string,
      private readonly account: string,
    ) {}
    private check() {
      if (fail) throw new Error("Couldn't access platform storage: AccessDenied");
    }
    getPassword() {
      this.check();
      return values.get(`${this.service}/${this.account}`) ?? null;
    }
    setPassword(password: string) {
      this.check();
      values.set(`${this.service}/${this.account}`, password);
    }
    deletePassword() {
      this.check();
      return values.delete(`${this.service}/${this.account}`);
    }
  }
  return { Entry, values };
}

describe('login storage', () => {
  test('without a keyring the login is a 0600 file in a 0700 folder under XDG_CONFIG_HOME', () => {
    const store = fileStore();
    assert.equal(store.file, path.join(dir, 'web-access', 'login.json'));
    const { storage, warning } = store.write(LOGIN);
    assert.equal(storage, 'file');
    assert.match(warning ?? '', /keyring.*login\.json \(mode 0600\)/);
    assert.equal(statSync(store.file).mode & 0o777, 0o600);
    assert.equal(statSync(path.join(dir, 'web-access')).mode & 0o777, 0o700);
    assert.deepEqual(store.read(), { status: 'found', login: LOGIN, storage: 'file' });
    store.remove();
    assert.deepEqual(store.read(), { status: 'missing' });
  });

  test('with a keyring the tokens go there and the file only says where they are', () => {
    const keyring = memoryKeyring();
    const store = new LoginStore({ keyring });
    assert.deepEqual(store.write(LOGIN), { storage: 'keyring' });
    assert.deepEqual(JSON.parse(keyring.values.get('web-access/login') ?? ''), LOGIN);
    const pointer = readFileSync(store.file, 'utf8');
    assert.ok(!pointer.includes('oat_') && !pointer.includes('ort_'), pointer);
    assert.deepEqual(store.read(), { status: 'found', login: LOGIN, storage: 'keyring' });
    // A reader without the keyring module knows a login is there and says why it cannot use it.
    const found = fileStore().read();
    assert.equal(found.status, 'unreadable');
    assert.throws(() => make(), /SERVICE_API_KEY.*OS keyring/);
    store.remove();
    assert.equal(keyring.values.size, 0);
  });

  test('a keyring that refuses falls back to the file, with a warning', () => {
    const store = new LoginStore({ keyring: memoryKeyring(true) });
    const { storage, warning } = store.write(LOGIN);
    assert.equal(storage, 'file');
    assert.match(warning ?? '', /AccessDenied/);
    assert.equal(fileStore().read().status, 'found');
  });
});

describe('refreshing a stored login', () => {
  test('a token near its expiry is refreshed once, even by two clients at once, and the new pair stored', async () => {
    const grants: URLSearchParams[] = [];
    const server = createServer((req, res) => {
      let body = '';
      req.on('data', (c: Buffer) => {
        body += c.toString();
      });
      req.on('end', () => {
        grants.push(new URLSearchParams(body));
        // Slow enough that the second caller waits on the lock rather than refreshing too.
        setTimeout(() => {
          res.writeHead(200, { 'content-type': 'application/json' }).end(
            JSON.stringify({
              access_token: 'oat_new',
              refresh_token: 'ort_new',
              expires_in: 3600,
              token_type: 'Bearer',
            }),
          );
        }, 100);
      });
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    try {
      const base = `http://127.0.0.1:${(server.address() as { port: number }).port}`;
      const store = fileStore();
      store.write({ ...LOGIN, baseUrl: base, tokenEndpoint: `${base}/oauth/token`, expiresAt: Date.now() + 60_000 });
      const [a, b] = await Promise.all([fileStore().fresh(), fileStore().fresh()]);
      assert.equal(grants.length, 1, 'one refresh: a spent refresh token sent again would revoke the family');
      assert.deepEqual(Object.fromEntries(grants[0] ?? []), {
        grant_type: 'refresh_token',
        refresh_token: 'ort_from_login',
        client_id: 'wapc_cli',
      });
      assert.deepEqual([a.accessToken, b.accessToken], ['oat_new', 'oat_new']);
      const stored = store.read();
      assert.ok(stored.status === 'found');
      assert.equal(stored.login.refreshToken, 'ort_new');
      assert.ok(stored.login.expiresAt > Date.now() + 3_500_000);
      assert.equal(statSync(store.file).mode & 0o777, 0o600);
    } finally {
      server.close();
    }
  });

  test('a refresh the server refuses is a LoginError that says to sign in again', async () => {
    const server = createServer((_req, res) =>
      res.writeHead(400, { 'content-type': 'application/json' }).end('{"error":"invalid_grant"}'),
    );
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    try {
      const base = `http://127.0.0.1:${(server.address() as { port: number }).port}`;
      fileStore().write({ ...LOGIN, tokenEndpoint: `${base}/oauth/token`, expiresAt: Date.now() - 1 });
      await assert.rejects(
        fileStore().fresh(),
        (err: unknown) => err instanceof LoginError && /wap login/.test(err.message),
      );
    } finally {
      server.close();
    }
  });

  test('a file that is not a login is reported, not used', () => {
    const store = fileStore();
    store.write(LOGIN);
    writeFileSync(store.file, '{"storage":"file"}');
    assert.equal(store.read().status, 'unreadable');
    assert.throws(() => make(), /not a login/);
  });
});
