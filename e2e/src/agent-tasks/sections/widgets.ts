// Tabs and dialogs: tab panels and an accordion whose text is written into
// the page only when opened, a confirm overlay before a delete, and a native
// <dialog> holding a rename form.
import { esc, page, type Visit } from '../site.js';
import { answered, objectSchema, recorded, type Section } from '../task.js';

const LAMP_TABS: Record<string, string> = {
  Description:
    'The Arden desk lamp has a weighted oak base, a two-joint steel arm and a dimmable warm LED. It comes with our standard warranty.',
  Specifications:
    'Height 48 cm, reach 40 cm, weight 1.9 kg. LED 8 W, 2700 K, 600 lumen. Cable 1.8 m with inline dimmer.',
  Warranty:
    'The Arden desk lamp is covered by a 30-month warranty on the arm, joints and switch. The LED module itself is covered for 5 years. Register the lamp within 60 days of purchase to claim.',
  Reviews: '4.6 out of 5 from 212 reviews.',
};

const FAQ: [string, string][] = [
  ['How long does delivery take?', 'Orders placed before 2 pm leave the same day; delivery takes 2 to 4 working days.'],
  [
    'Can I return an item I have opened?',
    'Yes: opened items can be returned within 14 days of delivery if complete and undamaged. Unopened items can be returned within 30 days.',
  ],
  ['Who pays for returns?', 'Returns are free within the EU; elsewhere the return postage is yours.'],
  ['Do you ship abroad?', 'We ship to 31 countries; see the delivery page for the list.'],
];

const DRAFTS = [
  { id: 'd1', title: 'Q3 supplier notes', edited: '4 Nov 2026' },
  { id: 'd2', title: 'Q3 supplier notes (old)', edited: '2 Aug 2026' },
  { id: 'd3', title: 'Q4 budget draft', edited: '8 Nov 2026' },
  { id: 'd4', title: 'Team offsite ideas', edited: '21 Oct 2026' },
];

const PROJECTS = [
  { id: 'atlas', name: 'Atlas' },
  { id: 'atlas-mobile', name: 'Atlas Mobile' },
  { id: 'beacon', name: 'Beacon' },
  { id: 'comet', name: 'Comet' },
];

/** Tabs (or accordion items) whose text is written in only when opened. */
const TABS = `const texts = JSON.parse(document.getElementById('texts').textContent);
for (const tab of document.querySelectorAll('[role=tab]')) tab.onclick = () => {
  for (const t of document.querySelectorAll('[role=tab]')) t.setAttribute('aria-selected', String(t === tab));
  document.getElementById('panel').textContent = texts[tab.textContent];
};
for (const head of document.querySelectorAll('button[aria-expanded]')) head.onclick = () => {
  const open = head.getAttribute('aria-expanded') !== 'true', body = head.parentElement.nextElementSibling;
  head.setAttribute('aria-expanded', String(open));
  body.textContent = open ? texts[head.textContent] : '';
};`;

const texts = (t: Record<string, string>) =>
  `<script type="application/json" id="texts">${JSON.stringify(t).replace(/</g, '\\u003c')}</script>`;

const CONFIRM = `const overlay = document.getElementById('confirm');
for (const b of document.querySelectorAll('button[data-draft]')) b.onclick = () => {
  document.getElementById('draft').value = b.dataset.draft;
  document.getElementById('confirm-title').textContent = 'Delete “' + b.dataset.title + '”?';
  overlay.hidden = false;
};
document.getElementById('keep').onclick = () => { overlay.hidden = true; };`;

const RENAME = `const dialog = document.getElementById('rename');
for (const b of document.querySelectorAll('button[data-project]')) b.onclick = () => {
  document.getElementById('project').value = b.dataset.project;
  document.getElementById('name').value = b.dataset.name;
  dialog.showModal();
};
document.getElementById('close').onclick = () => dialog.close();`;

function draftsPage(v: Visit): string {
  const gone = new Set(v.records.filter((r) => r.kind === 'draft-deleted').map((r) => r.data.id));
  const rows = DRAFTS.filter((d) => !gone.has(d.id)).map(
    (d) =>
      `<tr><td>${esc(d.title)}</td><td>${d.edited}</td><td><button type="button" data-draft="${d.id}" data-title="${esc(d.title)}">Delete</button></td></tr>`,
  );
  return page(
    'Quill Notes',
    'Drafts',
    `<table><tr><th>Title</th><th>Last edited</th><th></th></tr>${rows.join('')}</table>
<div class="overlay" id="confirm" role="alertdialog" aria-modal="true" aria-labelledby="confirm-title" hidden><div>
<h2 id="confirm-title"></h2><p>This cannot be undone.</p><form method="post" action="${v.base}/notes/drafts">
<input type="hidden" name="id" id="draft"><button type="button" id="keep">Cancel</button> <button>Delete draft</button></form></div></div>`,
    CONFIRM,
  );
}

export const widgets: Section = {
  routes: [
    {
      path: '/shop/arden-lamp',
      handle: () =>
        page(
          'Lumen & Oak',
          'Arden desk lamp',
          `<p>€149.00 · In stock</p><div role="tablist">${Object.keys(LAMP_TABS)
            .map((t, i) => `<button role="tab" aria-selected="${i === 0}" aria-controls="panel">${t}</button>`)
            .join(' ')}</div><div role="tabpanel" id="panel">${LAMP_TABS.Description}</div>${texts(LAMP_TABS)}`,
          TABS,
        ),
    },
    {
      path: '/help/faq',
      handle: () =>
        page(
          'Lumen & Oak',
          'Frequently asked questions',
          `${FAQ.map(([q]) => `<h3><button aria-expanded="false">${esc(q)}</button></h3><div></div>`).join('')}${texts(Object.fromEntries(FAQ))}`,
          TABS,
        ),
    },
    { path: '/notes/drafts', handle: draftsPage },
    {
      method: 'POST',
      path: '/notes/drafts',
      handle(v) {
        const draft = DRAFTS.find((d) => d.id === v.form.get('id'));
        if (draft) v.record('draft-deleted', draft);
        return { redirect: `${v.base}/notes/drafts` };
      },
    },
    {
      path: '/projects',
      handle: (v) => {
        const renamed = new Map(
          v.records.filter((r) => r.kind === 'project-renamed').map((r) => [r.data.id, r.data.name]),
        );
        const rows = PROJECTS.map((p) => {
          const name = String(renamed.get(p.id) ?? p.name);
          return `<li>${esc(name)} <button type="button" data-project="${p.id}" data-name="${esc(name)}">Rename</button></li>`;
        });
        return page(
          'Tracklight',
          'Projects',
          `<ul>${rows.join('')}</ul><dialog id="rename" aria-labelledby="rename-title"><h2 id="rename-title">Rename project</h2>
<form method="post" action="${v.base}/projects"><input type="hidden" name="id" id="project">
<label>New name <input name="name" id="name"></label><button type="button" id="close">Cancel</button> <button>Save</button></form></dialog>`,
          RENAME,
        );
      },
    },
    {
      method: 'POST',
      path: '/projects',
      handle(v) {
        v.record('project-renamed', Object.fromEntries(v.form));
        return { redirect: `${v.base}/projects` };
      },
    },
  ],
  tasks: [
    {
      id: 'tabs-lamp-warranty',
      kind: 'tabs-dialogs',
      task: 'How many months of warranty does the Arden desk lamp come with?',
      path: '/shop/arden-lamp',
      outputSchema: objectSchema({ months: { type: 'integer' } }),
      check: ({ answer }) => answered(answer, { months: 30 }),
    },
    {
      id: 'accordion-return-days',
      kind: 'tabs-dialogs',
      task: "According to the shop's FAQ, within how many days of delivery can I return an item I have already opened?",
      path: '/help/faq',
      outputSchema: objectSchema({ days: { type: 'integer' } }),
      check: ({ answer }) => answered(answer, { days: 14 }),
    },
    {
      id: 'modal-delete-draft',
      kind: 'tabs-dialogs',
      task: 'Delete the draft called "Q3 supplier notes", and no other draft.',
      path: '/notes/drafts',
      check: ({ records }) => recorded(records, 'draft-deleted', { title: 'Q3 supplier notes' }),
    },
    {
      id: 'dialog-rename-project',
      kind: 'tabs-dialogs',
      task: 'Rename the project Atlas to Atlas 2027.',
      path: '/projects',
      check: ({ records }) => recorded(records, 'project-renamed', { id: 'atlas', name: 'Atlas 2027' }),
    },
  ],
  solutions: {
    async 'tabs-lamp-warranty'(p) {
      await p.getByRole('tab', { name: 'Warranty' }).click();
      const text = await p.getByRole('tabpanel').textContent();
      return { months: Number(/(\d+)-month/.exec(text ?? '')?.[1]) };
    },
    async 'accordion-return-days'(p) {
      await p.getByRole('button', { name: 'Can I return an item I have opened?' }).click();
      const text = await p.getByText('opened items can be returned').textContent();
      return { days: Number(/within (\d+) days/.exec(text ?? '')?.[1]) };
    },
    async 'modal-delete-draft'(p) {
      await p.getByRole('row', { name: 'Q3 supplier notes 4 Nov' }).getByRole('button', { name: 'Delete' }).click();
      await p.getByRole('alertdialog').getByRole('button', { name: 'Delete draft' }).click();
      await p.getByRole('cell', { name: 'Q3 supplier notes', exact: true }).waitFor({ state: 'detached' });
    },
    async 'dialog-rename-project'(p) {
      await p
        .getByRole('listitem')
        .filter({ hasText: /^Atlas Rename$/ })
        .getByRole('button')
        .click();
      await p.getByLabel('New name').fill('Atlas 2027');
      await p.getByRole('button', { name: 'Save' }).click();
      await p.getByText('Atlas 2027').waitFor();
    },
  },
};
