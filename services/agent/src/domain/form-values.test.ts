import assert from 'node:assert/strict';
import { test } from 'node:test';
import type { ElementInfo } from '../browser/types.js';
import { choicesLeft, formLines, optionLine, untickLine } from './form-values.js';
import { emptyMemory, type Memory } from './memory.js';

const box = (name: string, value?: string): { label: string; info: ElementInfo } => ({
  label: name,
  info: { role: 'textbox', name, ...(value !== undefined && { value }) },
});

const memoryOf = (extra: Partial<Memory>): Memory => ({ ...emptyMemory(), done: ['typed'], ...extra });

test("the values left are the next part's and those a box plainly takes; once a send was refused, every part's", () => {
  const part = 'Use the contact form to tell the shop that order 4417 arrived cracked';
  const others = ['Sign it as Dana Whitfield', 'dana.whitfield@example.org'];
  const shown = [box('Email'), box('Your name')];
  assert.deepEqual(formLines('', part, others, memoryOf({}), shown), [
    'Not entered yet: "4417", "Dana Whitfield" into "Your name", "dana.whitfield@example.org" into "Email"',
  ]);
  // A later part's value no box plainly takes waits for its part.
  assert.deepEqual(formLines('', part, ['Quote 77-B'], memoryOf({}), shown), ['Not entered yet: "4417"']);
  const task = `${part}. ${others.join(', ')}.`;
  assert.deepEqual(formLines(task, part, others, memoryOf({ incomplete: true, typed: ['4417'] }), shown), [
    'Not entered yet: "Dana Whitfield" into "Your name", "dana.whitfield@example.org" into "Email"',
  ]);
  assert.deepEqual(formLines('', part, others, { ...emptyMemory(), incomplete: true }, shown), [], 'before any act');
});

test('a box that repeats another, and a box a refused form came back without, say what to type', () => {
  const typedInto: Memory['typedInto'] = [
    ['Password', 'Quartz-lantern-9'],
    ['Username', 'oliver'],
  ];
  const shown = [box('Username', 'oliver'), box('Password', '•••'), box('Confirm password')];
  assert.deepEqual(formLines('', undefined, [], memoryOf({ typedInto }), shown), [
    '"Confirm password" repeats "Password": type "Quartz-lantern-9" into it',
  ]);
  // The page refused the form and sent it back with the passwords empty.
  const back = [box('Username', 'oliver'), box('Password'), box('Confirm password')];
  assert.deepEqual(
    formLines('', undefined, [], memoryOf({ typedInto, pageRefused: ['The two passwords differ.'] }), back),
    [
      '"Password" is empty again: type "Quartz-lantern-9" into it',
      '"Confirm password" repeats "Password": type "Quartz-lantern-9" into it',
    ],
  );
  assert.deepEqual(
    formLines('', undefined, [], memoryOf({ typedInto }), [box('Password')]),
    [],
    'no refusal: not again',
  );
});

test('an option the task names that its list does not hold is left to choose, and said so', () => {
  const task = 'Log in and send the billing team a message asking for the October invoice';
  const to: ElementInfo = {
    role: 'select',
    name: 'To',
    value: 'Customer support',
    options: ['Customer support', 'Billing team', 'Technical team'],
  };
  assert.deepEqual(choicesLeft(task, [to]), [{ name: 'To', option: 'Billing team' }]);
  assert.deepEqual(choicesLeft(task, [{ ...to, value: 'Billing team' }]), [], 'chosen');
  assert.deepEqual(choicesLeft('Send us a message', [to]), [], 'the task names none');
  const answer: ElementInfo = { role: 'select', name: 'Reply', options: ['Yes', 'No'] };
  assert.deepEqual(choicesLeft('Say yes to the offer', [answer]), [], 'a word any task may say');
  assert.deepEqual(formLines(task, undefined, [], memoryOf({}), [{ label: 'To', info: to }]), [
    'Not chosen yet: "Billing team" in "To"',
  ]);
});

test('a value goes into the box the words before it name, or the box of its kind', () => {
  const task =
    'Sign up as Oliver Grant with the username oliver, email oliver.grant@example.net and date of birth 1987-06-02.';
  const shown = [
    box('Full name'),
    box('Username', 'oliver'),
    box('Email'),
    box('Date of birth'),
    box('Phone (optional)'),
  ];
  assert.deepEqual(formLines(task, task, [], memoryOf({ typed: ['oliver'] }), shown), [
    'Not entered yet: "Oliver Grant" into "Full name", "oliver.grant@example.net" into "Email", "1987-06-02" into "Date of birth"',
  ]);
  // Two boxes alike: no box is said.
  assert.deepEqual(formLines('Write 4417 there', 'Write 4417 there', [], memoryOf({}), [box('A'), box('B')]), [
    'Not entered yet: "4417"',
  ]);
});

test('after text typed into a combobox, the option the task says whole is the one to choose', () => {
  const option = (name: string) => ({ label: name, info: { role: 'option', name } as ElementInfo });
  const shown = [
    box('Home city', 'Valparaíso'),
    option('Valparaíso de Goiás, Brazil'),
    option('Valparaíso, Chile'),
    option('Valparaiso, Indiana, United States'),
  ];
  const task = 'Set my home city in the travel profile to Valparaíso in Chile and save it.';
  assert.equal(optionLine(task, shown), 'Now choose its option "Valparaíso, Chile": typing alone chose nothing.');
  assert.equal(
    optionLine('Set my home city to Valparaíso', shown),
    'Now choose one of the options it shows: typing alone chose nothing.',
  );
  assert.equal(optionLine(task, [box('Home city')]), undefined);
});

test('after a click opened a list, the option that says most of the task is the one to choose', () => {
  const option = (name: string) => ({ label: name, info: { role: 'option', name } as ElementInfo });
  const shown = [
    option('Standard delivery, 3 to 5 days, free'),
    option('Express delivery, 1 to 2 days, €9.90'),
    option('Pick up in store'),
  ];
  assert.equal(
    optionLine('Place this order with express delivery.', shown, true),
    'Now choose its option "Express delivery, 1 to 2 days, €9.90": opening the list alone chose nothing.',
  );
  // Two that say as much: none is named.
  assert.equal(
    optionLine('Place this order with delivery.', shown, true),
    'Now choose one of the options it shows: opening the list alone chose nothing.',
  );
});

test('a box the run ticked that a refused form came back without says to tick it again', () => {
  const terms = {
    label: 'I accept the terms',
    info: { role: 'checkbox', name: 'I accept the terms', checked: false } as ElementInfo,
  };
  const memory = memoryOf({ typed: ['I accept the terms'], pageRefused: ['The username is taken.'] });
  assert.deepEqual(formLines('', undefined, [], memory, [terms]), ['"I accept the terms" is unticked again: tick it']);
  assert.deepEqual(
    formLines('', undefined, [], memoryOf({ typed: ['I accept the terms'] }), [terms]),
    [],
    'no refusal',
  );
});

test('a box a refused send names as digits only is told its value in digits', () => {
  const memory = {
    ...{ memory: '', results: [], recent: [], failures: 0 },
    done: ['clicked button "Create account"'],
    pageRefused: ['Phone numbers are digits only, country code first, for example 447700900077.'],
  };
  const shown = [box('Email', 'priya@example.in'), box('Phone (optional)', '+44 7700 900123')];
  const lines = formLines('Register Priya: phone +44 7700 900123', undefined, [], memory, shown);
  assert.deepEqual(lines, [
    '"Phone (optional)" was refused as written: the page asks for digits only: type "447700900123" into it',
  ]);
  // Once it holds digits alone, or when the refusal says nothing of the form, no line.
  assert.deepEqual(formLines('x', undefined, [], memory, [box('Phone (optional)', '447700900123')]), []);
  const other = { ...memory, pageRefused: ['The username is taken.'] };
  assert.deepEqual(formLines('x', undefined, [], other, shown), []);
});

test('a value for a read-only box says to click it; one a list offers is a choice, not text to enter', () => {
  const memory = {
    ...{ memory: '', results: [], recent: [], failures: 0 },
    done: ['typed "Ana Ruiz" into textbox "Patient name"'],
    typed: ['Ana Ruiz'],
  };
  const time = { label: 'Time', info: { role: 'select', name: 'Time', value: '09:00', options: ['09:00', '10:30'] } };
  const date = { label: 'Date', info: { role: 'textbox', name: 'Date', readonly: true } as ElementInfo };
  const task = 'Book a dental check-up for Ana Ruiz on 17 March 2027 at 10:30.';
  assert.deepEqual(formLines(task, task, [], memory, [box('Patient name', 'Ana Ruiz'), date, time as never]), [
    'Not entered yet: "17 March 2027" into "Date" (click it to choose)',
    'Not chosen yet: "10:30" in "Time"',
  ]);
});

test('a combobox that shows no option for two values typed at once asks for one at a time', () => {
  const tags = {
    label: 'Tags',
    info: { role: 'textbox', name: 'Tags', value: 'billing urgent', expanded: true } as ElementInfo,
  };
  const task = 'Tag this support ticket with billing and urgent, then save it.';
  assert.equal(
    optionLine(task, [tags]),
    'Its list shows no option for "billing urgent": type one value at a time, "billing".',
  );
  // Once "billing" is a tag, the value to type is the one not chosen yet.
  assert.equal(
    optionLine(task, [tags], false, ['billing']),
    'Its list shows no option for "billing urgent": type one value at a time, "urgent".',
  );
  const one = { ...tags, info: { ...tags.info, value: 'billing' } };
  assert.equal(optionLine(task, [one]), undefined);
});

test('a task that wants only what it names is told to untick the boxes it does not name', () => {
  const tick = (name: string, checked: boolean) => ({
    label: name,
    info: { role: 'checkbox', name, checked } as ElementInfo,
  });
  const shown = [tick('Extra cheese', true), tick('Mushrooms', true), tick('Olives', false), tick('Red onions', true)];
  const task = 'Order a medium pizza with mushrooms and olives and no other toppings.';
  assert.equal(untickLine(task, shown), 'Untick what the task does not name: "Extra cheese", "Red onions".');
  assert.equal(untickLine('Order a pizza with mushrooms and olives.', shown), undefined);
  const cookies = [tick('Necessary', true), tick('Analytics', true), tick('Marketing', true)];
  assert.equal(
    untickLine('Allow only the necessary cookies on this site (no analytics, no marketing).', cookies),
    'Untick what the task does not name: "Analytics", "Marketing".',
  );
});
