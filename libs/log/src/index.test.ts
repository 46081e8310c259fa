import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { Writable } from 'node:stream';
import { test } from 'node:test';
import { context, ROOT_CONTEXT, TraceFlags, trace } from '@opentelemetry/api';
import { AsyncLocalStorageContextManager } from '@opentelemetry/context-async-hooks';
import { createLogger } from './index.js';

function capture() {
  const lines: Record<string, unknown>[] = [];
  const destination = new Writable({
    write(chunk, _enc, done) {
      for (const line of String(chunk).split('\n').filter(Boolean)) lines.push(JSON.parse(line));
      done();
    },
  });
  return { lines, destination };
}

test('lines are JSON with service, level and message', () => {
  const { lines, destination } = capture();
  createLogger({ service: 'crawl', destination }).info({ pages: 3 }, 'crawl started');
  assert.equal(lines.length, 1);
  assert.equal(lines[0]?.service, 'crawl');
  assert.equal(lines[0]?.level, 'info');
  assert.equal(lines[0]?.msg, 'crawl started');
  assert.equal(lines[0]?.pages, 3);
});

test('credentials are redacted', () => {
  const { lines, destination } = capture();
  const log = createLogger({ service: 'gateway', destination });
  log.info({ headers: { authorization: 'Bearer ock_abc.secret' }, password: 'hunter2' }, 'request');
  const text = JSON.stringify(lines);
  assert.ok(!text.includes('ock_abc.secret'));
  assert.ok(!text.includes('hunter2'));
});

test('lines carry the active trace id', () => {
  context.setGlobalContextManager(new AsyncLocalStorageContextManager().enable());
  const { lines, destination } = capture();
  const log = createLogger({ service: 'agent', destination });
  const spanContext = {
    traceId: '0af7651916cd43dd8448eb211c80319c',
    spanId: 'b7ad6b7169203331',
    traceFlags: TraceFlags.SAMPLED,
  };
  context.with(trace.setSpanContext(ROOT_CONTEXT, spanContext), () => log.info('inside'));
  log.info('outside');
  assert.equal(lines[0]?.trace_id, spanContext.traceId);
  assert.equal(lines[0]?.span_id, spanContext.spanId);
  assert.equal(lines[1]?.trace_id, undefined);
  context.disable();
});

test('lines written to stdout are all there when the process exits at once', () => {
  // Stdout is written asynchronously; an exit right after logging (a crash, a drain's end) still flushes it.
  const script = `
    const log = require(${JSON.stringify(require.resolve('./index.js'))}).createLogger({ service: 'exit-test' });
    for (let i = 0; i < 5000; i++) log.info({ i }, 'line');
    process.exit(3);
  `;
  let out = '';
  try {
    execFileSync(process.execPath, ['-e', script], { encoding: 'utf8', maxBuffer: 64 << 20 });
  } catch (err) {
    const exited = err as { status: number; stdout: string };
    assert.equal(exited.status, 3);
    out = exited.stdout;
  }
  const lines = out
    .split('\n')
    .filter(Boolean)
    .map((line) => JSON.parse(line) as { i: number });
  assert.deepEqual(
    lines.map((line) => line.i),
    Array.from({ length: 5000 }, (_, i) => i),
  );
});
