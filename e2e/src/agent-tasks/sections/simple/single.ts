// The single-act kinds: one click or one focus on the element the sentence
// names, among others like it. A button (sent by a form, or by a script),
// a link, a text box to put the focus in, a button of a dialog already open
// over the page, and a tab of a tab strip.
import type { Page } from 'playwright-core';
import { esc, recordsJson } from '../../site.js';
import { recorded } from '../../task.js';
import {
  arrange,
  between,
  everyOn,
  type Frame,
  frame,
  framed,
  LABEL_STYLES,
  type LabelStyle,
  pick,
  rngFor,
  type SimpleKind,
  sample,
  seeded,
  shuffle,
  slug,
  statusShown,
  taskOf,
  tellScript,
  textBox,
  told,
  twice,
} from './kit.js';

/** Action buttons, some the start of another (Save, Save draft) so the name must be read whole. */
const ACTIONS = [
  'Save',
  'Save draft',
  'Publish',
  'Publish later',
  'Preview',
  'Share',
  'Share link',
  'Archive',
  'Duplicate',
  'Export',
  'Print',
  'Rename',
  'Download',
  'Download all',
  'Refresh',
  'Subscribe',
  'Undo',
  'Move',
];

interface ButtonPage extends Frame {
  labels: string[];
  target: string;
  /** Sent by a script (fetch), or by a form post. */
  byScript: boolean;
  sentence: string;
}

function makeButtons(seed: number): ButtonPage {
  const r = rngFor('button', seed);
  const f = frame(r, ['Your document', 'Draft actions', 'Photo options', 'Order tools', 'Playlist']);
  const labels = sample(r, ACTIONS, between(r, 3, 6));
  const target = pick(r, labels);
  const sentence = pick(r, [
    `Click the “${target}” button.`,
    `Press ${target}.`,
    `Please click the button labelled ${target}.`,
    `Hit the "${target}" button on this page.`,
  ]);
  return { ...f, labels, target, byScript: r() < 0.5, sentence };
}

const button: SimpleKind = {
  slug: 'button',
  routes: [
    seeded('GET', '/button', makeButtons, (it, v) => {
      const buttons = it.labels.map((l) =>
        it.byScript
          ? `<button type="button" data-label="${esc(l)}">${esc(l)}</button>`
          : `<button name="label" value="${esc(l)}">${esc(l)}</button>`,
      );
      if (!it.byScript)
        return framed(
          it,
          `<form method="post" action="${v.base}/simple/${v.params.seed}/button">${arrange(it.layout, buttons)}</form>`,
        );
      return framed(
        it,
        arrange(it.layout, buttons),
        `${tellScript(v, 'button')}
for (const b of document.querySelectorAll('button[data-label]'))
  b.onclick = async () => { await tell({ label: b.dataset.label }); status(b.dataset.label + ': done.'); };`,
      );
    }),
    seeded('POST', '/button', makeButtons, (it, v) => {
      v.record('pressed', { label: v.form.get('label') });
      return framed({ ...it, before: [], after: [] }, `<p role="status">${esc(v.form.get('label'))}: done.</p>`);
    }),
    { method: 'POST', path: '/simple/:seed/button/event', handle: recordsJson('pressed') },
  ],
  generate(seed) {
    const it = makeButtons(seed);
    const press = (label: string) => async (p: Page) => {
      await p.getByRole('button', { name: label, exact: true }).click();
      await statusShown(p);
    };
    const other = it.labels.find((l) => l !== it.target) as string;
    return {
      task: {
        ...taskOf('button', seed, 'click', 'single'),
        task: it.sentence,
        check: ({ records }) => recorded(records, 'pressed', { label: it.target }),
      },
      solution: press(it.target),
      mistakes: { [`presses ${other}`]: press(other), 'presses it twice': twice(press(it.target)) },
    };
  },
};

/** Pages a site links to; some pairs start alike (Gift cards, Gift card balance). */
const PAGES = [
  'Pricing',
  'About us',
  'Careers',
  'Contact',
  'Blog',
  'Help centre',
  'Store locator',
  'Gift cards',
  'Gift card balance',
  'Returns',
  'Shipping',
  'Privacy',
  'Press',
  'Events',
  'Newsletter',
  'Accessibility',
];

interface LinkPage extends Frame {
  links: string[];
  target: string;
  /** Links in running text rather than laid out one by one. */
  prose: boolean;
  sentence: string;
}

function makeLinks(seed: number): LinkPage {
  const r = rngFor('link', seed);
  const f = frame(r, ['Welcome', 'Find your way', 'Where to next?', 'Useful pages']);
  const links = sample(r, PAGES, between(r, 3, 6));
  const target = pick(r, links);
  const sentence = pick(r, [
    `Open the “${target}” link.`,
    `Click the link ${target}.`,
    `Follow the link to ${target}.`,
    `Go to the ${target} page by clicking its link.`,
  ]);
  return { ...f, links, target, prose: r() < 0.3, sentence };
}

const link: SimpleKind = {
  slug: 'link',
  routes: [
    seeded('GET', '/link', makeLinks, (it, v) => {
      const anchors = it.links.map((l) => `<a href="${v.base}/simple/${v.params.seed}/link/${slug(l)}">${esc(l)}</a>`);
      if (it.prose)
        return framed(it, `<p>To learn more, see ${anchors.slice(0, -1).join(', ')} or ${anchors.at(-1)}.</p>`);
      return framed(it, `<nav aria-label="More pages">${arrange(it.layout, anchors)}</nav>`);
    }),
    seeded('GET', '/link/:to', makeLinks, (it, v) => {
      const to = it.links.find((l) => slug(l) === v.params.to);
      if (!to) return { status: 404, html: framed(it, '<p>There is no such page.</p>') };
      v.record('followed', { link: to });
      return framed({ ...it, title: to, before: [], after: [] }, `<p role="status">This is the ${esc(to)} page.</p>`);
    }),
  ],
  generate(seed) {
    const it = makeLinks(seed);
    const follow = (name: string) => async (p: Page) => {
      await p.getByRole('link', { name, exact: true }).click();
      await statusShown(p);
    };
    const other = it.links.find((l) => l !== it.target) as string;
    return {
      task: {
        ...taskOf('link', seed, 'link', 'single'),
        task: it.sentence,
        check: ({ records }) => recorded(records, 'followed', { link: it.target }),
      },
      solution: follow(it.target),
      mistakes: { [`follows ${other}`]: follow(other), 'follows it twice': twice(follow(it.target)) },
    };
  },
};

const BOXES = [
  'First name',
  'Last name',
  'City',
  'Postcode',
  'Company',
  'Job title',
  'Phone',
  'Street',
  'Country',
  'Nickname',
  'Website',
];

interface FocusPage extends Frame {
  boxes: string[];
  target: string;
  labels: LabelStyle;
  /** A placeholder in each box, a hint that is not the box's name; or none. */
  hints: string[] | null;
  sentence: string;
}

function makeFocus(seed: number): FocusPage {
  const r = rngFor('focus', seed);
  const f = frame(r, ['Your details', 'About you', 'Delivery address', 'Profile']);
  const boxes = sample(r, BOXES, between(r, 3, 5));
  const target = pick(r, boxes);
  const sentence = pick(r, [
    `Put the cursor in the “${target}” box.`,
    `Click into the ${target} field so I can type there.`,
    `Focus the text box labelled ${target}.`,
    `Move the focus to the ${target} field.`,
  ]);
  const hints = r() < 0.5 ? boxes.map(() => pick(r, ['Type here', 'Required', 'Optional', 'Start typing…'])) : null;
  return { ...f, boxes, target, labels: pick(r, LABEL_STYLES), hints, sentence };
}

const focus: SimpleKind = {
  slug: 'focus',
  routes: [
    seeded('GET', '/focus', makeFocus, (it, v) => {
      const hint = (i: number) => (it.hints ? ` placeholder="${esc(it.hints[i])}"` : '');
      const boxes = it.boxes.map((b, i) =>
        textBox(it.labels, b, slug(b), `type="text" data-box="${esc(b)}"${hint(i)}`),
      );
      return framed(
        it,
        `<form>${boxes.join('')}</form>`,
        `${tellScript(v, 'focus')}
for (const box of document.querySelectorAll('input[data-box]')) box.addEventListener('focus', () => tell({ box: box.dataset.box }));`,
      );
    }),
    { method: 'POST', path: '/simple/:seed/focus/event', handle: recordsJson('focused') },
  ],
  generate(seed) {
    const it = makeFocus(seed);
    const into = (name: string) => (p: Page) => told(p, () => p.getByLabel(name, { exact: true }).click());
    const other = it.boxes.find((b) => b !== it.target) as string;
    return {
      task: {
        ...taskOf('focus', seed, 'focus', 'single'),
        task: it.sentence,
        check: ({ records }) => everyOn(records, 'focused', 'box', it.target),
      },
      solution: into(it.target),
      mistakes: { [`focuses ${other}`]: into(other) },
    };
  },
};

/** Dialogs a site opens over its page, each with the buttons that answer it. */
const DIALOGS = [
  {
    title: 'Unsaved changes',
    text: 'You have changes that are not saved yet.',
    buttons: ['Save', 'Discard', 'Keep editing'],
  },
  {
    title: 'Your session is about to end',
    text: 'You will be signed out in two minutes.',
    buttons: ['Stay signed in', 'Sign out'],
  },
  {
    title: 'Turn on notifications?',
    text: 'We can tell you when your order ships.',
    buttons: ['Allow', 'Not now', 'Never ask again'],
  },
  {
    title: 'An update is ready',
    text: 'Version 4.2 fixes several problems.',
    buttons: ['Update now', 'Remind me later', 'Skip this version'],
  },
  {
    title: 'Delete this photo?',
    text: 'It will stay in the bin for 30 days.',
    buttons: ['Delete', 'Cancel', 'Move to album'],
  },
  {
    title: 'Enjoying the app?',
    text: 'A rating helps other people find us.',
    buttons: ['Rate now', 'Later', 'No thanks'],
  },
  {
    title: 'Choose a language',
    text: 'You can change it later in the settings.',
    buttons: ['English', 'Deutsch', 'Français', 'Español'],
  },
];

interface DialogPage extends Frame {
  dialog: (typeof DIALOGS)[number];
  buttons: string[];
  target: string;
  /** The page's own buttons behind the dialog, one of them named like a dialog button at times. */
  behind: string[];
  /** A native <dialog> opened as modal, or a div drawn over the page. */
  native: boolean;
  sentence: string;
}

function makeDialog(seed: number): DialogPage {
  const r = rngFor('dialog', seed);
  const f = frame(r, ['Your account', 'Inbox', 'Gallery', 'Settings']);
  const dialog = pick(r, DIALOGS);
  const buttons = shuffle(r, dialog.buttons);
  const target = pick(r, buttons);
  const behind = shuffle(r, [...sample(r, ACTIONS, 2), ...(r() < 0.5 ? [target] : [])]);
  const sentence = pick(r, [
    `A dialog is open: press “${target}” in it.`,
    `In the “${dialog.title}” dialog, click ${target}.`,
    `Answer the pop-up by clicking ${target}.`,
    `Click ${target} in the dialog box.`,
  ]);
  return { ...f, dialog, buttons, target, behind: [...new Set(behind)], native: r() < 0.5, sentence };
}

const dialog: SimpleKind = {
  slug: 'dialog',
  routes: [
    seeded('GET', '/dialog', makeDialog, (it, v) => {
      const button = (l: string, place: string) =>
        `<button type="button" data-label="${esc(l)}" data-place="${place}">${esc(l)}</button>`;
      const inside = `<h2 id="dialog-title">${esc(it.dialog.title)}</h2><p>${esc(it.dialog.text)}</p>
<p>${it.buttons.map((b) => button(b, 'dialog')).join(' ')}</p>`;
      const box = it.native
        ? `<dialog id="dialog" aria-labelledby="dialog-title">${inside}</dialog>`
        : `<div class="overlay" id="dialog"><div role="dialog" aria-modal="true" aria-labelledby="dialog-title">${inside}</div></div>`;
      return framed(
        it,
        `${arrange(
          it.layout,
          it.behind.map((b) => button(b, 'page')),
        )}${box}`,
        `${tellScript(v, 'dialog')}
const dialog = document.getElementById('dialog');
${it.native ? 'dialog.showModal();' : ''}
for (const b of document.querySelectorAll('button[data-label]')) b.onclick = async () => {
  if (b.dataset.place === 'dialog') ${it.native ? 'dialog.close()' : 'dialog.hidden = true'};
  await tell({ label: b.dataset.label, place: b.dataset.place });
  status(b.dataset.label + ': done.');
};`,
      );
    }),
    { method: 'POST', path: '/simple/:seed/dialog/event', handle: recordsJson('pressed') },
  ],
  generate(seed) {
    const it = makeDialog(seed);
    const press = (name: string) => async (p: Page) => {
      await p.getByRole('dialog').getByRole('button', { name, exact: true }).click();
      await statusShown(p);
    };
    const other = it.buttons.find((b) => b !== it.target) as string;
    return {
      task: {
        ...taskOf('dialog', seed, 'dialog', 'single'),
        task: it.sentence,
        check: ({ records }) => recorded(records, 'pressed', { label: it.target, place: 'dialog' }),
      },
      solution: press(it.target),
      mistakes: { [`presses ${other}`]: press(other), 'presses it twice': twice(press(it.target)) },
    };
  },
};

/** Tab strips of a few sites, each under the title of its page; the panels say which tab they belong to. */
const TAB_SETS = [
  { title: 'Arden desk lamp', tabs: ['Overview', 'Specifications', 'Reviews', 'Shipping', 'Questions'] },
  { title: 'Account', tabs: ['Profile', 'Security', 'Billing', 'Notifications', 'Team'] },
  { title: 'Lentil soup', tabs: ['Ingredients', 'Method', 'Nutrition', 'Comments'] },
  { title: 'Activity', tabs: ['Today', 'This week', 'This month', 'This year'] },
  { title: 'Bus line 14', tabs: ['Timetable', 'Fares', 'Stops', 'Service alerts'] },
];

interface TabPage extends Frame {
  tabs: string[];
  target: string;
  /** The tabs down the side rather than across the top. */
  vertical: boolean;
  /** Every panel in the page, hidden but one, or a panel's text written in when its tab opens. */
  allPanels: boolean;
  sentence: string;
}

function makeTabs(seed: number): TabPage {
  const r = rngFor('tab', seed);
  const set = pick(r, TAB_SETS);
  const f = frame(r, [set.title]);
  const tabs = sample(r, set.tabs, between(r, 3, set.tabs.length));
  // The first tab is open from the start: the task names another.
  const target = pick(r, tabs.slice(1));
  const sentence = pick(r, [
    `Open the “${target}” tab.`,
    `Switch to the ${target} tab.`,
    `Show the ${target} tab.`,
    `Click on the tab called ${target}.`,
  ]);
  return { ...f, tabs, target, vertical: r() < 0.4, allPanels: r() < 0.5, sentence };
}

const tab: SimpleKind = {
  slug: 'tab',
  routes: [
    seeded('GET', '/tab', makeTabs, (it, v) => {
      const text = (t: string) => `This is the ${t.toLowerCase()} part of the page.`;
      const strip = `<div role="tablist" aria-orientation="${it.vertical ? 'vertical' : 'horizontal'}"${it.vertical ? ' style="display:flex;flex-direction:column;margin-right:1rem"' : ''}>${it.tabs
        .map(
          (t, i) =>
            `<button role="tab" id="tab-${i}" aria-selected="${i === 0}" aria-controls="panel-${it.allPanels ? i : 0}" data-text="${esc(text(t))}">${esc(t)}</button>`,
        )
        .join(' ')}</div>`;
      const panels = it.allPanels
        ? it.tabs
            .map(
              (t, i) =>
                `<div role="tabpanel" id="panel-${i}" aria-labelledby="tab-${i}"${i ? ' hidden' : ''}>${esc(text(t))}</div>`,
            )
            .join('')
        : `<div role="tabpanel" id="panel-0">${esc(text(it.tabs[0] as string))}</div>`;
      return framed(
        it,
        `<style>[role=tab][aria-selected=true]{font-weight:bold;border-width:2px}</style><div${it.vertical ? ' style="display:flex"' : ''}>${strip}${panels}</div>`,
        `${tellScript(v, 'tab')}
const tabs = [...document.querySelectorAll('[role=tab]')];
for (const t of tabs) t.onclick = () => {
  for (const o of tabs) o.setAttribute('aria-selected', String(o === t));
  ${
    it.allPanels
      ? "for (const p of document.querySelectorAll('[role=tabpanel]')) p.hidden = p.id !== t.getAttribute('aria-controls');"
      : "document.getElementById('panel-0').textContent = t.dataset.text;"
  }
  tell({ tab: t.textContent });
};`,
      );
    }),
    { method: 'POST', path: '/simple/:seed/tab/event', handle: recordsJson('tab-shown') },
  ],
  generate(seed) {
    const it = makeTabs(seed);
    const open = (name: string) => (p: Page) => told(p, () => p.getByRole('tab', { name, exact: true }).click());
    const other = it.tabs.find((t) => t !== it.target) as string;
    return {
      task: {
        ...taskOf('tab', seed, 'tab', 'single'),
        task: it.sentence,
        check: ({ records }) => everyOn(records, 'tab-shown', 'tab', it.target),
      },
      solution: open(it.target),
      mistakes: { [`opens ${other}`]: open(other) },
    };
  },
};

export const singleKinds: SimpleKind[] = [button, link, focus, dialog, tab];
