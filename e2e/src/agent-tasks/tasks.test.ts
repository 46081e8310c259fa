// The suite's self-check, no agent needed: for every task, the check fails
// when the start page is opened and nothing more is done, and passes after a
// scripted solution (playwright-core, the way a person would do the task)
// drives the site in a real Chromium. One browser, a context per task.
// Where a section scripts mistakes (the wrong button, the form sent twice),
// the check fails after each of them too.
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { type Browser, chromium } from 'playwright-core';
import { mistakes, SIMPLE_SEEDS, solutions, startTaskSite, tasks, tasksOfSeeds } from './index.js';
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
  assert.equal(kinds.size, 26, [...kinds].join(', '));
  assert.equal(new Set(tasks.map((t) => t.id)).size, tasks.length, 'task ids repeat');
  assert.deepEqual(
    tasks.filter((t) => !solutions[t.id]).map((t) => t.id),
    [],
  );
});

test('the simple tasks: 13 kinds a seed, each a single or a multi act, the same from the same seed', () => {
  const generated = tasks.filter((t) => t.acts);
  assert.equal(generated.length, 13 * SIMPLE_SEEDS.length);
  assert.equal(generated.filter((t) => t.acts === 'single').length, 5 * SIMPLE_SEEDS.length);
  assert.equal(new Set(generated.map((t) => t.kind)).size, 13);
  const again = tasksOfSeeds(SIMPLE_SEEDS).filter((t) => t.acts);
  assert.deepEqual(
    again.map((t) => [t.id, t.task, t.path]),
    generated.map((t) => [t.id, t.task, t.path]),
  );
});

test('another seed, another page: labels, order and layout differ; the same seed serves the same page', async () => {
  const seeds = [11, 12, 13];
  const attempt = site.attempt();
  const html = async (path: string) => {
    const res = await fetch(attempt.url(path));
    assert.equal(res.status, 200, path);
    return res.text();
  };
  const bySeed = tasksOfSeeds(seeds).filter((t) => t.acts);
  for (const kind of new Set(bySeed.map((t) => t.kind))) {
    const ofKind = bySeed.filter((t) => t.kind === kind);
    assert.equal(ofKind.length, seeds.length, kind);
    const pages = await Promise.all(ofKind.map((t) => html(t.path)));
    assert.equal(new Set(pages).size, seeds.length, `${kind}: two seeds give the same page`);
    assert.equal(await html(ofKind[0]?.path as string), pages[0], `${kind}: a seed's page changes`);
  }
  assert.equal((await fetch(attempt.url('/simple/x/button'))).status, 404);
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

        for (const [what, mistake] of Object.entries(mistakes[task.id] ?? {})) {
          const wrong = site.attempt();
          await page.goto(wrong.url(task.path));
          await mistake(page);
          const verdict = task.check({ records: wrong.records, answer: null });
          assert.equal(verdict.ok, false, `passes when the run ${what}: ${verdict.why}`);
        }
        assert.deepEqual(errors, [], 'script errors on the pages');
      } finally {
        await context.close();
      }
    });
  }
});
