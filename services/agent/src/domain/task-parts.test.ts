// A task that says its goal before a colon, and a text box chosen by a click: how the compact step
// splits the one and asks only what to write into the other.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import type { PageState } from '../browser/types.js';
import { compactMessage, compactShape, compactView, pageLines } from './compact.js';
import { emptyMemory } from './memory.js';
import { newText, refusal, statedAnswer } from './step-questions.js';
import {
  asksDone,
  asksForAnswer,
  doneParts,
  entersOnly,
  goalPart,
  partDone,
  partValues,
  rememberAct,
  rememberPage,
  sentPart,
  taskParts,
  taskWords,
  valuesLeft,
} from './task-parts.js';
import { element } from './test-support.js';

const SIGNUP =
  'Create an account for Marta Kowalski: username marta_k, email marta.k@example.com, password Tulip-garden-42, born on 14 March 1990. Accept the terms.';

const SIGNUP_PAGE: PageState = {
  url: 'http://127.0.0.1/account/signup',
  title: 'Create your account',
  tabs: [],
  scroll: { above: 0, below: 0 },
  elements: '',
  count: 4,
  outline: [
    element(1, { role: 'textbox', name: 'Full name' }),
    element(2, { role: 'textbox', name: 'Message' }),
    element(3, { role: 'checkbox', name: 'I accept the terms of sale', checked: false }),
    element(4, { role: 'button', name: 'Create account' }),
  ],
  fingerprint: 'f1',
};

test('a goal said before a colon is the last part, done by the click that sends the details', () => {
  const parts = taskParts(SIGNUP);
  assert.deepEqual(parts, [
    'username marta_k',
    'email marta.k@example.com',
    'password Tulip-garden-42',
    'born on 14 March 1990',
    'Accept the terms',
    'Create an account for Marta Kowalski',
  ]);
  assert.equal(goalPart(SIGNUP), 5);
  // The name in the goal does not make typing it the goal's act.
  const fullName = partDone(
    SIGNUP,
    { partsDone: [0, 1, 2, 3, 4], typed: ['marta_k', 'marta.k@example.com', 'Tulip-garden-42', '1990-03-14'] },
    { action: 'type', index: 1, text: 'Marta Kowalski' },
    { role: 'textbox', name: 'Full name' },
  );
  assert.equal(fullName, undefined);
  // Sending before the details are done is not the goal either.
  const create = { role: 'button', name: 'Create account' } as const;
  assert.equal(partDone(SIGNUP, { partsDone: [0] }, { action: 'click', index: 4 }, create), undefined);
  const details = {
    partsDone: [0, 1, 2, 3, 4],
    typed: ['marta_k', 'marta.k@example.com', 'Tulip-garden-42', '14/03/1990'],
  };
  assert.equal(partDone(SIGNUP, details, { action: 'click', index: 4 }, create), 5);
  // A year alone is not the date of birth: the details are not done.
  const year = { ...details, typed: ['marta_k', 'marta.k@example.com', 'Tulip-garden-42', '1990'] };
  assert.equal(partDone(SIGNUP, year, { action: 'click', index: 4 }, create), undefined);
  // A goal whose words the button does not share ("Register …" sent by "Create account") is done by it too.
  const register = 'Register Priya Nair on this shop: username priya_n, email priya.nair@example.in. Accept the terms.';
  assert.equal(taskParts(register).at(-1), 'Register Priya Nair on this shop');
  const registerDone = { partsDone: [0, 1, 2], typed: ['priya_n', 'priya.nair@example.in', 'Priya Nair'] };
  assert.equal(partDone(register, registerDone, { action: 'click', index: 4 }, create), 3);
  assert.equal(sentPart(register, registerDone), 3, 'Enter that sent the form does it as well');
  assert.deepEqual([...doneParts(register, { ...registerDone, partsDone: [0, 1, 2, 3] })].sort(), [0, 1, 2, 3]);
});

test('a colon that leads an act, or details that end by sending, keep the task as it is', () => {
  assert.deepEqual(taskParts('A dialog is open: press “Update now” in it.'), [
    'A dialog is open: press “Update now” in it',
  ]);
  assert.equal(goalPart('Set the password to Kite-4417: type it into both fields and press Save.'), undefined);
  assert.deepEqual(
    taskParts(
      'Fill in the form: Name Nadia Martin on the first page, Email nadia@example.com on the second, then press Finish.',
    ),
    ['Name Nadia Martin on the first page', 'Email nadia@example.com on the second', 'press Finish'],
  );
  assert.equal(goalPart('Book a dental check-up for Ana Ruiz on 17 March 2027 at 10:30.'), undefined, 'a time');
});

test('a commitment said first, its details after a comma, is the last part, as a goal before a colon is', () => {
  const task = 'Book a sea-view cabin for three, sailing on 12 May 2027, with breakfast included.';
  assert.equal(goalPart(task), undefined, 'sailing is no detail word: as written');
  const ferry = 'Book a cabin on the night ferry, leaving on 12 May 2027 and returning on 19 May 2027.';
  assert.deepEqual(taskParts(ferry), [
    'leaving on 12 May 2027',
    'returning on 19 May 2027',
    'Book a cabin on the night ferry',
  ]);
  assert.equal(goalPart(ferry), 2);
  assert.deepEqual(taskParts('Place the order for the Nordic lamp, with gift wrapping.'), [
    'with gift wrapping',
    'Place the order for the Nordic lamp',
  ]);
  // An act after the comma keeps the order: "…, then pay".
  assert.equal(goalPart('Order the blue mug, then pay with the saved card.'), undefined);
});

test('a text box the last act clicked is the only thing the next step offers: what to write into it', () => {
  const task = 'Use the contact form to ask for a replacement lid';
  const view = compactView(SIGNUP_PAGE, task);
  const shape = compactShape(view, { files: false, task, writing: 2 });
  const offered = (shape.schema as { anyOf: { properties: Record<string, unknown> }[] }).anyOf;
  assert.equal(offered.length, 1);
  assert.deepEqual(offered[0]?.properties.action, { type: 'string', const: 'type' });
  assert.deepEqual(offered[0]?.properties.target, { const: 'Message' });
  const memory = { memory: '', results: [], recent: [], failures: 0 };
  const text = compactMessage({ task, files: [], memory, page: SIGNUP_PAGE, view, writing: 2 });
  assert.match(text, /\nYou chose textbox "Message": write into it what the task says\.$/);
  // Not a text box (a stale index): the whole choice is offered.
  const whole = compactShape(view, { files: false, task, writing: 4 });
  assert.ok((whole.schema as { anyOf: unknown[] }).anyOf.length > 3);
});

test('a link named by what a part acts on leads there; the part is done by the act, or by a link that says it', () => {
  const task = 'Log in with username jules and password harbor-7781 and cancel my Premium subscription.';
  const memory = { partsDone: [0, 1], typed: ['jules', 'harbor-7781'] };
  const link = (name: string) => [{ action: 'click', index: 4 } as const, { role: 'link', name } as const] as const;
  assert.equal(partDone(task, memory, ...link('Subscription')), undefined, 'the way to it');
  assert.equal(partDone(task, memory, ...link('Cancel subscription')), 2);
  const button = { role: 'button', name: 'Cancel subscription' } as const;
  assert.equal(partDone(task, memory, { action: 'click', index: 5 }, button), 2);
  // A part that says to go somewhere is done by the link it names.
  assert.equal(partDone('Open the Pricing page and tell me the price', {}, ...link('Pricing')), 0);
  assert.equal(partDone('Click Pricing, then press Buy', {}, ...link('Pricing')), 0);
});

test('every part entered but a field the run set not sent: the step says to press the button after it', () => {
  const task = 'Change the city to Bristol and the postcode to BS1 4DJ';
  const page: PageState = {
    ...SIGNUP_PAGE,
    outline: [
      element(1, { role: 'link', name: 'Overview' }),
      element(2, { role: 'textbox', name: 'City', value: 'Bristol' }),
      element(3, { role: 'textbox', name: 'Postcode', value: 'BS1 4DJ' }),
      element(4, { role: 'button', name: 'Save address' }),
    ],
  };
  const view = compactView(page, task);
  const memory = { memory: '', results: [], recent: [], failures: 0, partsDone: [0, 1], typed: ['Bristol', 'BS1 4DJ'] };
  const unsent = compactMessage({ task, files: [], memory: { ...memory, unsent: 'textbox|Postcode#1' }, page, view });
  assert.match(unsent, /\nEvery part is entered but not sent: press button "Save address"\.$/);
  const sent = compactMessage({ task, files: [], memory, page, view });
  assert.match(sent, /\nEvery part is done: finish\.$/);
});

test('the answer check reads the text an act brought, whole, and takes "none" for no answer', () => {
  const before = {
    url: SIGNUP_PAGE.url,
    fingerprint: 'f0',
    lines: pageLines({ ...SIGNUP_PAGE, outline: [{ kind: 'text', depth: 0, text: 'Arden desk lamp' }] }),
  };
  const long = `The Arden desk lamp is covered by a 30-month warranty on the arm, joints and switch. ${'More. '.repeat(20)}`;
  const after: PageState = {
    ...SIGNUP_PAGE,
    outline: [
      { kind: 'text', depth: 0, text: 'Arden desk lamp' },
      { kind: 'text', depth: 0, text: long },
    ],
  };
  assert.equal(newText(before, after), long.slice(0, 800), 'the line that came, not the one that stayed');
  assert.equal(newText(before, { ...after, url: 'http://127.0.0.1/other' }).split('\n').length, 2, 'a new page: all');
  assert.equal(newText({ ...before, lines: pageLines(after) }, after), '', 'nothing came');
  assert.equal(statedAnswer({ answer: ' 30 months ' }), '30 months');
  for (const none of ['', 'none', 'Not shown.', 'n/a']) assert.equal(statedAnswer({ answer: none }), undefined, none);
  assert.equal(statedAnswer({ nothing: true }), undefined);
});

test("a page's refusal of a send is read from the lines that say so", () => {
  assert.deepEqual(
    refusal('Create your account\nEnter your full name.\nThe username "oliver" is taken. Choose another one.'),
    ['Enter your full name.', 'The username "oliver" is taken. Choose another one.'],
  );
  assert.equal(
    refusal('Write the date of birth as YYYY-MM-DD, for example 1984-07-21.')?.[0]?.startsWith('Write'),
    true,
  );
  assert.equal(refusal('Your account marta_k is ready.\nWelcome to Kettle & Co.'), undefined);
  assert.deepEqual(refusal('Phone numbers are digits only, country code first, for example 447700900123.'), [
    'Phone numbers are digits only, country code first, for example 447700900123.',
  ]);
  assert.equal(refusal(''), undefined);
});

test('a user name in plain lowercase letters is a value the sign-in part waits for', () => {
  const task = 'Sign in as omarhaddad with the password Falcon-6670 and press Sign in.';
  assert.deepEqual(partValues(taskParts(task)[0] as string), ['omarhaddad', 'Falcon-6670']);
  // The password alone does not do the part.
  assert.deepEqual([...doneParts(task, { partsDone: [0], typed: ['Falcon-6670'] })], []);
  assert.deepEqual([...doneParts(task, { partsDone: [0], typed: ['Falcon-6670', 'omarhaddad'] })], [0]);
  assert.deepEqual(partValues('Continue as Guest'), [], 'a capitalised word is a name on the page, not a value');
  assert.deepEqual(partValues('Register as a new customer'), []);
});

test('a quoted name followed by what it is (the “Tag” field) names an element, not a value', () => {
  assert.deepEqual(partValues('Enter the word pebble in the “Tag” field'), []);
  assert.deepEqual(partValues('Type “blue lagoon” into the “Notes” box'), ['blue lagoon']);
  assert.deepEqual(partValues('Press the "Save" button'), []);
  const task = 'Enter the word pebble in the “Tag” field, then click OK.';
  const typed = { action: 'type', index: 1, text: 'pebble' } as const;
  assert.equal(partDone(task, {}, typed, { role: 'textbox', name: 'Tag' }), 0);
  assert.deepEqual([...doneParts(task, { partsDone: [0], typed: ['pebble'] })], [0], 'typed: the part is done');
});

test("a person's name, two or three capitalized words after who it is for, is a value", () => {
  assert.deepEqual(partValues('Sign it as Dana Whitfield'), ['Dana Whitfield']);
  assert.deepEqual(partValues('Create an account for Marta Kowalski'), ['Marta Kowalski']);
  assert.deepEqual(partValues('Sign up as Oliver Grant with the username oliver'), ['Oliver Grant', 'oliver']);
  assert.deepEqual(partValues('Save it as Draft'), [], 'one word is a name of a thing');
  assert.deepEqual(partValues('Look for Order History page'), [], 'followed by what it is: an element');
});

test('a date written out is one value, not a year', () => {
  assert.deepEqual(partValues('Book a check-up for Ana Ruiz on 17 March 2027 at 10:30'), [
    'Ana Ruiz',
    '17 March 2027',
    '10:30',
  ]);
});

test('what a thing is to be named is a value', () => {
  assert.deepEqual(partValues('create a read-only API key named ci-deploy'), ['ci-deploy']);
  assert.deepEqual(partValues('add a label called urgent'), ['urgent']);
});

test('a phone number in groups is one value; a person named right after register is a value', () => {
  assert.deepEqual(partValues('UK phone number +44 7700 900123'), ['+44 7700 900123']);
  assert.deepEqual(partValues('call (020) 7946 0958 today'), ['(020) 7946 0958']);
  assert.deepEqual(partValues('Register Priya Nair on this shop'), ['Priya Nair']);
  assert.deepEqual(partValues('order 4417 arrived'), ['4417'], 'one number is no phone');
  assert.deepEqual(partValues('born 1995-11-30'), ['1995-11-30'], 'a date is no phone');
});

test('a part that says to send is done by a send, not by an option chosen on the way', () => {
  const task = 'Log in as jules and send the billing team a message asking for the October invoice';
  const memory = { partsDone: [0], typed: ['jules'] };
  const to = { role: 'select', name: 'To' } as const;
  assert.equal(partDone(task, memory, { action: 'select', index: 5, option: 'Billing team' }, to), undefined);
  const send = { role: 'button', name: 'Send' } as const;
  assert.equal(partDone(task, memory, { action: 'click', index: 8 }, send), 1);
});

test('a button named with "again" is one act: the word is its name, not a repeat', () => {
  const task = 'Click Try again in the error box.';
  const memory = emptyMemory();
  const button = { role: 'button', name: 'Try again', key: 'b1' } as const;
  rememberAct(task, memory, {
    action: { action: 'click', index: 2 },
    info: button,
    said: 'clicked',
    worked: true,
    documents: 0,
  });
  assert.deepEqual([...doneParts(task, memory)], [0]);
  // "Press Save again" still takes two presses.
  const twice = emptyMemory();
  const save = { role: 'button', name: 'Save', key: 'b2' } as const;
  rememberAct('Press Save again', twice, {
    action: { action: 'click', index: 3 },
    info: save,
    said: 'clicked',
    worked: true,
    documents: 0,
  });
  assert.deepEqual([...doneParts('Press Save again', twice)], []);
});

test('what opens a list (a collapsed button, text typed into a combobox) does no part and asks no done question', () => {
  const task = 'Place this order with express delivery.';
  const menu = { role: 'button', name: 'Delivery Standard delivery', expanded: false } as const;
  assert.equal(partDone(task, {}, { action: 'click', index: 1 }, menu), undefined);
  assert.equal(asksDone(task, { action: 'click', index: 1 }, menu), false);
  const city = { role: 'textbox', name: 'Home city', expanded: false } as const;
  const typed = { action: 'type', index: 1, text: 'Valparaíso' } as const;
  assert.equal(partDone('Set the home city to Valparaíso in Chile and save it', {}, typed, city), undefined);
  assert.equal(asksDone('Set the home city to Valparaíso', typed, city), false);
  const memory = emptyMemory();
  rememberAct('x', memory, { action: typed, info: { ...city, key: 'k1' }, said: 'typed', worked: true, documents: 0 });
  assert.equal(memory.choosing, 'k1');
  const click = { action: 'click', index: 1 } as const;
  rememberAct(task, memory, {
    action: click,
    info: { ...menu, key: 'k2' },
    said: 'clicked',
    worked: true,
    documents: 0,
  });
  assert.equal(memory.choosing, 'k2', 'a collapsed menu button opened: its option is next');
});

test('a value the page itself says is what it is about: held, not one to enter', () => {
  const task = 'Have order A-2291 delivered on 24 December 2026 in the morning.';
  const memory = emptyMemory();
  rememberPage(task, memory, 'Parcelway\nChoose a delivery day for order A-2291');
  assert.deepEqual(memory.typed, ['A-2291']);
  assert.deepEqual(valuesLeft(task, memory.typed), ['24 December 2026']);
  rememberPage(task, memory, 'Choose a delivery day for order A-2291');
  assert.deepEqual(memory.typed, ['A-2291'], 'once');
});

test("a clause that only forbids is no part; a row's button holds its row's words", () => {
  const task = 'Delete the draft called "Q3 supplier notes", and no other draft.';
  assert.deepEqual(taskParts(task), ['Delete the draft called "Q3 supplier notes"']);
  const memory = emptyMemory();
  const row = { role: 'button', name: 'Delete', context: 'Q3 supplier notes 4 Nov 2026', key: 'b1' } as const;
  rememberAct(task, memory, {
    action: { action: 'click', index: 1 },
    info: row,
    said: 'clicked',
    worked: true,
    documents: 0,
  });
  assert.deepEqual(valuesLeft(taskParts(task)[0] as string, memory.typed), []);
});

test('a clause that names the source of an answer leads the question after it', () => {
  const task =
    "According to the shop's FAQ, within how many days of delivery can I return an item I have already opened?";
  assert.deepEqual(taskParts(task), [task.replace(/\?$/, '?')]);
});

test('a full stop after an initial or a title ends no sentence', () => {
  assert.deepEqual(taskParts("Find Ursula K. Le Guin's The Left Hand of Darkness and add it to the cart."), [
    "Find Ursula K. Le Guin's The Left Hand of Darkness",
    'add it to the cart',
  ]);
  assert.deepEqual(taskParts('Book Dr. Ames. Pay by card.'), ['Book Dr. Ames', 'Pay by card']);
});

test('a task that starts by saying, describing or counting asks for an answer', () => {
  for (const task of ['Say that the page is still', 'Describe the product', 'Count the open tickets'])
    assert.equal(asksForAnswer(task), true, task);
  assert.equal(asksForAnswer('Save the draft'), false);
});

test('a task of one part that only says to type is done by typing; any other waits for a send', () => {
  assert.equal(entersOnly('Type Tora into the query'), true);
  assert.equal(entersOnly('Fill in the search box with desk lamps'), true);
  assert.equal(entersOnly('Have order A-2291 delivered on 24 December 2026 in the morning.'), false);
  assert.equal(entersOnly('Type Tora and press Send'), false);
});

test('a part to find a thing is done by reaching it, not by the words typed to search for it', () => {
  const task = 'Find the help article on resetting the HX-200 router and tell me how long to hold the button.';
  const typed = { action: 'type', index: 1, text: 'HX-200' } as const;
  assert.equal(partDone(task, {}, typed, { role: 'textbox', name: 'Search' }), undefined);
  const click = { action: 'click', index: 3 } as const;
  const other = { role: 'link', name: 'Resetting an HX-200 mesh satellite' } as const;
  assert.equal(partDone(task, {}, click, other), undefined, 'a link that shares a few words is not it');
  assert.equal(partDone(task, {}, click, { role: 'link', name: 'Resetting the HX-200 router' }), 0);
  // Found once a later part is done: the bike added to favourites was found.
  const bike = 'Find a used road bike with a 56 cm frame and add it to my favourites.';
  assert.deepEqual([...doneParts(bike, { partsDone: [1] })], [1, 0]);
});

test('a click into a read-only box chooses nothing to write into: what it opened is what to use', () => {
  const memory = emptyMemory();
  const click = { action: 'click', index: 1 } as const;
  const box = { role: 'textbox', name: 'Check-in', key: 'k1' } as const;
  rememberAct('x', memory, { action: click, info: box, said: 'clicked', worked: true, documents: 0 });
  assert.equal(memory.writing, 'k1');
  rememberAct('x', memory, {
    action: click,
    info: { ...box, readonly: true },
    said: 'clicked',
    worked: true,
    documents: 0,
  });
  assert.equal(memory.writing, undefined);
});

test('a part that commits (place, book, reserve) is done by the button that says its verb, not a choice', () => {
  const task = 'Place this order with express delivery.';
  const click = { action: 'click', index: 1 } as const;
  assert.equal(partDone(task, {}, click, { role: 'option', name: 'Express delivery, 1 to 2 days' }), undefined);
  assert.equal(partDone(task, {}, click, { role: 'other', name: 'Delivery' }), undefined);
  assert.equal(partDone(task, {}, click, { role: 'button', name: 'Place order' }), 0);
  const book = 'Book a dental check-up for Ana Ruiz on 17 March 2027 at 10:30.';
  assert.equal(partDone(book, {}, click, { role: 'button', name: '17 March 2027' }), undefined);
  assert.equal(partDone(book, {}, click, { role: 'button', name: 'Book' }), 0);
  assert.equal(partDone(book, {}, { action: 'press', key: 'Enter' }, { role: 'textbox', name: 'Patient name' }), 0);
});

test('an element that says a part’s verb does that part before one it only shares a word with', () => {
  const task = 'Tag this support ticket with billing and urgent, then save it.';
  const click = { action: 'click', index: 2 } as const;
  assert.equal(partDone(task, {}, click, { role: 'button', name: 'Save ticket' }), 2);
});

test('the words of a task worth looking for leave out the words every task has', () => {
  assert.deepEqual(
    [...taskWords('Press the Send button and add its cheapest edition to the cart')],
    ['send', 'add', 'cheapest', 'edition', 'cart'],
  );
});

test('a quoted text is one value: its "and" or comma splits no part', () => {
  assert.deepEqual(taskParts('Rate this article 4 stars with the comment "Clear and useful", and send it.'), [
    'Rate this article 4 stars with the comment "Clear and useful"',
    'send it',
  ]);
});

test('words in parentheses stay with their clause', () => {
  assert.deepEqual(
    taskParts('Allow only the necessary cookies (no analytics, no marketing), then sign ana@example.com up.'),
    ['Allow only the necessary cookies (no analytics, no marketing)', 'sign ana@example.com up'],
  );
});

test('words next to each other that both hold a digit are one value: a postcode', () => {
  assert.deepEqual(partValues('change the delivery address to 12 Quay Street, Bristol, BS1 4DJ'), ['BS1 4DJ']);
});
