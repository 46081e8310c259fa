import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { z } from 'zod';
import { bool, ConfigError, duration, loadConfig, port, url } from './index.js';

const schema = z.object({
  PORT: port(),
  DATABASE_URL: url({ protocols: ['postgresql:'] }),
  DEBUG: bool().default(false),
  TIMEOUT: duration().prefault('5s'),
  NAME: z.string().min(3),
});

function problemsOf(env: Record<string, string | undefined>): ConfigError {
  try {
    loadConfig(schema, env);
  } catch (err) {
    assert.ok(err instanceof ConfigError);
    return err;
  }
  assert.fail('expected a ConfigError');
}

describe('loadConfig', () => {
  it('returns typed values, defaults filled, unrelated variables ignored', () => {
    const config = loadConfig(schema, {
      PORT: '8080',
      DATABASE_URL: 'postgresql://db/app',
      NAME: 'crawl',
      HOME: '/root',
    });
    assert.deepEqual(config, {
      PORT: 8080,
      DATABASE_URL: 'postgresql://db/app',
      DEBUG: false,
      TIMEOUT: 5_000,
      NAME: 'crawl',
    });
  });

  it('lists every problem at once, one line per variable', () => {
    const err = problemsOf({ PORT: 'abc', DEBUG: 'maybe', NAME: 'ab' });
    assert.deepEqual(
      err.problems.map((p) => p.variable),
      ['PORT', 'DATABASE_URL', 'DEBUG', 'NAME'],
    );
    assert.equal(
      err.message,
      [
        'Invalid environment (4 problems):',
        '  PORT: expected an integer between 1 and 65535, got "abc"',
        '  DATABASE_URL: required, not set',
        '  DEBUG: expected one of true, false, 1, 0, yes, no, got "maybe"',
        `  NAME: ${err.problems[3]?.reason}`,
      ].join('\n'),
    );
    assert.match(err.problems[3]?.reason ?? '', /3/);
  });

  it('treats empty and blank values as unset', () => {
    const err = problemsOf({ PORT: '', DATABASE_URL: '   ', NAME: 'crawl', DEBUG: '', TIMEOUT: '' });
    assert.deepEqual(err.problems, [
      { variable: 'PORT', reason: 'required, not set' },
      { variable: 'DATABASE_URL', reason: 'required, not set' },
    ]);
    assert.match(err.message, /^Invalid environment \(2 problems\):/);
  });

  it('reads process.env by default', () => {
    const small = z.object({ WAP_CONFIG_TEST_PORT: port() });
    process.env.WAP_CONFIG_TEST_PORT = '1234';
    try {
      assert.deepEqual(loadConfig(small), { WAP_CONFIG_TEST_PORT: 1234 });
    } finally {
      delete process.env.WAP_CONFIG_TEST_PORT;
    }
  });

  it('says problem in the singular for one', () => {
    const err = problemsOf({ PORT: '1', DATABASE_URL: 'postgresql://db/app' });
    assert.equal(err.message, 'Invalid environment (1 problem):\n  NAME: required, not set');
    assert.equal(err.name, 'ConfigError');
  });
});
