// The compact step profile's words and schema, from page states made here:
// what a small model reads of a page, what it may answer, and when it is
// asked whether the task is done.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import type { PageState } from '../browser/types.js';
import {
  COMPACT_SYSTEM_PROMPT,
  compactMessage,
  compactShape,
  compactView,
  elementLine,
  namedIn,
  pageLines,
  parseCompact,
  targetLabels,
  whatChanged,
} from './compact.js';
import { sectionFor } from './hints.js';
import { shapeOf } from './step-questions.js';
import {
  asksDone,
  asksForAnswer,
  doneParts,
  partActs,
  partDone,
  partValues,
  sentPart,
  singleAct,
  taskParts,
  valuesLeft,
} from './task-parts.js';
import { element, pageOf, text } from './test-support.js';

const FORM = pageOf([
  { kind: 'text', depth: 0, text: 'Tell us your name' },
  element(1, { role: 'textbox', name: 'First name', required: true }),
  element(2, { role: 'select', name: 'Colour', value: 'Red', options: ['Red', 'Green', 'Blue'] }),
  element(3, { role: 'checkbox', name: 'Apples', checked: true }),
  element(4, { role: 'button', name: 'Submit' }),
  element(5, { role: 'button', name: 'Delete', disabled: true }),
]);

/** The schema's actions, by name. */
function actions(schema: unknown): Map<string, Record<string, unknown>[]> {
  const out = new Map<string, Record<string, unknown>[]>();
  for (const a of (schema as { anyOf: { properties: Record<string, { const?: string }> }[] }).anyOf) {
    const name = String(a.properties.action?.const);
    out.set(name, [...(out.get(name) ?? []), a.properties]);
  }
  return out;
}

// 288 tokens by Qwen 2.5's own tokenizer on 2026-11-29 (1,144 characters): its prompts run 3.7 to 4
// characters a token, so 1,150 characters keeps it under 300 tokens.
test('the system prompt stays short: at most 300 tokens of the 1.5B', () => {
  assert.ok(COMPACT_SYSTEM_PROMPT.length <= 1_150, `${COMPACT_SYSTEM_PROMPT.length} characters`);
});

test('each element says its role, its name and its state', () => {
  assert.equal(
    elementLine('First name', { role: 'textbox', name: 'First name', required: true }),
    'textbox "First name" empty required',
  );
  assert.equal(
    elementLine('First name', { role: 'textbox', name: 'First name', value: 'Tora' }),
    'textbox "First name" value="Tora"',
  );
  // An empty box's placeholder says the form it wants ("14 March 1990" is refused as YYYY-MM-DD); an
  // example value is not said: a small model typed "Northwind Supplies" into the box it was shown on.
  assert.equal(
    elementLine('Date of birth', { role: 'textbox', name: 'Date of birth', hint: 'YYYY-MM-DD' }),
    'textbox "Date of birth" empty, format "YYYY-MM-DD"',
  );
  assert.equal(
    elementLine('Project', { role: 'textbox', name: 'Project', hint: 'Northwind Supplies' }),
    'textbox "Project" empty',
  );
  // A password's value is never shown, nor a stand-in a small model would copy into the next field.
  assert.equal(
    elementLine('New password', { role: 'textbox', name: 'New password', value: '•••' }),
    'textbox "New password" filled (hidden)',
  );
  assert.equal(
    elementLine('Apples', { role: 'checkbox', name: 'Apples', checked: false }),
    'checkbox "Apples" unchecked',
  );
  assert.equal(
    elementLine('Colour', { role: 'select', name: 'Colour', value: 'Red', options: ['Red', 'Green'] }),
    'select "Colour" value="Red" options: Red | Green',
  );
  assert.equal(elementLine('Reviews', { role: 'tab', name: 'Reviews', checked: true }), 'tab "Reviews" selected');
  assert.equal(elementLine('More', { role: 'button', name: 'More', expanded: false }), 'button "More" collapsed');
  assert.equal(elementLine('Delete', { role: 'button', name: 'Delete', disabled: true }), 'button "Delete" disabled');
});

test('an element is named by its name; a name two share, by its row, then by a number; none, by role and index', () => {
  const labels = targetLabels(
    pageOf([
      element(1, { role: 'button', name: 'Delete', context: 'Q3 notes' }),
      element(2, { role: 'button', name: 'Delete', context: 'Q4 budget' }),
      element(3, { role: 'button', name: 'Edit' }),
      element(4, { role: 'button', name: 'Edit' }),
      element(5, { role: 'link', name: '' }),
    ]),
  );
  assert.deepEqual(
    [...labels.values()],
    ['Delete of Q3 notes', 'Delete of Q4 budget', 'Edit (1)', 'Edit (2)', 'link 5'],
  );
});

test('a page that fits is shown in page order; one that does not, what the task names first and what was left out', () => {
  const whole = compactView(FORM, 'Type Tora into the first name');
  assert.deepEqual(
    whole.text.split('\n').map((l) => l.split(' ')[0]),
    ['Tell', 'textbox', 'select', 'checkbox', 'button', 'button'],
  );
  const many = pageOf([
    ...Array.from({ length: 60 }, (_, i) =>
      element(i + 1, { role: 'link', name: `Article number ${i + 1} of the archive` }),
    ),
    element(61, { role: 'button', name: 'Subscribe' }),
  ]);
  const view = compactView(many, 'Press Subscribe', 100);
  const lines = view.text.split('\n');
  assert.equal(lines[0], 'button "Subscribe"', 'the element the task names comes first');
  assert.match(lines.at(-1) ?? '', /^\(left out: \d+ elements and 0 lines of text; scroll to see more\)$/);
  assert.ok(view.text.length <= 100 * 3.5 + 80, 'within the budget');
  assert.equal(view.shown[0]?.index, 61);
  assert.equal(view.cut.elements, 61 - view.shown.length);
});

test('the schema offers only what the page allows, each element by its name', () => {
  const view = compactView(FORM, 'Type Tora into the first name');
  const offered = actions(compactShape(view, { files: false, task: 'Type Tora into the first name' }).schema);
  assert.deepEqual(
    offered.get('click')?.[0]?.target,
    { enum: ['First name', 'Apples', 'Submit'] },
    'no disabled element, and no select (it is chosen in, not clicked)',
  );
  assert.deepEqual(offered.get('type')?.[0]?.target, { enum: ['First name'] }, 'type only into text boxes');
  assert.deepEqual(offered.get('select')?.[0], {
    action: { type: 'string', const: 'select' },
    target: { const: 'Colour' },
    option: { enum: ['Red', 'Green', 'Blue'] },
  });
  for (const absent of ['navigate', 'attach_file', 'fill_secret', 'purchase', 'call_tool', 'record'])
    assert.equal(offered.has(absent), false, absent);
  assert.ok(offered.has('finish'));
  const granted = actions(
    compactShape(view, { files: false, secrets: true, task: 'Sign in at https://shop.example' }).schema,
  );
  assert.deepEqual(granted.get('fill_secret')?.[0]?.target, { enum: ['First name'] });
  assert.ok(granted.has('navigate'), 'a task naming a URL may navigate');
  const refused = actions(compactShape(view, { files: false, refused: ['click 4'], task: 'x' }).schema);
  assert.deepEqual(refused.get('click')?.[0]?.target, { enum: ['First name', 'Apples'] }, 'refused');
  const kept = actions(compactShape(view, { files: false, keep: new Set([3]), task: 'x' }).schema);
  assert.deepEqual(kept.get('click')?.[0]?.target, { enum: ['First name', 'Submit'] }, 'a box it ticked');
});

test('a send its form keeps (a required box empty) is said so and not offered', () => {
  const page = pageOf([
    element(1, { role: 'textbox', name: 'Email', required: true }),
    element(2, { role: 'button', name: 'Send message', incomplete: true }),
    element(3, { role: 'button', name: 'Help' }),
  ]);
  const view = compactView(page, 'Write to us');
  assert.match(view.text, /button "Send message" \(its form is empty or not complete: fill it first\)/);
  const offered = actions(compactShape(view, { files: false, task: 'Write to us' }).schema);
  assert.deepEqual(offered.get('click')?.[0]?.target, { enum: ['Email', 'Help'] });
});

test('a read-only box (a calendar fills it) is said so and offered to click, not to type into', () => {
  const page = pageOf([
    element(1, { role: 'textbox', name: 'Date', readonly: true }),
    element(2, { role: 'textbox', name: 'Patient name' }),
  ]);
  const view = compactView(page, 'Book a check-up');
  assert.match(view.text, /textbox "Date" empty read-only \(click it to choose\)/);
  const offered = actions(compactShape(view, { files: false, task: 'Book a check-up' }).schema);
  assert.deepEqual(offered.get('type')?.[0]?.target, { enum: ['Patient name'] });
  assert.deepEqual(offered.get('click')?.[0]?.target, { enum: ['Date', 'Patient name'] });
  const chosen = actions(compactShape(view, { files: false, task: 'x', writing: 1 }).schema);
  assert.ok(chosen.has('click'), 'a click on it chose no box to write into');
});

test('a link to the page the browser is on is said so, and neither offered nor named', () => {
  const task = 'Cancel my Premium subscription';
  const page = pageOf([
    element(1, { role: 'link', name: 'Overview' }),
    element(2, { role: 'link', name: 'Subscription', current: true }),
    element(3, { role: 'button', name: 'Cancel subscription' }),
  ]);
  const view = compactView(page, task);
  assert.match(view.text, /link "Subscription" \(this page\)/);
  const offered = actions(compactShape(view, { files: false, task }).schema);
  assert.deepEqual(offered.get('click')?.[0]?.target, { enum: ['Overview', 'Cancel subscription'] });
  assert.deepEqual(namedIn(task, view), []);
});

test('a date typed into a box that asks for a format is the task’s date in that format', () => {
  const task = 'Create an account for Marta: born on 14 March 1990. Accept the terms.';
  const page = pageOf([
    element(1, { role: 'textbox', name: 'Date of birth', hint: 'YYYY-MM-DD' }),
    element(2, { role: 'textbox', name: 'Note' }),
  ]);
  const view = compactView(page, task);
  const typed = (target: string, text: string) => {
    const parsed = parseCompact({ action: 'type', target, text }, view, task);
    return 'step' in parsed ? parsed.step.actions[0] : parsed;
  };
  assert.deepEqual(typed('Date of birth', '1990'), { action: 'type', index: 1, text: '1990-03-14' });
  assert.deepEqual(typed('Note', '1990'), { action: 'type', index: 2, text: '1990' }, 'a box that asks no format');
});

test('the answer is one action naming an element of the page; prose, two actions or a name not there are refused', () => {
  const view = compactView(FORM, 'x');
  const ok = parseCompact({ action: 'type', target: 'First name', text: 'Tora' }, view);
  assert.ok('step' in ok);
  assert.deepEqual(ok.step.actions, [{ action: 'type', index: 1, text: 'Tora' }]);
  assert.ok('error' in parseCompact({ evaluation: 'fine', actions: [] }, view));
  assert.ok('error' in parseCompact({ action: 'click', target: 'Submit', note: 'and more' }, view));
  assert.ok('error' in parseCompact({ action: 'click', target: 'Buy now' }, view));
  const finish = parseCompact({ action: 'finish', success: true, answer: 'done' }, view);
  assert.ok('step' in finish);
});

test('what the last action changed, in one line', () => {
  const before = { url: FORM.url, fingerprint: 'f1', targetKey: 'textbox|First name#1' };
  const typed = pageOf(
    [
      element(1, { role: 'textbox', name: 'First name', value: 'Tora' }),
      element(4, { role: 'button', name: 'Submit' }),
    ],
    { fingerprint: 'f2' },
  );
  assert.equal(whatChanged(before, typed), '"First name" now holds "Tora"; the page changed');
  assert.equal(whatChanged(before, FORM), 'nothing on the page changed');
  const masked = pageOf([element(1, { role: 'textbox', name: 'First name', value: '•••' })], { fingerprint: 'f3' });
  assert.equal(whatChanged(before, masked), '"First name" is now filled (hidden); the page changed');
  const grown = pageOf(
    [element(1, { role: 'button', name: 'A' }, true), element(2, { role: 'button', name: 'B' }, true)],
    {
      fingerprint: 'f3',
    },
  );
  assert.equal(whatChanged({ ...before, targetKey: undefined }, grown), 'the page changed: 2 new elements');
  assert.equal(
    whatChanged(before, pageOf([], { url: 'http://127.0.0.1/thanks', title: 'Thank you' })),
    'the page changed: now "Thank you"',
  );
  // With the page before: what went and what came, by name.
  const list = pageOf([
    { kind: 'text', depth: 0, text: 'Q3 notes' },
    element(1, { role: 'button', name: 'Delete', context: 'Q3 notes' }),
    { kind: 'text', depth: 0, text: 'Q4 budget' },
    element(2, { role: 'button', name: 'Delete', context: 'Q4 budget' }),
  ]);
  const after = pageOf(
    [
      { kind: 'text', depth: 0, text: 'Q4 budget' },
      element(1, { role: 'button', name: 'Delete', context: 'Q4 budget' }),
      element(2, { role: 'button', name: 'Undo' }, true),
    ],
    {
      fingerprint: 'f4',
    },
  );
  assert.equal(
    whatChanged({ url: list.url, fingerprint: 'f1', lines: pageLines(list) }, after),
    'gone: "Q3 notes", button "Delete" of "Q3 notes"; new: button "Undo"',
  );
});

test('a single act is asked "done?" after any act; several, after a click the last clause names', () => {
  assert.equal(singleAct('Click the button labelled Submit.'), true);
  assert.equal(singleAct('Type Tora into the field and press Submit'), false);
  assert.equal(singleAct('Tick Apples, Pears; then press Submit'), false);
  const submit = { role: 'button', name: 'Submit' } as const;
  assert.equal(asksDone('Click Submit', { action: 'click', index: 4 }, submit), true);
  assert.equal(
    asksDone('Type Tora into the name and press Submit', { action: 'type', index: 1, text: 'Tora' }, undefined),
    false,
  );
  assert.equal(asksDone('Type Tora into the name and press Submit', { action: 'click', index: 4 }, submit), true);
  assert.equal(
    asksDone(
      'Type Tora into the name and press Submit',
      { action: 'click', index: 2 },
      { role: 'button', name: 'Cancel' },
    ),
    false,
  );
  assert.equal(asksDone('Click Submit', { action: 'scroll', direction: 'down' }, undefined), false);
});

test("the loop keeps the task's parts: an act that names one marks it done, and the message says the next", () => {
  const task = 'Choose the Team plan, billed annually, and continue.';
  const team = { role: 'radio', name: 'Team, €15 per user' } as const;
  assert.equal(partDone(task, { partsDone: [] }, { action: 'click', index: 4 }, team), 0);
  assert.equal(
    partDone(task, { partsDone: [0] }, { action: 'click', index: 2 }, { role: 'radio', name: 'Annual (save 20%)' }),
    1,
  );
  assert.equal(
    partDone(task, { partsDone: [0, 1] }, { action: 'click', index: 6 }, { role: 'button', name: 'Continue' }),
    2,
  );
  assert.equal(
    partDone(task, { partsDone: [0] }, { action: 'click', index: 4 }, team),
    undefined,
    'a part is done once',
  );
  assert.equal(
    partDone(task, { partsDone: [] }, { action: 'click', index: 5 }, { role: 'radio', name: 'Business' }),
    undefined,
  );
  assert.equal(
    partDone('Type Tora and press Send', { partsDone: [] }, { action: 'type', index: 1, text: 'Tora' }, undefined),
    0,
  );
  const memory = { memory: '', results: [], recent: [], failures: 0, partsDone: [0] };
  const text = compactMessage({ task, files: [], memory, page: FORM, view: compactView(FORM, task) });
  assert.match(text, /^Parts: 1\) Choose the Team plan \(done\) 2\) billed annually 3\) continue$/m);
  assert.match(text, /\nNext part: billed annually$/);
  const all = compactMessage({
    task,
    files: [],
    memory: { ...memory, partsDone: [0, 1, 2] },
    page: FORM,
    view: compactView(FORM, task),
  });
  assert.match(all, /\nEvery part is done: finish\.$/);
});

test('a part that says both, twice or again takes two acts before it is done', () => {
  const typed = (text: string, name: string) =>
    [{ action: 'type', index: 1, text } as const, { role: 'textbox', name } as const] as const;
  const both = 'Set the password to Kite-4417: type it into both fields and press Save.';
  assert.deepEqual(taskParts(both), ['Set the password to Kite-4417: type it into both fields', 'press Save']);
  assert.equal(partDone(both, { partsDone: [] }, ...typed('Kite-4417', 'New password')), 0);
  assert.deepEqual([...doneParts(both, { partsDone: [0] })], [], 'one field of two is not the part');
  assert.equal(
    partDone(both, { partsDone: [0] }, ...typed('Kite-4417', 'Repeat it')),
    0,
    'the second field is the same part',
  );
  assert.deepEqual([...doneParts(both, { partsDone: [0, 0], typed: ['Kite-4417', 'Kite-4417'] })], [0]);
  const memory = { memory: '', results: [], recent: [], failures: 0, partsDone: [0] };
  const once = compactMessage({ task: both, files: [], memory, page: FORM, view: compactView(FORM, both) });
  assert.match(once, /\nNext part: Set the password to Kite-4417: type it into both fields$/);
  const twice = { ...memory, partsDone: [0, 0], typed: ['Kite-4417', 'Kite-4417'] };
  const then = compactMessage({ task: both, files: [], memory: twice, page: FORM, view: compactView(FORM, both) });
  assert.match(then, /\nNext part: press Save$/);

  // "... and again in the field below it": the clause is the same act once more, not a part of its own.
  const again = 'Type Kite-4417 in the password field and again in the field below it, then click Save.';
  assert.deepEqual(taskParts(again), [
    'Type Kite-4417 in the password field and again in the field below it',
    'click Save',
  ]);
  assert.equal(partActs('Make my new password “Kite-4417” (it has to be entered twice)'), 2);
  assert.equal(partActs('Type Tora into the name'), 1);
  assert.equal(singleAct('Type Kite-4417 into both fields'), false, 'two acts are not a single act');
});

test('a clause that only says where leads the act after it, not a part of its own', () => {
  assert.deepEqual(taskParts('In the “Choose a language” dialog, click Español.'), [
    'In the “Choose a language” dialog, click Español',
  ]);
  assert.equal(singleAct('In the “Choose a language” dialog, click Español.'), true);
  assert.deepEqual(taskParts('On the Billing tab, tick Paper invoices and press Save'), [
    'On the Billing tab, tick Paper invoices',
    'press Save',
  ]);
  assert.deepEqual(taskParts('In the form, type Tora'), ['In the form, type Tora'], 'an act of its own is kept');
  assert.deepEqual(taskParts('Press Save in the dialog'), ['Press Save in the dialog']);
});

test('the step ends with the elements the task, or its next part, names by their whole name', () => {
  const dialog = pageOf([
    element(1, { role: 'button', name: 'Remind me later' }),
    element(2, { role: 'button', name: 'Skip this version' }),
    element(3, { role: 'button', name: 'Update now' }),
  ]);
  const task = 'A dialog is open: press “Skip this version” in it.';
  const memory = { memory: '', results: [], recent: [], failures: 0 };
  const text = compactMessage({ task, files: [], memory, page: dialog, view: compactView(dialog, task) });
  assert.match(text, /\nThe task names: button "Skip this version"$/);

  // A name inside a longer one the task says is not one; a name no clause says, none.
  const save = pageOf([
    element(1, { role: 'button', name: 'Save' }),
    element(2, { role: 'button', name: 'Save draft' }),
    element(3, { role: 'button', name: 'Publish' }),
  ]);
  assert.deepEqual(
    namedIn('Click Save draft.', compactView(save, 'x')).map((e) => e.info.name),
    ['Save draft'],
  );
  assert.deepEqual(namedIn('Click Saved.', compactView(save, 'x')), []);
  assert.deepEqual(
    namedIn('Click Save draft.', compactView(save, 'x'), new Set([2])).map((e) => e.info.name),
    ['Save'],
  );

  // Once a part is done, the hint is the next part's.
  const form = pageOf([
    element(1, { role: 'checkbox', name: 'Apples', checked: true }),
    element(2, { role: 'button', name: 'Submit' }),
  ]);
  const two = 'Tick Apples and press Submit';
  const next = compactMessage({
    task: two,
    files: [],
    memory: { ...memory, partsDone: [0] },
    page: form,
    view: compactView(form, two),
    keep: new Set([1]),
  });
  assert.match(next, /\nNext part: press Submit\nIt names: button "Submit"$/);
  const first = compactMessage({ task: two, files: [], memory, page: form, view: compactView(form, two) });
  assert.match(first, /\nThe first part names: checkbox "Apples"$/);
});

test('a task that asks for an answer is told to finish with it once the page shows it', () => {
  assert.equal(asksForAnswer('Find the price of the blue mug and answer with it.'), true);
  assert.equal(asksForAnswer('How many notebooks are in the cart'), true);
  assert.equal(asksForAnswer('Add two notebooks to the cart and tell me the total.'), true);
  assert.equal(asksForAnswer('Find the Save button and click it'), false);
  const shop = pageOf([
    element(1, { role: 'link', name: 'Blue mug' }),
    { kind: 'text', depth: 0, text: '€12.00' },
    element(2, { role: 'link', name: 'Desk lamp' }),
  ]);
  const task = 'Find the price of the blue mug and answer with it.';
  const memory = { memory: '', results: [], recent: [], failures: 0 };
  const first = compactMessage({ task, files: [], memory, page: shop, view: compactView(shop, task) });
  assert.match(
    first,
    /\nThe first part names: link "Blue mug"\nIf the page shows what the task asks, finish with it as the answer\.$/,
  );
  const later = compactMessage({
    task,
    files: [],
    memory: { ...memory, done: ['clicked link "Blue mug"'], partsDone: [0] },
    page: shop,
    view: compactView(shop, task),
  });
  assert.ok(!later.includes('names: link'), 'once it went somewhere, the name points nowhere');
  // While the part to find the page is not done (a search typed, no result opened), the names still point.
  const searched = { ...memory, done: ['typed "blue mug" into textbox "Search"'], typed: ['blue mug'] };
  const still = compactMessage({ task, files: [], memory: searched, page: shop, view: compactView(shop, task) });
  assert.match(still, /\nThe first part names: link "Blue mug"\n/);
  assert.match(later, /\nIf the page shows what the task asks, finish with it as the answer\.$/);
});

test('a part is done once every value it asks for is entered: a user name and a password, a date in words', () => {
  const task = 'Sign in as yuki_lund with the password Copper-9830 and press Log in.';
  assert.deepEqual(partValues(taskParts(task)[0] as string), ['yuki_lund', 'Copper-9830']);
  assert.deepEqual(partValues('Log in with user name “yuki lund” and password “Copper”'), ['yuki lund', 'Copper']);
  assert.deepEqual(partValues('Tick Apples and Pears'), []);
  // The password first: the part is not done, and the step says what is still to enter.
  const password = { action: 'type', index: 2, text: 'Copper-9830' } as const;
  const info = { role: 'textbox', name: 'Password' } as const;
  assert.equal(partDone(task, {}, password, info), 0);
  const memory = {
    ...{ memory: '', results: [], recent: [], failures: 0 },
    ...{ partsDone: [0], typed: ['Copper-9830'], done: ['typed "Copper-9830" into textbox "Password"'] },
  };
  assert.deepEqual([...doneParts(task, memory)], []);
  const form = pageOf([
    element(1, { role: 'textbox', name: 'User name' }),
    element(2, { role: 'textbox', name: 'Password', value: '•••' }),
    element(3, { role: 'button', name: 'Log in' }),
  ]);
  const text = compactMessage({
    task,
    files: [],
    memory,
    page: form,
    view: compactView(form, task),
    keep: new Set([2]),
  });
  assert.match(text, /\nNext part: Sign in as yuki_lund with the password Copper-9830\nNot entered yet: "yuki_lund"$/);
  assert.deepEqual([...doneParts(task, { ...memory, partsDone: [0, 0], typed: ['Copper-9830', 'yuki_lund'] })], [0]);
  // A box ticked enters its name: the quoted boxes of a part.
  const boxes = 'Select the boxes “Painting”, “Cooking” and click Send.';
  assert.deepEqual([...doneParts(boxes, { partsDone: [0, 1], typed: ['Painting', 'Cooking'] })], [0, 1]);
  // One text may hold several: a date typed in words.
  assert.deepEqual(valuesLeft('date of birth 14 March 1990', ['14 March 1990']), []);
});

test('Enter that sent a form does the last part when it says to send', () => {
  assert.equal(sentPart('Type Tora and press Send', { partsDone: [0], typed: ['Tora'] }), 1);
  assert.equal(sentPart('Tick Ham, then click Save.', { partsDone: [0], typed: ['Ham'] }), 1);
  assert.equal(sentPart('Type Tora and press Send', { partsDone: [0, 1], typed: ['Tora'] }), undefined, 'done');
  assert.equal(sentPart('Tick Apples and Pears', { partsDone: [0] }), undefined, 'no part says to send');
});

test('a button named in two letters ("OK") still does the part that names it', () => {
  const task = 'Choose Large as the size and press OK.';
  const ok = { role: 'button', name: 'OK' } as const;
  assert.equal(partDone(task, { partsDone: [0], typed: ['Large'] }, { action: 'click', index: 5 }, ok), 1);
  assert.equal(partDone('Tick Ham and press Save', { partsDone: [0] }, { action: 'click', index: 5 }, ok), undefined);
});

test('a text the task writes without spaces around it is typed without them', () => {
  const view = compactView(FORM, 'x');
  const typed = (text: string, task: string) => {
    const parsed = parseCompact({ action: 'type', target: 'First name', text }, view, task);
    return 'step' in parsed ? (parsed.step.actions[0] as { text?: string }).text : parsed.error;
  };
  assert.equal(typed(' Velvet-1835', 'Sign in with the password Velvet-1835.'), 'Velvet-1835');
  assert.equal(typed('Velvet-1835 ', 'Sign in with the password Velvet-1835.'), 'Velvet-1835');
  assert.equal(typed(' two spaces ', 'Type " two spaces " into the box.'), ' two spaces ', 'as the task has it');
  assert.equal(typed(' Tora', 'Type something'), ' Tora', 'a text the task does not hold is left');
});

test('a long list shows the option the task names, wherever it is', () => {
  const countries = Array.from({ length: 20 }, (_, i) => `Country ${String.fromCharCode(65 + i)}`);
  countries[16] = 'Finland';
  const info = { role: 'select', name: 'Country', options: countries } as const;
  const line = elementLine('Country', info, 'Pick “Finland” from the Country list, then click Save.');
  assert.match(line, / \| Finland \| … 8 more$/);
  assert.equal(line.split(' | ').length, 13, 'twelve options and the count of the rest');
  assert.doesNotMatch(elementLine('Country', info, 'Pick one'), /Finland/, 'unnamed, the first twelve');
});

test('an output schema is written out as the answer it asks for', () => {
  assert.equal(
    shapeOf({ type: 'object', properties: { balance: { type: 'number', description: 'in euros' } } }),
    '{"balance": number (in euros)}',
  );
  assert.equal(
    shapeOf({
      type: 'object',
      properties: {
        items: { type: 'array', items: { type: 'object', properties: { name: { type: 'string' } } } },
        size: { enum: ['S', 'M'] },
      },
    }),
    '{"items": [{"name": string}, ...], "size": "S" | "M"}',
  );
});

test('the last link of a breadcrumb trail is said to be the section the page is in', () => {
  const product = pageOf([
    element(1, { role: 'link', name: 'Home' }),
    text('›'),
    element(2, { role: 'link', name: 'Garden' }),
    text('›'),
    element(3, { role: 'link', name: 'Hand tools' }),
    text('› Felco pruning shears'),
    text('€49.90 · Ships in 2 days'),
  ]);
  const view = compactView(product, 'Go to the category it is listed in');
  assert.match(view.text, /\nlink "Hand tools" \(the section this page is in\)\n/);
  assert.match(view.text, /^link "Home"\n/);
  const memory = { memory: '', results: [], recent: [], failures: 0 };
  const task = 'Go from this product page to the category it is listed in';
  const message = compactMessage({ task, files: [], memory, page: product, view: compactView(product, task) });
  assert.match(message, /\nThe section this page is in: link "Hand tools"\.$/);
  // While the part asks for it, the section's link is all the step may do: the 1.5B clicked Home.
  const only = sectionFor(task, product.outline);
  const shape = compactShape(compactView(product, task), { files: false, task, ...(only && { only }) });
  assert.deepEqual(JSON.stringify(shape.schema).match(/"const":"[^"]*"/g), ['"const":"click"', '"const":"Hand tools"']);
  assert.equal(sectionFor('Tell me the name of the dearest item', product.outline), undefined);
  // Links in a row without the page's own name after them (a menu) are no trail.
  const menu = pageOf([
    element(1, { role: 'link', name: 'Home' }),
    text('|'),
    element(2, { role: 'link', name: 'Shop' }),
    text('|'),
  ]);
  assert.doesNotMatch(compactView(menu, 'x').text, /section this page is in/);
});

test('a scroll is offered only where the page has more: below, above, or left out at the budget', () => {
  const scrollsOf = (page: PageState) => {
    const schema = compactShape(compactView(page, 'x'), { files: false, task: 'x' }).schema as { anyOf: unknown[] };
    const scroll = schema.anyOf.find((a) => JSON.stringify(a).includes('"const":"scroll"'));
    return scroll ? (JSON.parse(JSON.stringify(scroll)).properties.direction.enum as string[]) : [];
  };
  assert.deepEqual(scrollsOf(FORM), []);
  assert.deepEqual(scrollsOf({ ...FORM, scroll: { above: 0, below: 900 } }), ['down']);
  assert.deepEqual(scrollsOf({ ...FORM, scroll: { above: 400, below: 900 } }), ['down', 'up']);
});

test('with a choice the task names left, every part is not said to be done', () => {
  const task = "Set the warehouse's address to the city of Augsburg, in Bavaria, Germany.";
  const page = pageOf([
    element(1, { role: 'select', name: 'Country', value: 'Germany', options: ['France', 'Germany'] }),
    element(2, {
      role: 'select',
      name: 'Region',
      value: 'Choose a region',
      options: ['Choose a region', 'Bavaria', 'Hesse'],
    }),
    element(3, { role: 'textbox', name: 'City', value: 'Augsburg' }),
    element(4, { role: 'button', name: 'Save address' }),
  ]);
  const memory = {
    ...{ memory: '', results: [], recent: [], failures: 0 },
    done: ['typed "Augsburg" into textbox "City"', 'chose "Germany" in select "Country"'],
    partsDone: [0, 1],
    typed: ['Augsburg', 'Germany'],
  };
  const message = compactMessage({ task, files: [], memory, page, view: compactView(page, task) });
  assert.doesNotMatch(message, /Every part/);
  assert.match(message, /\nNot chosen yet: "Bavaria" in "Region"/);
});
