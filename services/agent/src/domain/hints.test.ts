// A part that asks for the cheapest (or dearest) of a kind: the rows the part's words fit are
// compared by the price they write, and the step names the one to click.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import type { OutlineEntry } from '../browser/types.js';
import { compactView } from './compact.js';
import {
  asksExtreme,
  cellLine,
  collapsedLine,
  datedLine,
  numberLine,
  pagedLine,
  rememberDated,
  rowsLine,
  superlativeLine,
} from './hints.js';
import { element, pageOf as page, text } from './test-support.js';

const pageOf = (outline: OutlineEntry[]) =>
  page(outline, { url: 'http://127.0.0.1/books/left-hand', title: 'The Left Hand of Darkness' });

// A table of editions, as the page script reads it: each button's row words are its context.
const EDITIONS = pageOf([
  element(1, { role: 'link', name: 'Books' }),
  text('Edition'),
  text('Price'),
  text('Hardcover, Gollancz, 2018'),
  text('€24.00'),
  element(2, {
    role: 'button',
    name: 'Add Hardcover, Gollancz, 2018 to cart',
    context: 'Hardcover, Gollancz, 2018 €24.00',
  }),
  text('Paperback, Ace, 2019'),
  text('€11.99'),
  element(3, { role: 'button', name: 'Add Paperback, Ace, 2019 to cart', context: 'Paperback, Ace, 2019 €11.99' }),
  text('Paperback, Gollancz, 2023'),
  text('€9.50'),
  element(4, {
    role: 'button',
    name: 'Add Paperback, Gollancz, 2023 to cart',
    context: 'Paperback, Gollancz, 2023 €9.50',
  }),
  text('Ebook'),
  text('€6.99'),
  element(5, { role: 'button', name: 'Add Ebook to cart', context: 'Ebook €6.99' }),
]);

test('the cheapest row of the kind the part says is named, with its price', () => {
  const part = 'add its cheapest paperback edition to the cart';
  const view = compactView(EDITIONS, part).shown;
  assert.equal(
    superlativeLine(part, EDITIONS.outline, view),
    'Of the prices the page shows, the cheapest paperback is €9.50: "Add Paperback, Gollancz, 2023 to cart".',
  );
  // No kind: the cheapest of all; the dearest the other way.
  assert.match(
    superlativeLine('add the cheapest edition', EDITIONS.outline, view) ?? '',
    /€6\.99: "Add Ebook to cart"/,
  );
  assert.match(superlativeLine('buy the most expensive one', EDITIONS.outline, view) ?? '', /dearest is €24\.00/);
});

test('rows without a table are the lines since the element before, a header above them no kind of its own', () => {
  const bare = pageOf(
    EDITIONS.outline.map((e) => (e.kind === 'element' ? { ...e, info: { ...e.info, context: undefined } } : e)),
  );
  const part = 'add its cheapest paperback edition to the cart';
  assert.match(superlativeLine(part, bare.outline, compactView(bare, part).shown) ?? '', /paperback is €9\.50/);
});

test('no line without a superlative, without two priced rows of the kind, or with a tie', () => {
  const view = compactView(EDITIONS, 'x').shown;
  assert.equal(superlativeLine('add the paperback to the cart', EDITIONS.outline, view), undefined);
  assert.equal(superlativeLine('add the cheapest hardcover', EDITIONS.outline, view), undefined);
  const tie = pageOf([
    text('Red mug €5'),
    element(1, { role: 'button', name: 'Add red mug' }),
    text('Blue mug €5'),
    element(2, { role: 'button', name: 'Add blue mug' }),
  ]);
  assert.equal(superlativeLine('add the cheapest mug', tie.outline, compactView(tie, 'x').shown), undefined);
});

test('a question for the oldest or newest of a dated list is told which, with its title', () => {
  const blog = [
    text('Blog'),
    text('The grinder we use at home'),
    text('2024-02-23'),
    text('Spring menu'),
    text('2023-11-18'),
    element(1, { role: 'link', name: 'Hello, Canal Street' }),
    text('31 January 2023'),
    element(2, { role: 'link', name: 'Next' }),
  ];
  const task = 'What is the title of the oldest post on this blog?';
  assert.equal(
    datedLine(task, blog),
    'Of the dates this page shows, the oldest is 31 January 2023: "Hello, Canal Street".',
  );
  assert.equal(
    datedLine('Which post is the most recent?', blog),
    'Of the dates this page shows, the newest is 2024-02-23: "The grinder we use at home".',
  );
  // A date with its title on one line; no line for a task that asks neither, or for one date.
  const inline = [text('Spring menu · 2023-11-18'), text('Hello · 2023-01-31')];
  assert.match(datedLine('the oldest post', inline) ?? '', /2023-01-31: "Hello"/);
  assert.equal(datedLine('What is the title of the first post?', blog), undefined);
  assert.equal(datedLine('the oldest post', [text('Hello'), text('2023-01-31')]), undefined);
});

test('a question is pointed at the closed section that says most of its words', () => {
  const faq = pageOf([
    text('Frequently asked questions'),
    element(1, { role: 'button', name: 'How long does delivery take?', expanded: false }),
    element(2, { role: 'button', name: 'Can I return an item I have opened?', expanded: false }),
    element(3, { role: 'button', name: 'Do you deliver abroad?', expanded: false }),
  ]);
  const task =
    "According to the shop's FAQ, within how many days of delivery can I return an item I have already opened?";
  assert.equal(
    collapsedLine(task, compactView(faq, task).shown),
    'The answer may be under "Can I return an item I have opened?": open it.',
  );
  // Fewer than three words, or a tie: no line.
  assert.equal(collapsedLine('How fast is delivery?', compactView(faq, 'x').shown), undefined);
  const open = pageOf([element(2, { role: 'button', name: 'Can I return an item I have opened?', expanded: true })]);
  assert.equal(
    collapsedLine(task, compactView(open, task).shown),
    undefined,
    'an open section is read, not pointed at',
  );
});

test('a number field of the output schema is found beside its name when the page writes it once', () => {
  const article = [
    text('Keep the device plugged in.'),
    text('Press and hold the reset button on the back for 15 seconds, until the light blinks.'),
    text('Wait two minutes, then sign in.'),
  ];
  const schema = { type: 'object', properties: { seconds: { type: 'integer' } } };
  assert.equal(numberLine(schema, article), 'The page says "15 seconds".');
  // Written twice with two numbers, or not at all: no line.
  assert.equal(numberLine(schema, [...article, text('Or 30 seconds for a full reset.')]), undefined);
  assert.equal(numberLine({ type: 'object', properties: { eggs: { type: 'integer' } } }, article), undefined);
  const warranty = [text('The Arden desk lamp is covered by a 30-month warranty. The LED is covered for 5 years.')];
  const months = { type: 'object', properties: { months: { type: 'integer' } } };
  assert.equal(numberLine(months, warranty), 'The page says "30 month".');
  // Two numbers of the unit: the one whose sentence says more of the task's words, when one does.
  const refunds = [
    text('Refunds for cancelled bookings are paid within 10 days. Refunds for missed flights take 45 days.'),
  ];
  const days = { type: 'object', properties: { days: { type: 'integer' } } };
  const task = 'Within how many days is a refund for a cancelled booking paid?';
  assert.equal(numberLine(days, refunds, task), 'The page says "10 days".');
  assert.equal(numberLine(days, refunds, 'How many days?'), undefined, 'neither says more of it');
});

test('the oldest seen is kept across a list’s pages, and its last page says it is the answer', () => {
  const task = 'What is the title of the oldest post on this blog?';
  const nav = (next: boolean) => [
    element(10, { role: 'link', name: 'Previous' }),
    element(11, { role: 'link', name: '1' }),
    ...(next ? [element(12, { role: 'link', name: 'Next' })] : []),
  ];
  const memory: { dated?: { iso: string; written: string; title: string } } = {};
  const page3 = [
    text('Spring menu'),
    text('2023-11-18'),
    text('Hello, Canal Street'),
    text('2023-01-31'),
    ...nav(true),
  ];
  rememberDated(task, memory, page3);
  assert.deepEqual(memory.dated, { iso: '2023-01-31', written: '2023-01-31', title: 'Hello, Canal Street' });
  // A later page of newer posts keeps it; the last page (no Next) says to finish with it.
  const page2 = [text('Cold brew'), text('2025-03-17'), text('Decaf'), text('2024-12-10'), ...nav(true)];
  rememberDated(task, memory, page2);
  assert.equal(memory.dated?.iso, '2023-01-31');
  assert.match(
    datedLine(task, page2, memory.dated) ?? '',
    /^Of the dates the pages shown so far show, the oldest is 2023-01-31/,
  );
  assert.equal(
    datedLine(task, nav(false), memory.dated),
    'This is the list\'s last page: the oldest of all is 2023-01-31: "Hello, Canal Street". Finish with it.',
  );
});

test('a question over a table is shown the rows whose cell is a word it says', () => {
  const team = [
    text('Name | Department | Role | Started'),
    text('Aiko Tanaka | Engineering | Backend engineer | 2019'),
    text('Bruno Costa | Sales | Account executive | 2021'),
    text('Hugo Brandt | Engineering | Site reliability engineer | 2020'),
    text('Mei Chen | Engineering Recruiting | Technical recruiter | 2022'),
  ];
  assert.equal(
    rowsLine('List everyone in the Engineering department with their role.', team),
    'Rows with "engineering" (2): Aiko Tanaka | Engineering | Backend engineer | 2019; Hugo Brandt | Engineering | Site reliability engineer | 2020.',
  );
  // A word every row has, or none has, filters nothing.
  assert.equal(rowsLine('List everyone with their role.', team), undefined);
});

// Invoices filed oldest first, five a page, with a pager: Previous, page numbers, Next.
const invoices = (first: number, links: string[]) =>
  pageOf([
    text('Invoice | Date | Amount'),
    ...Array.from({ length: 5 }, (_, i) => text(`INV-${first + i} | 2026-0${1 + i}-02 | €${10 + i}.00`)),
    ...links.map((name, i) => element(10 + i, { role: 'link', name })),
  ]);

test('a code a paged list does not show here is said to be on the way the list runs', () => {
  const middle = invoices(4105, ['Previous', '1', '3', 'Next']);
  const view = (p: typeof middle, part: string) => compactView(p, part).shown;
  const part = 'What was the amount of invoice INV-4112?';
  assert.equal(
    pagedLine(part, middle.outline, view(middle, part)),
    '"INV-4112" is not on this page; the list goes on: link "Next".',
  );
  // Before the codes this page shows, on a list that rises: the page before.
  const early = 'What was the amount of invoice INV-4101?';
  assert.match(pagedLine(early, middle.outline, view(middle, early)) ?? '', /link "Previous"/);
  // Shown here: its row.
  const here = 'What was the amount of invoice INV-4107?';
  assert.equal(
    pagedLine(here, middle.outline, view(middle, here)),
    'The row of "INV-4107": INV-4107 | 2026-03-02 | €12.00.',
  );
  // No page to turn to, or no list of codes like it: nothing either.
  const last = invoices(4105, ['Previous', '1', '2']);
  assert.match(pagedLine(early, last.outline, view(last, early)) ?? '', /link "Previous"/);
  assert.equal(pagedLine(part, last.outline, view(last, part)), undefined);
  const other = 'Where is parcel PX-9921?';
  assert.equal(pagedLine(other, middle.outline, view(middle, other)), undefined);
});

test('a task that asks for the extreme of a list is told apart', () => {
  assert.equal(asksExtreme('What is the title of the oldest post?'), true);
  assert.equal(asksExtreme('Tell me the name of the most expensive item in that category.'), true);
  assert.equal(asksExtreme('Which is the cheapest lamp?'), true);
  assert.equal(asksExtreme('What is the title of the spring post?'), false);
});

test('a number field is read from the table row the task names, under the column its name heads', () => {
  const table = [
    text('Plan | Requests per minute | Concurrent requests | Messages per day'),
    text('Free | 20 | 2 | 500'),
    text('Team | 300 | 20 | 100,000'),
  ];
  const schema = { type: 'object', properties: { requestsPerMinute: { type: 'integer' } } };
  assert.equal(
    cellLine(schema, table, 'How many requests per minute does the Team plan allow?'),
    'In the row of "Team", "Requests per minute" is "300".',
  );
  // No row the task names, or two: nothing.
  assert.equal(cellLine(schema, table, 'How many requests per minute are allowed?'), undefined);
  assert.equal(cellLine(schema, table, 'Requests per minute on Free and Team?'), undefined);
});
