import assert from 'node:assert/strict';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { after, describe, it } from 'node:test';
import { readEnvFile } from './env-file.js';

const dir = mkdtempSync(path.join(tmpdir(), 'wap-env-file-'));
after(() => rmSync(dir, { recursive: true, force: true }));

function envFile(text: string): string {
  const file = path.join(dir, `${Math.random().toString(36).slice(2)}.env`);
  writeFileSync(file, text);
  return file;
}

const known = new Set(['LOG_LEVEL', 'CRAWL_ACK_WAIT']);

describe('the .env of make up', () => {
  it('hands back the settings some service reads', () => {
    assert.deepEqual(readEnvFile(envFile('LOG_LEVEL=debug\nCRAWL_ACK_WAIT=2s\n'), known), {
      LOG_LEVEL: 'debug',
      CRAWL_ACK_WAIT: '2s',
    });
    assert.deepEqual(readEnvFile(path.join(dir, 'absent.env'), known), {});
  });

  it("refuses the fleet's own, unknown names and old names, saying what to write instead", () => {
    const file = envFile('DATABASE_URL=postgres://x/y\nCRAWL_ACK_WAIT_MS=2000\nCRAWL_ACKWAIT=2s\n');
    let message = '';
    assert.throws(
      () => readEnvFile(file, known),
      (err: Error) => {
        message = err.message;
        return true;
      },
    );
    const [first, ...problems] = message.split('\n');
    assert.equal(first, `${file}:`);
    assert.deepEqual(problems.sort(), [
      '  CRAWL_ACKWAIT: no service reads it (the settings are listed in docs/settings.md)',
      '  CRAWL_ACK_WAIT_MS: renamed CRAWL_ACK_WAIT, a duration (500ms, 30s, 5m, 7d): write CRAWL_ACK_WAIT=2s',
      `  DATABASE_URL: set by the fleet for each service; it cannot come from ${file}`,
    ]);
  });
});
