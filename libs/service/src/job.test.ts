import assert from 'node:assert/strict';
import { test } from 'node:test';
import { createLogger } from '@wap/log';
import { PeriodicJob } from './job.js';

const log = createLogger({ service: 'test', level: 'silent' });

/** A promise and the function that resolves it. */
function signal<T = void>() {
  let resolve!: (v: T) => void;
  const promise = new Promise<T>((r) => {
    resolve = r;
  });
  return { promise, resolve };
}

test('a job runs its passes one at a time and keeps going after a failed pass', async () => {
  let running = 0;
  let overlapped = false;
  let passes = 0;
  const third = signal();
  const job = new PeriodicJob({ name: 'count', intervalMs: 1, log, immediately: true }, async () => {
    running++;
    if (running > 1) overlapped = true;
    await new Promise((r) => setImmediate(r));
    running--;
    passes++;
    if (passes === 3) third.resolve();
    if (passes === 1) throw new Error('the first pass fails');
  });
  job.start();
  await third.promise;
  await job.stop();
  assert.equal(overlapped, false);
  assert.ok(passes >= 3);
});

test('stop waits for the pass in flight, and no pass starts after it', async () => {
  const entered = signal();
  const release = signal();
  let passes = 0;
  let finished = false;
  const job = new PeriodicJob({ name: 'slow', intervalMs: 1, log, immediately: true }, async () => {
    passes++;
    entered.resolve();
    await release.promise;
    finished = true;
  });
  job.start();
  await entered.promise;
  const stopped = job.stop().then(() => 'stopped');
  // The pass is still in flight: stop has not resolved.
  assert.equal(await Promise.race([stopped, Promise.resolve('pending')]), 'pending');
  release.resolve();
  assert.equal(await stopped, 'stopped');
  assert.equal(finished, true);
  const before = passes;
  // A pass rescheduled at the 1 ms interval would be due before this timer: timers fire in due order.
  await new Promise((r) => setTimeout(r, 20));
  assert.equal(passes, before, 'a pass ran after stop');
});

test('runOnce answers what the pass answered', async () => {
  const job = new PeriodicJob({ name: 'answer', intervalMs: 60_000, log }, async () => 42);
  assert.equal(await job.runOnce(), 42);
  await job.stop();
});

test('a nudge runs a pass without waiting out the interval, after the one in flight', async () => {
  const passes: number[] = [];
  const gate = { entered: signal(), release: signal() };
  const job = new PeriodicJob({ name: 'nudged', intervalMs: 3_600_000, log, immediately: true }, async () => {
    passes.push(Date.now());
    if (passes.length === 1) {
      gate.entered.resolve();
      await gate.release.promise;
    }
  });
  const second = new Promise<void>((resolve) => {
    const wait = setInterval(() => {
      if (passes.length >= 2) {
        clearInterval(wait);
        resolve();
      }
    }, 5);
  });
  job.start();
  await gate.entered.promise;
  job.nudge(); // during the first pass: one more right after it, not an hour later
  gate.release.resolve();
  await second;
  job.nudge(); // idle: at once
  await new Promise<void>((resolve) => {
    const wait = setInterval(() => {
      if (passes.length >= 3) {
        clearInterval(wait);
        resolve();
      }
    }, 5);
  });
  await job.stop();
  assert.equal(passes.length, 3);
});
