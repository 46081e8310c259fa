// The console's cookie as a real gateway sets it (docs/console.md, "Signing in"):
// Secure whenever the public URL is https, however the URL is written, so a
// gateway behind a TLS ingress never lets the browser send it in the clear.
import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { after, before, test } from 'node:test';
import type { NatsLink } from '@wap/events';
import { testNats } from '@wap/testkit';
import { IdentityStore } from '../oauth/identity.js';
import { freshDatabase, startGateway, type TestDatabase } from '../test-support.js';

const PASSWORD = 'a-password-long-enough-for-the-test';

let database: TestDatabase;
let link: NatsLink;
let email: string;
const stops: Array<() => Promise<void>> = [];

before(async () => {
  database = await freshDatabase(4);
  link = await testNats('console-cookie-test');
  const identity = new IdentityStore(database.db);
  const ws = await identity.createWorkspace(`ws-${randomUUID()}`, 'pro');
  email = `owner-${randomUUID()}@example.com`;
  await identity.createUser(email, PASSWORD);
  await identity.addMember(ws.id, email, 'owner');
});

after(async () => {
  for (const stop of stops) await stop();
  await link?.drain();
  await database?.close();
});

/** The cookie's attributes as a gateway with `publicUrl` sets them at sign-in and clears them at sign-out. */
async function cookieFlags(publicUrl: string) {
  const gateway = await startGateway(database, link, { PUBLIC_URL: publicUrl }, { registry: () => [] });
  stops.push(() => gateway.stop());
  const signedIn = await fetch(`${gateway.url}/console/api/session`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ email, password: PASSWORD }),
  });
  assert.equal(signedIn.status, 200, await signedIn.clone().text());
  const setCookie = signedIn.headers.get('set-cookie') ?? '';
  const { csrfToken } = (await signedIn.json()) as { csrfToken: string };
  const signedOut = await fetch(`${gateway.url}/console/api/session`, {
    method: 'DELETE',
    headers: { cookie: setCookie.split(';')[0] ?? '', 'x-csrf-token': csrfToken },
  });
  assert.equal(signedOut.status, 204);
  const flags = (header: string) => header.split(';').map((f) => f.trim().toLowerCase());
  return { set: flags(setCookie), cleared: flags(signedOut.headers.get('set-cookie') ?? '') };
}

test('the session cookie is Secure when the public URL is https, however its scheme is written', async () => {
  for (const publicUrl of ['https://console.example.test', 'HTTPS://Console.Example.Test/']) {
    const { set, cleared } = await cookieFlags(publicUrl);
    assert.ok(set.includes('secure'), `${publicUrl}: set with Secure (${set.join('; ')})`);
    assert.ok(set.includes('httponly') && set.includes('samesite=strict'), set.join('; '));
    assert.ok(cleared.includes('secure'), `${publicUrl}: cleared with the same attributes`);
  }
});

test('the session cookie is not Secure when the public URL is plain http', async () => {
  const { set } = await cookieFlags('http://127.0.0.1:8080');
  assert.ok(!set.includes('secure'), set.join('; '));
});
