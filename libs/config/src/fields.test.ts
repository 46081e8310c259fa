import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import type { z } from 'zod';
import { bool, csv, duration, hostPort, logLevel, port, url } from './index.js';

function reasonOf(schema: z.ZodType, raw: unknown): string {
  const result = schema.safeParse(raw);
  assert.ok(!result.success, `expected ${JSON.stringify(raw)} to be rejected`);
  return result.error.issues.map((i) => i.message).join('; ');
}

describe('port', () => {
  it('accepts 1..65535', () => {
    assert.equal(port().parse('1'), 1);
    assert.equal(port().parse(' 50051 '), 50051);
    assert.equal(port().parse('65535'), 65535);
  });

  it('rejects anything else with the value', () => {
    for (const raw of ['0', '65536', '-1', '80.5', 'abc', '1e3', '123456']) {
      assert.equal(reasonOf(port(), raw), `expected an integer between 1 and 65535, got ${JSON.stringify(raw)}`);
    }
  });
});

describe('url', () => {
  it('keeps the URL as written', () => {
    const raw = 'postgresql://app:pw@db:5432/app?sslmode=require';
    assert.equal(url({ protocols: ['postgresql:', 'postgres:'] }).parse(raw), raw);
    assert.equal(url({ protocols: ['nats'] }).parse('nats://localhost:4222'), 'nats://localhost:4222');
    assert.equal(url().parse('https://otel:4318'), 'https://otel:4318');
  });

  it('rejects another protocol, naming the ones allowed', () => {
    assert.equal(
      reasonOf(url({ protocols: ['nats:', 'tls:'] }), 'http://nats:4222'),
      'expected a URL with protocol nats: or tls:, got "http://nats:4222"',
    );
  });

  it('rejects non-URLs and URLs without a host', () => {
    for (const raw of ['not a url', 'localhost:4222', '/relative']) {
      assert.match(reasonOf(url(), raw), /^expected an absolute URL, got /);
    }
  });

  it('never echoes credentials', () => {
    const reason = reasonOf(url({ protocols: ['postgresql:'] }), 'mysql://root:s3cr/et@db/x?password=hunter2');
    assert.equal(reason, 'expected a URL with protocol postgresql:, got "mysql://***@db/x?***"');
  });

  it('takes a list separated by commas when asked, each URL checked and none echoed with credentials', () => {
    const nats = url({ protocols: ['nats:'], list: true });
    assert.equal(
      nats.parse('nats://a:4222, nats://b:4222 ,nats://c:4222'),
      'nats://a:4222,nats://b:4222,nats://c:4222',
    );
    assert.equal(nats.parse('nats://a:4222'), 'nats://a:4222');
    assert.equal(
      reasonOf(nats, 'nats://u:pw@a:4222,http://u:pw@b:4222'),
      'expected a URL with protocol nats:, or several separated by commas, got "nats://***@a:4222,http://***@b:4222"',
    );
    assert.match(reasonOf(nats, 'nats://a:4222,'), /^expected /);
    assert.match(reasonOf(url({ protocols: ['nats:'] }), 'nats://a:4222,nats://b:4222'), /^expected /);
  });
});

describe('duration', () => {
  it('reads units and bare milliseconds', () => {
    assert.equal(duration().parse('500ms'), 500);
    assert.equal(duration().parse('30s'), 30_000);
    assert.equal(duration().parse('5m'), 300_000);
    assert.equal(duration().parse('1h'), 3_600_000);
    assert.equal(duration().parse('7d'), 604_800_000);
    assert.equal(duration().parse('2 days'), 172_800_000);
    assert.equal(duration().parse('1.5s'), 1_500);
    assert.equal(duration().parse('250'), 250);
    assert.equal(duration().parse('0'), 0);
  });

  it('rejects the rest', () => {
    for (const raw of ['-5s', '5 fortnights', 's', '5x', 'abc', '1e9', ' ']) {
      assert.match(
        reasonOf(duration(), raw),
        /^expected a duration such as 500ms, 30s, 5m, 7d or a number of milliseconds, got /,
      );
    }
  });

  it('keeps within its bounds, naming them', () => {
    const lease = duration({ min: '1s', max: '10m' });
    assert.equal(lease.parse('1s'), 1_000);
    assert.equal(lease.parse('10m'), 600_000);
    for (const raw of ['999ms', '11m', 'soon']) {
      assert.equal(
        reasonOf(lease, raw),
        `expected a duration from 1s to 10m (500ms, 30s, 5m, 7d or a number of milliseconds), got ${JSON.stringify(raw)}`,
      );
    }
    assert.match(reasonOf(duration({ min: '1d' }), '23h'), /^expected a duration of at least 1d \(/);
    assert.match(reasonOf(duration({ max: '1m' }), '61s'), /^expected a duration of at most 1m \(/);
  });

  it('refuses bounds that are not durations', () => {
    assert.throws(() => duration({ min: 'a second' }), /not a duration: "a second"/);
  });
});

describe('bool', () => {
  it('reads true/false/1/0/yes/no in any case', () => {
    for (const raw of ['true', 'TRUE', '1', 'yes', 'Yes']) assert.equal(bool().parse(raw), true, raw);
    for (const raw of ['false', 'False', '0', 'no', 'NO']) assert.equal(bool().parse(raw), false, raw);
  });

  it('rejects the rest', () => {
    assert.equal(reasonOf(bool(), 'on'), 'expected one of true, false, 1, 0, yes, no, got "on"');
  });
});

describe('logLevel', () => {
  it('reads the levels, lower-cased', () => {
    assert.equal(logLevel().parse('debug'), 'debug');
    assert.equal(logLevel().parse('WARN'), 'warn');
  });

  it('rejects unknown levels, listing the known ones', () => {
    assert.equal(
      reasonOf(logLevel(), 'verbose'),
      'expected one of fatal, error, warn, info, debug, trace, silent, got "verbose"',
    );
  });
});

describe('csv', () => {
  it('splits, trims and drops empty items', () => {
    assert.deepEqual(csv().parse('a, b,,c ,'), ['a', 'b', 'c']);
    assert.deepEqual(csv().parse('one'), ['one']);
  });
});

describe('hostPort', () => {
  it('reads names, IPv4 and bracketed IPv6', () => {
    assert.deepEqual(hostPort().parse('redis:6379'), { host: 'redis', port: 6379 });
    assert.deepEqual(hostPort().parse('10.0.0.1:80'), { host: '10.0.0.1', port: 80 });
    assert.deepEqual(hostPort().parse('[::1]:4222'), { host: '::1', port: 4222 });
  });

  it('rejects a missing or bad port and stray parts', () => {
    for (const raw of ['redis', 'redis:', ':6379', 'redis:0', 'redis:99999', 'http://redis:6379', 'a b:1']) {
      assert.match(reasonOf(hostPort(), raw), /^expected host:port with a port between 1 and 65535, got /, raw);
    }
  });
});
