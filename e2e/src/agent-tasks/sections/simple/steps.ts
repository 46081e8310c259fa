// Multi-act kinds of a few steps more: a form over two pages (the first
// page's answer carried to the second), a date the sentence writes in words
// typed into a date field, and a table whose rows each have the same button,
// the right row's pressed and then confirmed in a dialog.
import type { Page } from 'playwright-core';
import { errorList, esc, type Visit } from '../../site.js';
import { recorded } from '../../task.js';
import {
  between,
  donePage,
  FIRST_NAMES,
  type Frame,
  frame,
  framed,
  LABEL_STYLES,
  LAST_NAMES,
  type LabelStyle,
  MONTHS,
  pick,
  rngFor,
  type SimpleKind,
  sample,
  seeded,
  shuffle,
  slug,
  statusShown,
  taskOf,
  textBox,
  twice,
} from './kit.js';

const CITIES = ['Lisbon', 'Tallinn', 'Glasgow', 'Lyon', 'Bologna', 'Utrecht', 'Kraków', 'Bergen', 'Porto', 'Graz'];

interface TwoPages extends Frame {
  firstLabel: string;
  first: string;
  secondLabel: string;
  second: string;
  next: string;
  submit: string;
  labels: LabelStyle;
  sentence: string;
}

function makeTwoPages(seed: number): TwoPages {
  const r = rngFor('two-page', seed);
  const f = frame(r, ['Join the club', 'Register', 'Sign up for the course', 'Request a brochure']);
  const [given, family] = [pick(r, FIRST_NAMES), pick(r, LAST_NAMES)];
  const firstLabel = pick(r, ['Full name', 'Your name', 'Name']);
  const second = pick(r, [
    { label: 'City', value: pick(r, CITIES) },
    { label: 'Email', value: `${given}.${family}@example.com`.toLowerCase() },
    { label: 'Phone', value: `07${between(r, 100000000, 999999999)}` },
  ]);
  const next = pick(r, ['Next', 'Continue', 'Next step']);
  const submit = pick(r, ['Submit', 'Finish', 'Send']);
  const first = `${given} ${family}`;
  const sentence = pick(r, [
    `Fill in the form: ${firstLabel} ${first} on the first page, ${second.label} ${second.value} on the second, then press ${submit}.`,
    `Enter “${first}” as ${firstLabel}, press ${next}, enter “${second.value}” as ${second.label} and press ${submit}.`,
    `Register ${first} with the ${second.label.toLowerCase()} “${second.value}”; the form has two pages, send it at the end.`,
  ]);
  return {
    ...f,
    firstLabel,
    first,
    secondLabel: second.label,
    second: second.value,
    next,
    submit,
    labels: pick(r, LABEL_STYLES),
    sentence,
  };
}

function stepOne(it: TwoPages, v: Visit, errors: string[] = []): string {
  return framed(
    it,
    `<p>Step 1 of 2</p>${errorList(errors)}<form method="post" action="${v.base}/simple/${v.params.seed}/two-page/next">
${textBox(it.labels, it.firstLabel, 'first')}<p><button>${esc(it.next)}</button></p></form>`,
  );
}

const twoPage: SimpleKind = {
  slug: 'two-page',
  routes: [
    seeded('GET', '/two-page', makeTwoPages, (it, v) => stepOne(it, v)),
    seeded('POST', '/two-page/next', makeTwoPages, (it, v) => {
      const first = v.form.get('first')?.trim() ?? '';
      if (!first) return stepOne(it, v, [`Fill in ${it.firstLabel} first.`]);
      return framed(
        { ...it, before: [] },
        `<p>Step 2 of 2</p><form method="post" action="${v.base}/simple/${v.params.seed}/two-page">
<input type="hidden" name="first" value="${esc(first)}">${textBox(it.labels, it.secondLabel, 'second')}
<p><a href="${v.base}/simple/${v.params.seed}/two-page">Back</a> <button>${esc(it.submit)}</button></p></form>`,
      );
    }),
    seeded('POST', '/two-page', makeTwoPages, (it, v) => {
      v.record('two-page', Object.fromEntries(v.form));
      return donePage(it, 'Thank you, you are registered.');
    }),
  ],
  generate(seed) {
    const it = makeTwoPages(seed);
    const fill = (second: string) => async (p: Page) => {
      await p.getByLabel(it.firstLabel, { exact: true }).fill(it.first);
      await p.getByRole('button', { name: it.next, exact: true }).click();
      await p.getByLabel(it.secondLabel, { exact: true }).fill(second);
      await p.getByRole('button', { name: it.submit, exact: true }).click();
      await statusShown(p);
    };
    return {
      task: {
        ...taskOf('two-page', seed, 'two-page', 'multi'),
        task: it.sentence,
        check: ({ records }) => recorded(records, 'two-page', { first: it.first, second: it.second }),
      },
      solution: fill(it.second),
      mistakes: { 'gives another second answer': fill(`${it.second}x`), 'sends it twice': twice(fill(it.second)) },
    };
  },
};

/** Date fields of a page, under its title. */
const DATE_FIELDS = [
  { title: 'Book a room', fields: ['Check-in date', 'Check-out date'] },
  { title: 'Plan your trip', fields: ['Departure date', 'Return date'] },
  { title: 'Course dates', fields: ['Start date', 'End date'] },
  { title: 'Delivery', fields: ['Delivery date'] },
  { title: 'Book an appointment', fields: ['Appointment date'] },
];

interface DatePage extends Frame {
  fields: string[];
  target: string;
  /** The date as the form wants it (YYYY-MM-DD), and as the sentence says it. */
  iso: string;
  words: string;
  submit: string;
  labels: LabelStyle;
  sentence: string;
}

const pad = (n: number) => String(n).padStart(2, '0');

function makeDate(seed: number): DatePage {
  const r = rngFor('date', seed);
  const { title, fields } = pick(r, DATE_FIELDS);
  const f = frame(r, [title]);
  const target = pick(r, fields);
  const [year, month, day] = [between(r, 2026, 2028), between(r, 1, 12), between(r, 1, 27)];
  const name = MONTHS[month - 1] as string;
  const words = pick(r, [`${day} ${name} ${year}`, `${name} ${day}, ${year}`]);
  const submit = pick(r, ['Save', 'Book', 'Submit', 'Continue']);
  const sentence = pick(r, [
    `Set the ${target} to ${words} and press ${submit}.`,
    `Enter ${words} as the ${target.toLowerCase()}, then click ${submit}.`,
    `Put “${words}” in the ${target} field and press the ${submit} button.`,
  ]);
  return {
    ...f,
    fields,
    target,
    iso: `${year}-${pad(month)}-${pad(day)}`,
    words,
    submit,
    labels: pick(r, LABEL_STYLES),
    sentence,
  };
}

const dateField: SimpleKind = {
  slug: 'date',
  routes: [
    seeded('GET', '/date', makeDate, (it, v) =>
      framed(
        it,
        `<form method="post" action="${v.base}/simple/${v.params.seed}/date">${it.fields
          .map((l) => textBox(it.labels, l, slug(l), 'type="date"'))
          .join('')}<p><button>${esc(it.submit)}</button></p></form>`,
      ),
    ),
    seeded('POST', '/date', makeDate, (it, v) => {
      v.record('dated', Object.fromEntries(v.form));
      return donePage(it, 'Saved. See you then.');
    }),
  ],
  generate(seed) {
    const it = makeDate(seed);
    const fill = (iso: string) => async (p: Page) => {
      await p.getByLabel(it.target, { exact: true }).fill(iso);
      await p.getByRole('button', { name: it.submit, exact: true }).click();
      await statusShown(p);
    };
    const nextDay = `${it.iso.slice(0, 8)}${pad(Number(it.iso.slice(8)) + 1)}`;
    const expected = Object.fromEntries(it.fields.map((l) => [slug(l), l === it.target ? it.iso : '']));
    return {
      task: {
        ...taskOf('date', seed, 'date-field', 'multi'),
        task: it.sentence,
        check: ({ records }) => recorded(records, 'dated', expected),
      },
      solution: fill(it.iso),
      mistakes: { 'types the next day': fill(nextDay), 'sends it twice': twice(fill(it.iso)) },
    };
  },
};

/** What a table's rows can be acted on for: the page's title, the button, the column beside the name, the sentence. */
const ROW_ACTIONS = [
  {
    title: 'Leave requests',
    verb: 'Approve',
    column: 'Days off',
    say: (n: string) => `Approve the leave request from ${n}.`,
  },
  { title: 'Team', verb: 'Remove', column: 'Role', say: (n: string) => `Remove ${n} from the team.` },
  { title: 'Bookings', verb: 'Cancel', column: 'Date', say: (n: string) => `Cancel the booking made by ${n}.` },
  { title: 'Orders', verb: 'Archive', column: 'Total', say: (n: string) => `Archive the order of ${n}.` },
  { title: 'Payments', verb: 'Refund', column: 'Amount', say: (n: string) => `Refund the payment from ${n}.` },
];

interface RowsPage extends Frame {
  verb: string;
  column: string;
  rows: { name: string; detail: string }[];
  target: string;
  /** Another row of the same first name: the row must be found by the whole name. */
  namesake: string;
  /** The dialog's button that backs out: "Cancel", unless cancelling is what the rows are for. */
  dismiss: string;
  native: boolean;
  sentence: string;
}

function makeRows(seed: number): RowsPage {
  const r = rngFor('row', seed);
  const action = pick(r, ROW_ACTIONS);
  const f = frame(r, [action.title]);
  const firsts = sample(r, FIRST_NAMES, between(r, 3, 5));
  const lasts = sample(r, LAST_NAMES, firsts.length + 1);
  const names = firsts.map((first, i) => `${first} ${lasts[i]}`);
  const target = names[0] as string;
  const namesake = `${firsts[0]} ${lasts.at(-1)}`;
  const detail = () => {
    if (action.column === 'Days off') return `${between(r, 1, 10)} days`;
    if (action.column === 'Role') return pick(r, ['Designer', 'Developer', 'Manager', 'Analyst']);
    if (action.column === 'Date') return `${between(r, 1, 28)} ${pick(r, MONTHS)}`;
    return `€${between(r, 10, 300)}.${pad(between(r, 0, 99))}`;
  };
  const rows = shuffle(r, [...names, namesake]).map((name) => ({ name, detail: detail() }));
  const sentence = pick(r, [
    action.say(target),
    `In the table, press ${action.verb} on the row of ${target} and confirm.`,
  ]);
  const dismiss = action.verb === 'Cancel' ? 'Keep it' : 'Cancel';
  return {
    ...f,
    verb: action.verb,
    column: action.column,
    rows,
    target,
    namesake,
    dismiss,
    native: r() < 0.5,
    sentence,
  };
}

const rowButton: SimpleKind = {
  slug: 'row',
  routes: [
    seeded('GET', '/row', makeRows, (it, v) => {
      const rows = it.rows.map(
        (row) =>
          `<tr><td>${esc(row.name)}</td><td>${esc(row.detail)}</td><td><button type="button" data-row="${esc(row.name)}">${esc(it.verb)}</button></td></tr>`,
      );
      const inside = `<h2 id="question"></h2><form method="post" action="${v.base}/simple/${v.params.seed}/row">
<input type="hidden" name="name" id="row"><button type="button" id="cancel">${esc(it.dismiss)}</button> <button>Yes, ${esc(it.verb.toLowerCase())}</button></form>`;
      const box = it.native
        ? `<dialog id="confirm" aria-labelledby="question">${inside}</dialog>`
        : `<div class="overlay" id="confirm" hidden><div role="dialog" aria-modal="true" aria-labelledby="question">${inside}</div></div>`;
      const [open, close] = it.native ? ['showModal()', 'close()'] : ['hidden = false', 'hidden = true'];
      return framed(
        it,
        `<table><tr><th>Name</th><th>${esc(it.column)}</th><th></th></tr>${rows.join('')}</table>${box}`,
        `const dialog = document.getElementById('confirm');
for (const b of document.querySelectorAll('button[data-row]')) b.onclick = () => {
  document.getElementById('row').value = b.dataset.row;
  document.getElementById('question').textContent = ${JSON.stringify(`${it.verb}: `)} + b.dataset.row + '?';
  dialog.${open};
};
document.getElementById('cancel').onclick = () => { dialog.${close}; };`,
      );
    }),
    seeded('POST', '/row', makeRows, (it, v) => {
      v.record('row', { name: v.form.get('name') });
      return donePage(it, `${it.verb}: ${v.form.get('name')}, done.`);
    }),
  ],
  generate(seed) {
    const it = makeRows(seed);
    const open = async (p: Page, name: string) => {
      const row = p.getByRole('row').filter({ has: p.getByRole('cell', { name, exact: true }) });
      await row.getByRole('button', { name: it.verb, exact: true }).click();
    };
    const confirm = (name: string) => async (p: Page) => {
      await open(p, name);
      await p
        .getByRole('dialog')
        .getByRole('button', { name: `Yes, ${it.verb.toLowerCase()}` })
        .click();
      await statusShown(p);
    };
    return {
      task: {
        ...taskOf('row', seed, 'row-button', 'multi'),
        task: it.sentence,
        check: ({ records }) => recorded(records, 'row', { name: it.target }),
      },
      solution: confirm(it.target),
      mistakes: {
        [`takes ${it.namesake}'s row`]: confirm(it.namesake),
        'cancels at the question': async (p) => {
          await open(p, it.target);
          await p.getByRole('dialog').getByRole('button', { name: it.dismiss, exact: true }).click();
          await p.getByRole('dialog').waitFor({ state: 'hidden' });
        },
        'confirms it twice': twice(confirm(it.target)),
      },
    };
  },
};

export const stepKinds: SimpleKind[] = [twoPage, dateField, rowButton];
