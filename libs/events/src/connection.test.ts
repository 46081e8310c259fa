import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { natsServers } from './connection.js';

describe('natsServers', () => {
  it('takes a user and password out of the URL, which nats.js would drop', () => {
    assert.deepEqual(natsServers('nats://wap:s3cret@127.0.0.1:42220'), {
      servers: ['nats://127.0.0.1:42220'],
      user: 'wap',
      pass: 's3cret',
    });
  });

  it('reads a user alone as a token, as the NATS clients do', () => {
    assert.deepEqual(natsServers('nats://t0ken@nats:4222'), { servers: ['nats://nats:4222'], token: 't0ken' });
  });

  it("decodes percent-encoding, and the first server's credentials serve a whole cluster", () => {
    assert.deepEqual(natsServers('nats://w%40p:p%2F%20q@a:4222, nats://b:4222,tls://other:pw@c:4222'), {
      servers: ['nats://a:4222', 'nats://b:4222', 'tls://c:4222'],
      user: 'w@p',
      pass: 'p/ q',
    });
  });

  it('leaves a URL without credentials as it was', () => {
    assert.deepEqual(natsServers('nats://a:4222,nats://b:4222'), { servers: ['nats://a:4222', 'nats://b:4222'] });
  });
});
