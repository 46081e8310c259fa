// A calendar widget as the compact step shows it: read off the page's elements (days named by
// a whole date or by their number under the month's heading), the arrow to press while the month
// is not the task's, and the task's day alone once it shows.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import type { OutlineEntry } from '../browser/types.js';
import { calendarOf, calendarPlan, wantedOf } from './calendar.js';
import { compactMessage, compactShape, compactView } from './compact.js';
import { element, pageOf } from './test-support.js';

const MONTHS = 'January February March April May June July August September October November December'.split(' ');

/** A booking form with its calendar open on `month` (1-12) of `year`: days before `today` disabled. */
function bookingPage(year: number, month: number, opts: { value?: string; numbered?: boolean; today?: string } = {}) {
  const outline: OutlineEntry[] = [
    element(1, { role: 'textbox', name: 'Patient name' }),
    element(2, { role: 'textbox', name: 'Date', readonly: true, ...(opts.value && { value: opts.value }) }),
    element(3, { role: 'button', name: 'Previous month' }),
    { kind: 'text', depth: 0, text: `${MONTHS[month - 1]} ${year}` },
    element(4, { role: 'button', name: 'Next month' }),
  ];
  const days = new Date(Date.UTC(year, month, 0)).getUTCDate();
  for (let d = 1; d <= days; d++) {
    const iso = `${year}-${String(month).padStart(2, '0')}-${String(d).padStart(2, '0')}`;
    const name = opts.numbered ? String(d) : `${d} ${MONTHS[month - 1]} ${year}`;
    outline.push(element(10 + d, { role: 'button', name, disabled: !!opts.today && iso < opts.today }));
  }
  outline.push(element(50, { role: 'button', name: 'Book' }));
  return pageOf(outline, {
    url: 'http://127.0.0.1/clinic/book',
    title: 'Book an appointment',
    fingerprint: `f${year}${month}`,
  });
}

const TASK = 'Book a dental check-up for Ana Ruiz on 17 March 2027 at 10:30.';

test('a calendar is read off days named by a whole date, and off days numbered under their month', () => {
  const named = calendarOf(bookingPage(2026, 11).outline);
  assert.equal(named?.month, '2026-11');
  assert.equal(named?.days.length, 30);
  assert.equal(named?.next, 4);
  assert.equal(named?.previous, 3);
  const numbered = calendarOf(bookingPage(2027, 2, { numbered: true }).outline);
  assert.equal(numbered?.month, '2027-02');
  assert.deepEqual(numbered?.days[16], { index: 27, iso: '2027-02-17', disabled: false });
  // A page of a few dated links (a blog's archive) is no calendar.
  const archive = [
    element(1, { role: 'link', name: '3 March 2026' }),
    element(2, { role: 'link', name: '1 May 2026' }),
  ];
  assert.equal(calendarOf(archive), undefined);
});

test('the day wanted is the first the task writes out that no box holds; else a month it names', () => {
  const hotel = 'Reserve a room, arriving on 3 February 2027 and leaving on 6 February 2027.';
  assert.equal(wantedOf(hotel, bookingPage(2026, 11).outline)?.iso, '2027-02-03');
  // The check-in box shows the day picked: the check-out day is the one wanted.
  assert.equal(wantedOf(hotel, bookingPage(2026, 11, { value: '3 February 2027' }).outline)?.iso, '2027-02-06');
  const pottery = 'Book one place on the earliest Saturday in December 2026 that is not fully booked.';
  assert.deepEqual(wantedOf(pottery, bookingPage(2026, 11).outline), { month: '2026-12', written: 'December 2026' });
  assert.equal(wantedOf('Book a table for two.', bookingPage(2026, 11).outline), undefined);
});

test('while the month is not the task’s, no day is shown or offered, and the arrow is named', () => {
  const page = bookingPage(2026, 11, { today: '2026-11-10' });
  const view = compactView(page, TASK);
  assert.match(view.text, /calendar of November 2026 \(its days are left out/);
  assert.doesNotMatch(view.text, /button "1\d November 2026"/);
  assert.equal(view.hint, 'The calendar shows November 2026; "17 March 2027" is 4 months later: click "Next month".');
  const schema = JSON.stringify(compactShape(view, { files: false, task: TASK }).schema);
  assert.doesNotMatch(schema, /November 2026/);
  assert.doesNotMatch(schema, /"Date"/, 'the read-only box that would close the calendar is not offered');
  assert.match(view.text, /textbox "Date" empty read-only/, 'but it is shown');
  assert.match(schema, /"Next month"/);
  const message = compactMessage({
    task: TASK,
    files: [],
    memory: { memory: '', results: [], recent: [], failures: 0 },
    page,
    view,
  });
  assert.match(message.split('\n').at(-1) as string, /click "Next month"/);
  assert.doesNotMatch(message, /Not entered yet/, 'the calendar alone is said while it asks for its arrow');
  assert.doesNotMatch(message, /names: button "Book"/, 'nor the button that would send the form without its date');
  // A task whose day is behind the calendar's month names the arrow back.
  const back = compactView(bookingPage(2027, 5), TASK);
  assert.match(back.hint ?? '', /2 months earlier: click "Previous month"/);
});

test('once the month is the task’s, its day alone is shown and named', () => {
  const view = compactView(bookingPage(2027, 3), TASK);
  const days = view.shown.filter((e) => /March 2027$/.test(e.info.name)).map((e) => e.label);
  assert.deepEqual(days, ['17 March 2027']);
  assert.equal(view.hint, 'Choose "17 March 2027" in the calendar.');
  assert.match(JSON.stringify(compactShape(view, { files: false, task: TASK }).schema), /"17 March 2027"/);
  // Numbered days are named by their number, as the page names them.
  const numbered = compactView(bookingPage(2027, 3, { numbered: true }), TASK);
  assert.equal(numbered.hint, 'Choose "17" in the calendar.');
});

test('a month alone keeps the days it offers; the earliest on the weekday asked is the one shown', () => {
  const page = bookingPage(2026, 12, { today: '2026-12-08' });
  const month = compactView(page, 'Book one place on a day in December 2026.');
  assert.equal(month.shown.filter((e) => /December 2026$/.test(e.info.name)).length, 31 - 7);
  assert.ok(!month.shown.some((e) => /month/.test(e.info.name)), 'at the month asked, no arrow');
  const task = 'Book one place on the earliest Saturday in December 2026 that is not fully booked.';
  const view = compactView(page, task);
  // 8 December 2026 is a Tuesday: the first Saturday it offers is the 12th, and it alone is shown.
  assert.deepEqual(
    view.shown.filter((e) => /December 2026$/.test(e.info.name)).map((e) => e.info.name),
    ['12 December 2026'],
  );
  assert.equal(view.hint, 'The first day the calendar offers is "12 December 2026": choose it in the calendar.');
  const plan = calendarPlan(calendarOf(page.outline) as never, undefined, 'Pick a day.', String);
  assert.equal(plan.hint, undefined);
  assert.equal(plan.hidden.size, 7);
});

test('paging toward the month asked, the arrow back is not offered', () => {
  const page = bookingPage(2026, 11);
  const view = compactView(page, TASK);
  const arrows = view.shown.filter((e) => /month/.test(e.info.name)).map((e) => e.info.name);
  assert.deepEqual(arrows, ['Next month']);
});

test('while values are left to enter, the button the task’s verb names is not pointed at', () => {
  const page = bookingPage(2026, 11);
  const memory = { memory: '', results: [], recent: [], failures: 0, done: ['typed "Ana Ruiz"'], typed: ['Ana Ruiz'] };
  const closed = {
    ...page,
    outline: page.outline.filter((e) => e.kind !== 'element' || e.index <= 2 || e.index === 50),
  };
  const message = compactMessage({ task: TASK, files: [], memory, page: closed, view: compactView(closed, TASK) });
  assert.match(message, /Not entered yet: "17 March 2027" into "Date" \(click it to choose\)/);
  assert.doesNotMatch(message, /names: button "Book"/);
});
