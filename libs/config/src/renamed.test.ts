import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { z } from 'zod';
import { ConfigError, duration, loadConfig, RENAMED_SETTINGS, renamedReason } from './index.js';

const schema = z.object({
  CRAWL_ACK_WAIT: duration({ min: '1s' }).prefault('30s'),
  RECORDING_RETENTION: duration({ min: '1d' }).prefault('30d'),
});

/** The ConfigError loadConfig throws for `env`. */
function refused(env: Record<string, string>): ConfigError {
  let refusal: unknown;
  assert.throws(
    () => loadConfig(schema, env),
    (err) => {
      refusal = err;
      return err instanceof ConfigError;
    },
  );
  return refusal as ConfigError;
}

describe('renamed settings', () => {
  it('are each the old name less its unit', () => {
    for (const [old, now] of Object.entries(RENAMED_SETTINGS)) {
      assert.match(old, /_(MS|SECONDS|DAYS)$/);
      assert.equal(old.replace(/_(MS|SECONDS|DAYS)$/, ''), now);
    }
  });

  it('give the value written as a duration, in its old unit', () => {
    assert.equal(
      renamedReason('CRAWL_ACK_WAIT_MS', '2000'),
      'renamed CRAWL_ACK_WAIT, a duration (500ms, 30s, 5m, 7d): write CRAWL_ACK_WAIT=2s',
    );
    assert.match(renamedReason('CRAWL_SWEEP_MS', '1500') ?? '', /CRAWL_SWEEP=1500ms$/);
    assert.match(renamedReason('CRAWL_RETENTION_MS', '604800000') ?? '', /CRAWL_RETENTION=7d$/);
    assert.match(renamedReason('SESSION_DRAIN_SECONDS', '90') ?? '', /SESSION_DRAIN=90s$/);
    assert.match(renamedReason('SESSION_DRAIN_SECONDS', '0') ?? '', /SESSION_DRAIN=0$/);
    assert.match(renamedReason('RECORDING_RETENTION_DAYS', '30') ?? '', /RECORDING_RETENTION=30d$/);
    assert.match(renamedReason('AGENT_POLL_MS', 'fast') ?? '', /AGENT_POLL=30s$/);
    assert.equal(renamedReason('CRAWL_ACK_WAIT', '30s'), undefined);
  });

  it('are refused at load, with every other problem', () => {
    const err = refused({ CRAWL_ACK_WAIT_MS: '2000', RECORDING_RETENTION: '1h' });
    assert.equal(
      err.message,
      [
        'Invalid environment (2 problems):',
        '  CRAWL_ACK_WAIT_MS: renamed CRAWL_ACK_WAIT, a duration (500ms, 30s, 5m, 7d): write CRAWL_ACK_WAIT=2s',
        '  RECORDING_RETENTION: expected a duration of at least 1d (500ms, 30s, 5m, 7d or a number of milliseconds), got "1h"',
      ].join('\n'),
    );
  });

  it('are refused even beside the new name', () => {
    const err = refused({ CRAWL_ACK_WAIT_MS: '2000', CRAWL_ACK_WAIT: '2s' });
    assert.deepEqual(
      err.problems.map((p) => p.variable),
      ['CRAWL_ACK_WAIT_MS'],
    );
  });

  it('are left alone when blank, or when the service does not read the new name', () => {
    assert.deepEqual(loadConfig(schema, { CRAWL_ACK_WAIT_MS: ' ', AGENT_POLL_MS: '200' }), {
      CRAWL_ACK_WAIT: 30_000,
      RECORDING_RETENTION: 30 * 86_400_000,
    });
  });
});
