// Checkboxes and radios: a grid of pre-ticked checkboxes to untick and
// tick, two radio groups side by side, a pizza whose default toppings must
// go, and a survey of 1-to-5 scales.
import type { Page } from 'playwright-core';
import { page, type Visit } from '../site.js';
import { all, listed, recorded, type Section } from '../task.js';

const TOPICS: [string, string][] = [
  ['invoices', 'Invoices'],
  ['security', 'Security alerts'],
  ['news', 'Product news'],
  ['summary', 'Weekly summary'],
];
const DEFAULTS: Record<string, string[]> = { email: ['invoices', 'news', 'summary'], sms: ['news'] };

const box = (name: string, value: string, label: string, checked: boolean, type = 'checkbox') =>
  `<label><input type="${type}" name="${name}" value="${value}"${checked ? ' checked' : ''}> ${label}</label>`;

function group(legend: string, name: string, options: [string, string][], checked?: string, type = 'radio'): string {
  return `<fieldset><legend>${legend}</legend>${options.map(([v, l]) => box(name, v, l, v === checked, type)).join('')}</fieldset>`;
}

const SCALE: [string, string][] = ['1', '2', '3', '4', '5'].map((n) => [n, n]);

function thanks(v: Visit, kind: string, brand: string, data: Record<string, unknown>): string {
  v.record(kind, data);
  return page(brand, 'Thank you', '<p role="status">Saved. Thank you!</p>');
}

export const choices: Section = {
  routes: [
    {
      path: '/settings/notifications',
      handle: (v) =>
        page(
          'Ledgerly',
          'Notifications',
          `<form method="post" action="${v.base}/settings/notifications"><table><tr><th>Notification</th><th>Email</th><th>SMS</th></tr>
${TOPICS.map(
  ([id, name]) =>
    `<tr><td>${name}</td>${['email', 'sms']
      .map(
        (ch) =>
          `<td><input type="checkbox" name="${ch}" value="${id}" aria-label="${name} by ${ch === 'sms' ? 'SMS' : 'email'}"${DEFAULTS[ch]?.includes(id) ? ' checked' : ''}></td>`,
      )
      .join('')}</tr>`,
).join('')}</table><button>Save preferences</button></form>`,
        ),
    },
    {
      method: 'POST',
      path: '/settings/notifications',
      handle: (v) =>
        thanks(v, 'notifications', 'Ledgerly', { email: v.form.getAll('email'), sms: v.form.getAll('sms') }),
    },
    {
      path: '/signup/plan',
      handle: (v) =>
        page(
          'Tessera Workspace',
          'Choose your plan',
          `<form method="post" action="${v.base}/signup/plan">${group(
            'Billing',
            'billing',
            [
              ['monthly', 'Monthly'],
              ['annual', 'Annual (save 20%)'],
            ],
            'monthly',
          )}${group(
            'Plan',
            'plan',
            [
              ['starter', 'Starter, €8 per user'],
              ['team', 'Team, €15 per user'],
              ['business', 'Business, €29 per user'],
            ],
            'starter',
          )}<button>Continue</button></form>`,
        ),
    },
    {
      method: 'POST',
      path: '/signup/plan',
      handle: (v) => thanks(v, 'plan', 'Tessera Workspace', Object.fromEntries(v.form)),
    },
    {
      path: '/order/pizza',
      handle: (v) =>
        page(
          'Forno Nuovo',
          'Build your pizza',
          `<form method="post" action="${v.base}/order/pizza">${group('Size', 'size', [
            ['small', 'Small, 25 cm'],
            ['medium', 'Medium, 30 cm'],
            ['large', 'Large, 35 cm'],
          ])}<fieldset><legend>Toppings</legend>${[
            ['cheese', 'Extra cheese', true],
            ['mushrooms', 'Mushrooms', false],
            ['olives', 'Olives', false],
            ['onions', 'Red onions', true],
            ['peppers', 'Peppers', false],
            ['ham', 'Ham', false],
          ]
            .map(([value, label, on]) => box('toppings', String(value), String(label), Boolean(on)))
            .join('')}</fieldset>${group(
            'How do you want it?',
            'fulfilment',
            [
              ['delivery', 'Delivery'],
              ['pickup', 'Pick up at the shop'],
            ],
            'delivery',
          )}<button>Add to order</button></form>`,
        ),
    },
    {
      method: 'POST',
      path: '/order/pizza',
      handle: (v) =>
        thanks(v, 'pizza', 'Forno Nuovo', {
          size: v.form.get('size'),
          toppings: v.form.getAll('toppings'),
          fulfilment: v.form.get('fulfilment'),
        }),
    },
    {
      path: '/survey/delivery',
      handle: (v) =>
        page(
          'Fern & Fig Home',
          'How did we do?',
          `<form method="post" action="${v.base}/survey/delivery"><p>1 is poor, 5 is excellent.</p>
${group('How fast was the delivery?', 'speed', SCALE)}${group('How was the packaging?', 'packaging', SCALE)}
${group('Would you recommend us to a friend?', 'recommend', [
  ['yes', 'Yes'],
  ['no', 'No'],
  ['unsure', 'Not sure'],
])}<label>Anything else? <textarea name="comment" rows="3" cols="40"></textarea></label><button>Send answers</button></form>`,
        ),
    },
    {
      method: 'POST',
      path: '/survey/delivery',
      handle: (v) => thanks(v, 'survey', 'Fern & Fig Home', Object.fromEntries(v.form)),
    },
  ],
  tasks: [
    {
      id: 'checkbox-notifications',
      kind: 'checkbox-radio',
      task: 'Change my notification settings so that only invoices come by email and only security alerts come by SMS, everything else off, and save them.',
      path: '/settings/notifications',
      check: ({ records }) =>
        all(
          listed(records, 'notifications', 'email', ['invoices']),
          listed(records, 'notifications', 'sms', ['security']),
        ),
    },
    {
      id: 'radio-plan-billing',
      kind: 'checkbox-radio',
      task: 'Choose the Team plan, billed annually, and continue.',
      path: '/signup/plan',
      check: ({ records }) => recorded(records, 'plan', { plan: 'team', billing: 'annual' }),
    },
    {
      id: 'checkbox-pizza-toppings',
      kind: 'checkbox-radio',
      task: 'Order a medium pizza with mushrooms and olives and no other toppings, to pick up at the shop.',
      path: '/order/pizza',
      check: ({ records }) =>
        all(
          recorded(records, 'pizza', { size: 'medium', fulfilment: 'pickup' }),
          listed(records, 'pizza', 'toppings', ['mushrooms', 'olives']),
        ),
    },
    {
      id: 'radio-delivery-survey',
      kind: 'checkbox-radio',
      task: 'Fill in the delivery survey: 4 out of 5 for delivery speed, 5 out of 5 for packaging, and yes, I would recommend the shop. Send it.',
      path: '/survey/delivery',
      check: ({ records }) => recorded(records, 'survey', { speed: '4', packaging: '5', recommend: 'yes' }),
    },
  ],
  solutions: {
    async 'checkbox-notifications'(p) {
      for (const [, name] of TOPICS) {
        await p.getByLabel(`${name} by email`).setChecked(name === 'Invoices');
        await p.getByLabel(`${name} by SMS`).setChecked(name === 'Security alerts');
      }
      await saveAndWait(p, 'Save preferences');
    },
    async 'radio-plan-billing'(p) {
      await p.getByLabel('Annual').check();
      await p.getByLabel('Team').check();
      await saveAndWait(p, 'Continue');
    },
    async 'checkbox-pizza-toppings'(p) {
      await p.getByLabel('Medium').check();
      for (const topping of ['Extra cheese', 'Red onions']) await p.getByLabel(topping).uncheck();
      for (const topping of ['Mushrooms', 'Olives']) await p.getByLabel(topping).check();
      await p.getByLabel('Pick up at the shop').check();
      await saveAndWait(p, 'Add to order');
    },
    async 'radio-delivery-survey'(p) {
      await p.getByRole('group', { name: 'How fast was the delivery?' }).getByLabel('4').check();
      await p.getByRole('group', { name: 'How was the packaging?' }).getByLabel('5').check();
      await p.getByRole('group', { name: 'Would you recommend us' }).getByLabel('Yes').check();
      await saveAndWait(p, 'Send answers');
    },
  },
};

async function saveAndWait(p: Page, button: string): Promise<void> {
  await p.getByRole('button', { name: button }).click();
  await p.getByText('Saved. Thank you!').waitFor();
}
