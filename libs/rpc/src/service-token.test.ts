import assert from 'node:assert/strict';
import { Writable } from 'node:stream';
import { after, test } from 'node:test';
import * as grpc from '@grpc/grpc-js';
import { isApiError } from '@wap/errors';
import { createLogger } from '@wap/log';
import { health, sessions } from '@wap/proto';
import { addService, createClient, createServer, HealthService, type ServiceImpl } from './index.js';

type SessionMethods = (typeof sessions.SessionService)['method'];
const TOKEN = 'the-service-token-of-this-test-0123456789';

const lines: string[] = [];
const log = createLogger({
  service: 'test',
  level: 'debug',
  destination: new Writable({
    write(chunk, _e, done) {
      lines.push(String(chunk));
      done();
    },
  }),
});

/** Every call that reached a handler, by its method's local name. */
const handled: string[] = [];
const impl = Object.fromEntries(
  sessions.SessionService.methods.map((m) => [
    m.localName,
    m.methodKind === 'server_streaming'
      ? async function* () {
          handled.push(m.localName);
          yield { seq: 1 };
        }
      : async () => {
          handled.push(m.localName);
          return {};
        },
  ]),
) as unknown as ServiceImpl<SessionMethods>;

const server = createServer({ token: TOKEN, log });
addService(server, sessions.SessionService, impl, log);
addService(server, health.Health, new HealthService('session-recorder', []).impl, log);
const address = new Promise<string>((resolve, reject) =>
  server.bindAsync('127.0.0.1:0', grpc.ServerCredentials.createInsecure(), (e, port) =>
    e ? reject(e) : resolve(`127.0.0.1:${port}`),
  ),
);
after(() => server.forceShutdown());

/** The gRPC status a refused call ended with (the client maps it to `internal`, keeping the status as cause). */
const grpcCode = (err: unknown): number | undefined =>
  isApiError(err) ? (err.cause as grpc.ServiceError | undefined)?.code : undefined;

async function callsWith(token: string | undefined) {
  const client = createClient(sessions.SessionService, await address, token === undefined ? {} : { token });
  try {
    const unary = await client.listSessions({ workspaceId: 'ws' }).then(
      () => 'answered',
      (e: unknown) => e,
    );
    const stream = await (async () => {
      for await (const _ of client.readRecording({ workspaceId: 'ws', sessionId: 's' })) return 'answered';
      return 'answered';
    })().catch((e: unknown) => e);
    return { unary, stream };
  } finally {
    client.close();
  }
}

test('a call without the service token is refused UNAUTHENTICATED and never reaches its handler', async () => {
  handled.length = 0;
  const { unary, stream } = await callsWith(undefined);
  assert.equal(grpcCode(unary), grpc.status.UNAUTHENTICATED, String(unary));
  assert.equal(grpcCode(stream), grpc.status.UNAUTHENTICATED, String(stream));
  // A peer's refusal is our wiring failing, not the caller's credential: internal, never a client's 401.
  assert.equal(isApiError(unary) && unary.code, 'internal');
  assert.deepEqual(handled, []);
});

test('a call with a wrong token, or one of another length, is refused the same way', async () => {
  handled.length = 0;
  for (const wrong of [TOKEN.replace(/.$/, 'x'), `${TOKEN}x`, TOKEN.slice(0, 10), '']) {
    const { unary, stream } = await callsWith(wrong);
    assert.equal(grpcCode(unary), grpc.status.UNAUTHENTICATED, `${JSON.stringify(wrong)}: ${String(unary)}`);
    assert.equal(grpcCode(stream), grpc.status.UNAUTHENTICATED, `${JSON.stringify(wrong)}: ${String(stream)}`);
  }
  assert.deepEqual(handled, []);
});

test('a call with the token reaches its handler', async () => {
  handled.length = 0;
  assert.deepEqual(await callsWith(TOKEN), { unary: 'answered', stream: 'answered' });
  assert.deepEqual(handled, ['listSessions', 'readRecording']);
});

test('the health service answers without a token, as probes ask it', async () => {
  const client = createClient(health.Health, await address);
  try {
    const { status } = await client.check({ service: '' });
    assert.equal(status, health.HealthCheckResponse_ServingStatus.SERVING);
  } finally {
    client.close();
  }
});

test('a refused call is logged with its method, never with a token', async () => {
  lines.length = 0;
  await callsWith(`${TOKEN}-presented-wrong`);
  const refused = lines.filter((l) => l.includes('rpc refused'));
  assert.ok(
    refused.some((l) => l.includes('/wap.sessions.v1.SessionService/ListSessions')),
    refused.join(''),
  );
  assert.ok(!lines.join('').includes(TOKEN), 'no log line holds the token, presented or expected');
});

test('a server is never made with an empty token', () => {
  assert.throws(() => createServer({ token: '', log }), /empty service token/);
});
