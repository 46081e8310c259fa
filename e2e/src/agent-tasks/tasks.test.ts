// The suite's self-check, no agent needed: for every task, the check fails
// when the start page is opened and nothing more is done, and passes after a
// scripted solution (playwright-core, the way a person would do the task)
// drives the site in a real Chromium. One browser, a context per task.
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { type Browser, chromium } from 'playwright-core';
import { solutions, startTaskSite, tasks } from './index.js';
import type { TaskSite } from './site.js';

let site: TaskSite;
let browser: Browser;

before(async () => {
  site = await startTaskSite();
  browser = await chromium.launch({ executablePath: '/usr/bin/chromium', args: ['--no-sandbox'] });
});

after(async () => {
  await browser?.close();
  await site?.close();
});

test('at least 40 tasks over every kind, each id once, each with a solution', () => {
  assert.ok(tasks.length >= 40, `${tasks.length} tasks`);
  const kinds = new Set(tasks.map((t) => t.kind));
  assert.equal(kinds.size, 13, [...kinds].join(', '));
  assert.equal(new Set(tasks.map((t) => t.id)).size, tasks.length, 'task ids repeat');
  assert.deepEqual(
    tasks.filter((t) => !solutions[t.id]).map((t) => t.id),
    [],
  );
});

describe('every task', { concurrency: 4 }, () => {
  for (const task of tasks) {
    test(`${task.kind}: ${task.id}`, { timeout: 60_000 }, async () => {
      const context = await browser.newContext();
      const errors: string[] = [];
      try {
        const page = await context.newPage();
        page.on('pageerror', (err) => errors.push(err.message));

        const idle = site.attempt();
        const opened = await page.goto(idle.url(task.path));
        assert.equal(opened?.status(), 200, `start page ${task.path}`);
        const untouched = task.check({ records: idle.records, answer: null });
        assert.equal(untouched.ok, false, `passes with nothing done: ${untouched.why}`);

        const attempt = site.attempt();
        await page.goto(attempt.url(task.path));
        const answer = (await solutions[task.id]?.(page)) ?? null;
        assert.equal(answer !== null, task.outputSchema !== undefined, 'an answer exactly when a schema asks for one');
        const solved = task.check({ records: attempt.records, answer });
        assert.ok(solved.ok, `the scripted solution fails the check: ${solved.why}`);
        assert.deepEqual(errors, [], 'script errors on the pages');
      } finally {
        await context.close();
      }
    });
  }
});
